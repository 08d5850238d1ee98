package numerics

// Tests of logdomain.go: special cases (exact ==, as in Go's math package) and
// accuracy against references computed in math/big arithmetic by the helpers
// at the end of this file, from each function's definition.
//
// Tolerances. A formula that is backward stable — exact for inputs perturbed
// by a few units of ε = 2⁻⁵² — has a forward error of a few ε·(|F| + S), where
// S = Σ_i |x_i·∂F/∂x_i| is the change of F under a unit relative change of its
// inputs. S is large exactly where F is ill-conditioned (LogExpm1 near
// x = log 2, where F = 0), so the scale |F| + S does not excuse an inaccurate
// formula elsewhere. Each accuracy test states its budget in units of
// ε·(|F| + S), counted from the roundings of the formula; ldWithin applies it.
// A result in the subnormal range carries absolute precision 2⁻¹⁰⁷⁴ only, so
// as many units of 2⁻¹⁰⁷⁴ are allowed on top.

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

const ldEps = 0x1p-52

var (
	ldInf  = math.Inf(1)
	ldNInf = math.Inf(-1)
	ldNaN  = math.NaN()
)

// ldSame reports whether a and b are the same value: both NaN, or ==.
func ldSame(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// ldWithin reports whether got is within ulps units of ε·(|want| + sens) of
// want (plus ulps units of 2⁻¹⁰⁷⁴), or equal to it (infinities included).
func ldWithin(got, want, sens, ulps float64) bool {
	if got == want {
		return true
	}
	if math.IsNaN(got) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	return math.Abs(got-want) <= ulps*(ldEps*(math.Abs(want)+sens)+0x1p-1074)
}

// ldUnits returns the error of got in units of ε·(|want| + sens), for logs.
func ldUnits(got, want, sens float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / (ldEps*(math.Abs(want)+sens) + 0x1p-1074)
}

// ldWorst keeps the largest error of a sweep, to log it: the margin between
// a budget and the error actually met shows how much slack a budget has.
type ldWorst struct {
	units, x float64
}

func (w *ldWorst) add(units, x float64) {
	if units > w.units {
		w.units, w.x = units, x
	}
}

// ldGrid returns n points a, a+h, …, b together with extra points.
func ldGrid(a, b float64, n int, extra ...float64) []float64 {
	xs := make([]float64, 0, n+len(extra))
	for i := 0; i < n; i++ {
		xs = append(xs, a+(b-a)*float64(i)/float64(n-1))
	}
	return append(xs, extra...)
}

// ldLogGrid returns ±10^e for e = e0, e0+h, …, e1 (signs as asked).
func ldLogGrid(e0, e1, h float64, pos, neg bool) []float64 {
	var xs []float64
	for e := e0; e <= e1+h/2; e += h {
		v := math.Pow(10, e)
		if pos {
			xs = append(xs, v)
		}
		if neg {
			xs = append(xs, -v)
		}
	}
	return xs
}

// ldAround returns x and its two float64 neighbours: the points where a
// formula switches branches.
func ldAround(xs ...float64) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, math.Nextafter(x, ldNInf), x, math.Nextafter(x, ldInf))
	}
	return out
}

// References, from the definitions.

// ldRefLSE is log Σ exp(x_i), formed as m + log Σ exp(x_i − m) with m the
// largest x_i; terms with x_i − m < −1e5 are dropped (together below n·e^{−1e5}
// relative, far beyond the working precision).
func ldRefLSE(x ...float64) float64 {
	m := ldNInf
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, 0) {
		return m
	}
	return ldRefValue(func(r ldRef) *big.Float {
		mb := r.f(m)
		s := r.z()
		for _, v := range x {
			if math.IsInf(v, -1) {
				continue
			}
			d := r.sub(r.f(v), mb)
			if d.Cmp(big.NewFloat(-1e5)) < 0 {
				continue
			}
			s = r.add(s, r.exp(d))
		}
		return r.add(mb, r.log(s))
	})
}

// ldScaleLSE returns the error scale of LogSumExp's formula m + log1p(s),
// s = Σ_{i≠k} e^{x_i − m}, beyond |F| (in units of which ldWithin measures):
//
//	Σ_i |x_i|·p_i + (n − 1)(1 − p_k) + |F − m|,  p_i = e^{x_i − F}.
//
// The first sum is S, the condition of LSE (a rounding of x_i − m changes
// F by ε|x_i − m|·p_i). The sum s of n − 1 terms, each 1 ulp from exp, has
// a relative error ≤ (n − 1)ε/2, which log1p turns into an absolute error
// ≤ (n − 1)ε/2·s/(1 + s) = (n − 1)ε/2·(1 − p_k); log1p and the final addition
// add ½ ulp of |F − m| = log1p(s) and of |F|. Every term vanishes with the
// terms other than the largest, so the scale keeps LogSumExp([0, −40]) =
// e^{−40} to relative precision.
func ldScaleLSE(lse float64, x ...float64) float64 {
	m := ldNInf
	var s float64
	for _, v := range x {
		m = math.Max(m, v)
		if !math.IsInf(v, 0) && v != 0 {
			s += math.Abs(v) * math.Exp(v-lse)
		}
	}
	if math.IsInf(m, 0) || math.IsInf(lse, 0) {
		return 0
	}
	return s + float64(len(x)-1)*(1-math.Exp(m-lse)) + math.Abs(lse-m)
}

func ldRefLog1pExp(x float64) float64 {
	return ldRefAt(func(r ldRef, x *big.Float) *big.Float { return r.softplus(x) }, x)
}

func ldRefLogExpm1(x float64) float64 {
	return ldRefAt(func(r ldRef, x *big.Float) *big.Float { return r.logExpm1(x) }, x)
}

func ldRefLogLog1pExp(x float64) float64 {
	return ldRefAt(func(r ldRef, x *big.Float) *big.Float { return r.log(r.w().softplus(x)) }, x)
}

func ldRefExp(x float64) float64 {
	return ldRefAt(func(r ldRef, x *big.Float) *big.Float { return r.exp(x) }, x)
}

// ldSigmoid is σ(x) = 1/(1 + e^{−x}), for condition scales only.
func ldSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// TestLogDomainReference checks the big-float helpers themselves against Go's
// math package, whose Exp, Log, Expm1 and Log1p are accurate to about 1 ulp:
// agreement to 2 ulps at hundreds of points rules out a wrong series or a
// wrong argument reduction in the helpers (which would be off by far more).
func TestLogDomainReference(t *testing.T) {
	t.Parallel()
	one := func(F ldRefFunc) func(float64) float64 {
		return func(x float64) float64 { return ldRefAt(F, x) }
	}
	for _, test := range []struct {
		name   string
		ref    func(float64) float64
		math   func(float64) float64
		points []float64
	}{
		{"exp", one(func(r ldRef, x *big.Float) *big.Float { return r.exp(x) }), math.Exp, ldGrid(-700, 700, 141, -1e-8, 1e-300, 0.5)},
		{"log", one(func(r ldRef, x *big.Float) *big.Float { return r.log(x) }), math.Log, append(ldLogGrid(-300, 300, 5, true, false), 0.7, 0.999, 1.001, 1.5)},
		{"expm1", one(func(r ldRef, x *big.Float) *big.Float { return r.expm1(x) }), math.Expm1, append(ldLogGrid(-20, 2.5, 0.25, true, true), 0.4999, 0.5)},
		{"log1p", one(func(r ldRef, x *big.Float) *big.Float { return r.log1p(x) }), math.Log1p, append(ldLogGrid(-20, 300, 2, true, false), -0.5, -0.4999, -0.9, -1e-8, -1e-300)},
	} {
		for _, x := range test.points {
			want, got := test.ref(x), test.math(x)
			if !ldWithin(got, want, 0, 2) {
				t.Errorf("reference %s(%g) = %v, math says %v", test.name, x, want, got)
			}
		}
	}
	// ln 2 through two independent routes: 2 atanh(1/3) and −log(1/2)
	// computed by log's own reduction (m = 1/2·2 → t = 0, e = −1).
	r := ldRef{256}
	if d := r.sub(r.ln2(), r.neg(r.log(r.f(0.5)))); d.Sign() != 0 && d.MantExp(nil) > -250 {
		t.Errorf("ln 2 routes differ by %v", d)
	}
	// exp(log x) = x to the working precision.
	for _, x := range []float64{1e-300, 0.3, 3, 1e300} {
		xb := r.f(x)
		if d := r.sub(r.exp(r.log(xb)), xb); d.Sign() != 0 && d.MantExp(nil) > xb.MantExp(nil)-240 {
			t.Errorf("exp(log(%g)) − %g = %v", x, x, d)
		}
	}
}

func TestLogSumExpSpecial(t *testing.T) {
	t.Parallel()
	mx := math.MaxFloat64
	for _, test := range []struct {
		name string
		x    []float64
		want float64
	}{
		{"nil", nil, ldNInf},
		{"empty", []float64{}, ldNInf},
		{"-Inf", []float64{ldNInf}, ldNInf},
		{"all -Inf", []float64{ldNInf, ldNInf, ldNInf}, ldNInf},
		{"+Inf", []float64{ldInf}, ldInf},
		{"+Inf first", []float64{ldInf, 0}, ldInf},
		{"+Inf last", []float64{0, 1e300, ldInf}, ldInf},
		{"+Inf and -Inf", []float64{ldNInf, ldInf}, ldInf},
		{"NaN", []float64{ldNaN}, ldNaN},
		{"NaN and +Inf", []float64{ldInf, ldNaN}, ldNaN},
		{"NaN and -Inf", []float64{ldNaN, ldNInf}, ldNaN},
		{"NaN last", []float64{0, 1, ldNaN}, ldNaN},
		// A single finite entry: m + log1p(0) = m exactly.
		{"single 0", []float64{0}, 0},
		{"single -1e4", []float64{-1e4}, -1e4},
		{"single max", []float64{mx}, mx},
		{"single -max", []float64{-mx}, -mx},
		{"single subnormal", []float64{5e-324}, 5e-324},
		// -Inf entries contribute e^{−Inf} = 0 exactly.
		{"0 and -Inf", []float64{ldNInf, 0, ldNInf}, 0},
		// log 2 is below half an ulp of these, so the sum rounds back to them:
		// no overflow at the top of the range.
		{"max twice", []float64{mx, mx}, mx},
		{"1e308 thrice", []float64{1e308, 1e308, 1e308}, 1e308},
		{"-max and max", []float64{-mx, mx}, mx},
		{"-max twice", []float64{-mx, -mx}, -mx},
		{"1 and -Inf", []float64{1, ldNInf}, 1},
	} {
		if got := LogSumExp(test.x); !ldSame(got, test.want) {
			t.Errorf("%s: LogSumExp(%v) = %v, want %v", test.name, test.x, got, test.want)
		}
	}
}

func TestLogSumExpAccuracy(t *testing.T) {
	t.Parallel()
	// Budget 2 units of ε on the scale |F| + ldScaleLSE (each source of error
	// there is at most ½ε of its term; 2 leaves room for the ulp of exp).
	const budget = 2
	cases := []struct {
		name string
		x    []float64
	}{
		{"equal pair", []float64{0, 0}},
		// e^{−40} = 4e-18: kept by log1p, lost by log(1 + e^{−40}) = 0
		// (the formula before log1p; the scale leaves no room for that).
		{"tiny second term", []float64{0, -40}},
		{"tiny second term, exp underflow", []float64{0, -745}},
		{"cancel to ~0", []float64{-math.Ln2, -math.Ln2}},
		{"margin 1e4", []float64{-1e4, -1e4 - 1, -1e4 - 2.5}},
		{"wide", []float64{-1e4, 0, 3, -700}},
		{"huge", []float64{1e308, 9.9e307, -1e308}},
		{"huge equal", []float64{-1e300, -1e300}},
		{"with -Inf", []float64{ldNInf, 2, ldNInf, 1}},
		{"1000 equal", ldFill(1000, -5)},
		{"1000 equal, sum ≈ 1", ldFill(1000, -math.Log(1000))},
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	scales := []float64{1, 50, 800, 1e4, 1e300}
	for i := 0; i < 200; i++ {
		n := 1 + rnd.IntN(12)
		sc := scales[rnd.IntN(len(scales))]
		off := (2*rnd.Float64() - 1) * sc
		x := make([]float64, n)
		for j := range x {
			// Entries within sc of a common offset: sums with many terms of
			// comparable size, and with many negligible ones.
			x[j] = off + (2*rnd.Float64()-1)*sc*rnd.Float64()
		}
		cases = append(cases, struct {
			name string
			x    []float64
		}{fmt.Sprintf("random %d", i), x})
	}
	var worst ldWorst
	for i, c := range cases {
		want := ldRefLSE(c.x...)
		got := LogSumExp(c.x)
		sc := ldScaleLSE(want, c.x...)
		if !ldWithin(got, want, sc, budget) {
			t.Errorf("%s: LogSumExp(%v) = %v, want %v (%.3g units)", c.name, c.x, got, want, ldUnits(got, want, sc))
		}
		worst.add(ldUnits(got, want, sc), float64(i))
	}
	t.Logf("LogSumExp: worst error %.3g units (budget %d), %s", worst.units, budget, cases[int(worst.x)].name)
}

func ldFill(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

func TestLogAddExp(t *testing.T) {
	t.Parallel()
	mx := math.MaxFloat64
	for _, test := range []struct {
		a, b, want float64
	}{
		{ldNaN, 1, ldNaN},
		{1, ldNaN, ldNaN},
		{ldNaN, ldInf, ldNaN},
		{ldNInf, ldNaN, ldNaN},
		{ldInf, ldNInf, ldInf},
		{ldNInf, ldInf, ldInf},
		{ldInf, ldInf, ldInf},
		{ldInf, -1e300, ldInf},
		{ldNInf, ldNInf, ldNInf},
		{ldNInf, 3, 3},
		{3, ldNInf, 3},
		{ldNInf, -mx, -mx},
		{mx, mx, mx},
		{-mx, mx, mx},
	} {
		if got := LogAddExp(test.a, test.b); !ldSame(got, test.want) {
			t.Errorf("LogAddExp(%v, %v) = %v, want %v", test.a, test.b, got, test.want)
		}
	}
	// Accuracy: LogSumExp's formula for n = 2, with its scale and budget.
	const budget = 2
	var worst ldWorst
	pairs := [][2]float64{{0, 0}, {0, -40}, {-1e4, -1e4 - 1e-8}, {1e308, 1e308}, {-745, 0}, {-math.Ln2, -math.Ln2}, {20, -20}}
	rnd := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < 100; i++ {
		sc := []float64{1, 40, 1e4, 1e300}[i%4]
		pairs = append(pairs, [2]float64{(2*rnd.Float64() - 1) * sc, (2*rnd.Float64() - 1) * sc})
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		want := ldRefLSE(a, b)
		got := LogAddExp(a, b)
		sc := ldScaleLSE(want, a, b)
		if !ldWithin(got, want, sc, budget) {
			t.Errorf("LogAddExp(%v, %v) = %v, want %v (%.3g units)", a, b, got, want, ldUnits(got, want, sc))
		}
		worst.add(ldUnits(got, want, sc), a)
		// The formula is symmetric by construction and is LogSumExp's for n = 2.
		if got2 := LogAddExp(b, a); got2 != got {
			t.Errorf("LogAddExp(%v, %v) = %v ≠ LogAddExp(%v, %v) = %v", a, b, got, b, a, got2)
		}
		if lse := LogSumExp([]float64{a, b}); lse != got {
			t.Errorf("LogAddExp(%v, %v) = %v ≠ LogSumExp = %v", a, b, got, lse)
		}
	}
	t.Logf("LogAddExp: worst error %.3g units (budget %d)", worst.units, budget)
}

func TestLog1pExp(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		x, want float64
	}{
		{ldInf, ldInf},
		{ldNInf, 0},
		{ldNaN, ldNaN},
		// e^{−800} < 2⁻¹⁰⁷⁵ rounds to 0, as does the softplus.
		{-800, 0},
		{-1e300, 0},
		// log1p(e^{−x}) < e^{−38} is below half an ulp of x for x ≥ 38.
		{38, 38},
		{800, 800},
		{1e300, 1e300},
		{math.MaxFloat64, math.MaxFloat64},
	} {
		if got := Log1pExp(test.x); !ldSame(got, test.want) {
			t.Errorf("Log1pExp(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [−800, 800] and at the branch points −37, 18, 37. Budget 3:
	// exp (1 ulp) and log1p (1 ulp, condition ≤ 1) then ½ ulp; the S term
	// |x|σ(x) covers the rounding of x itself.
	const budget = 3
	xs := ldGrid(-800, 800, 801, ldAround(-745, -709, -37, 0, 18, 37)...)
	xs = append(xs, ldLogGrid(-300, 1, 0.25, true, true)...)
	var worst ldWorst
	for _, x := range xs {
		want := ldRefLog1pExp(x)
		got := Log1pExp(x)
		sens := math.Abs(x) * ldSigmoid(x)
		if !ldWithin(got, want, sens, budget) {
			t.Errorf("Log1pExp(%v) = %v, want %v (%.3g units)", x, got, want, ldUnits(got, want, sens))
		}
		worst.add(ldUnits(got, want, sens), x)
	}
	t.Logf("Log1pExp: worst error %.3g units at x = %v (budget %d)", worst.units, worst.x, budget)
}

func TestLogExpm1(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		x, want float64
	}{
		{ldInf, ldInf},
		{0, ldNInf},
		{math.Copysign(0, -1), ldNInf},
		{-1e-300, ldNaN},
		{-1, ldNaN},
		{ldNInf, ldNaN},
		{ldNaN, ldNaN},
		// log1p(−e^{−x}) > −e^{−38} is below half an ulp of x for x ≥ 38.
		{38, 38},
		{800, 800},
		{math.MaxFloat64, math.MaxFloat64},
	} {
		if got := LogExpm1(test.x); !ldSame(got, test.want) {
			t.Errorf("LogExpm1(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [1e-300, 800], on a log grid and around the branch point
	// 0.5 and the zero log 2 of the function, where it is ill-conditioned
	// (S = x/(1 − e^{−x}) stays ~1.4 while F → 0). Budget 3: expm1 (1 ulp)
	// then log (1 ulp) for x ≤ 0.5; exp, log1p (condition e^{−x}/((1 −
	// e^{−x})|log1p(−e^{−x})|) ≤ 1.5 for x ≥ 0.5, where F ≥ −0.44) and the
	// final addition otherwise.
	const budget = 3
	xs := ldLogGrid(-300, -10, 1, true, false)
	xs = append(xs, ldLogGrid(-10, math.Log10(800), 0.02, true, false)...)
	xs = append(xs, ldAround(5e-324, 0x1p-1022, 0.5, math.Ln2, 37, 709.78)...)
	var worst ldWorst
	for _, x := range xs {
		want := ldRefLogExpm1(x)
		got := LogExpm1(x)
		sens := x / -math.Expm1(-x)
		if !ldWithin(got, want, sens, budget) {
			t.Errorf("LogExpm1(%v) = %v, want %v (%.3g units)", x, got, want, ldUnits(got, want, sens))
		}
		worst.add(ldUnits(got, want, sens), x)
	}
	t.Logf("LogExpm1: worst error %.3g units at x = %v (budget %d)", worst.units, worst.x, budget)
}

func TestLogLog1pExp(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		x, want float64
	}{
		{ldInf, ldInf},
		{ldNInf, ldNInf},
		{ldNaN, ldNaN},
		// For x ≤ −37 the result is x + log1p(−e^x/2) and the correction is
		// below half an ulp of x: exactly x.
		{-38, -38},
		{-1e6, -1e6},
		{-math.MaxFloat64, -math.MaxFloat64},
	} {
		if got := LogLog1pExp(test.x); !ldSame(got, test.want) {
			t.Errorf("LogLog1pExp(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [−1e6, 1e6] (log grid, both signs) and at the branch
	// points ±37 and the zero log(e − 1) ≈ 0.5413. Budget 3: log of the
	// softplus (3 units, condition of log ≤ 1/|F| folded into the scale) or
	// the tail formulas (log, log1p, one addition).
	const budget = 3
	xs := ldLogGrid(-12, 6, 0.05, true, true)
	xs = append(xs, ldAround(-37, 37, 18, 0, 0.5413248546129181, 1e-300, -1e-300)...)
	var worst ldWorst
	for _, x := range xs {
		want := ldRefLogLog1pExp(x)
		got := LogLog1pExp(x)
		// S = |x|·σ(x)/softplus(x).
		sens := math.Abs(x) * ldSigmoid(x) / Log1pExp(x)
		if !ldWithin(got, want, sens, budget) {
			t.Errorf("LogLog1pExp(%v) = %v, want %v (%.3g units)", x, got, want, ldUnits(got, want, sens))
		}
		worst.add(ldUnits(got, want, sens), x)
	}
	t.Logf("LogLog1pExp: worst error %.3g units at x = %v (budget %d)", worst.units, worst.x, budget)
}

func TestExp(t *testing.T) {
	t.Parallel()
	// The true overflow threshold: log(MaxFloat64) = 709.782712893384 (to
	// the digits shown; its float64 neighbour above overflows).
	const thr = 709.782712893384
	for _, test := range []struct {
		x, want float64
	}{
		{ldInf, ldInf},
		{ldNInf, 0},
		{ldNaN, ldNaN},
		{0, 1},
		{math.Nextafter(thr, ldInf), ldInf},
		{710, ldInf},
		{-746, 0},
	} {
		if got := Exp(test.x); !ldSame(got, test.want) {
			t.Errorf("Exp(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [−708, thr] (normal results), finite up to the threshold,
	// relative to the result (S = 0: the inputs are exact floats and exp is
	// evaluated to about 1 ulp by math.Exp). Budget 2: math.Exp below 709;
	// above, exp(x/2)² with x/2 exact, i.e. twice the error of exp(x/2) and
	// ½ ulp for the product.
	const budget = 2
	xs := ldGrid(-708, 709, 1418, ldAround(709, 709.43, 709.44, 709.6, 709.78, thr)...)
	var worst ldWorst
	for _, x := range xs {
		want := ldRefExp(x)
		got := Exp(x)
		if !ldWithin(got, want, 0, budget) {
			t.Errorf("Exp(%v) = %v, want %v (%.3g units)", x, got, want, ldUnits(got, want, 0))
		}
		worst.add(ldUnits(got, want, 0), x)
	}
	t.Logf("Exp: worst error %.3g units at x = %v (budget %d)", worst.units, worst.x, budget)
	// Subnormal results, [−745, −708]: absolute precision 2⁻¹⁰⁷⁴, of which
	// ldWithin allows budget units.
	for _, x := range ldGrid(-745, -708, 75, -745.1332191019412, -744.44) {
		if want, got := ldRefExp(x), Exp(x); !ldWithin(got, want, 0, budget) {
			t.Errorf("Exp(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		x, want float64
	}{
		{ldInf, ldInf},
		{0, ldNInf},
		{math.Copysign(0, -1), ldNInf},
		{-5e-324, ldNaN},
		{-1, ldNaN},
		{ldNaN, ldNaN},
		{1, 0},
	} {
		if got := Log(test.x); !ldSame(got, test.want) {
			t.Errorf("Log(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy, subnormal and normal x. Budget 2 on the scale |log x| + 1
	// (S = |x·(1/x)| = 1): math.Log's ulp, then for subnormals the rounded
	// subtraction of the rounded 52·log 2 (½ ulp each of numbers ≤ 745).
	const budget = 2
	xs := ldAround(5e-324, 1e-323, 0x1p-1022, 1e-310, 1e-300, 0.5, 1, 2, 1e300, math.MaxFloat64)
	for k := 0; k <= 52; k++ {
		xs = append(xs, math.Ldexp(1, -1074+k), math.Ldexp(1.7, -1074+k))
	}
	var worst ldWorst
	for _, x := range xs {
		want := ldRefAt(func(r ldRef, x *big.Float) *big.Float { return r.log(x) }, x)
		got := Log(x)
		if !ldWithin(got, want, 1, budget) {
			t.Errorf("Log(%v) = %v, want %v (%.3g units)", x, got, want, ldUnits(got, want, 1))
		}
		worst.add(ldUnits(got, want, 1), x)
	}
	t.Logf("Log: worst error %.3g units at x = %v (budget %d)", worst.units, worst.x, budget)
}

// TestLogDomainProperties checks identities between the functions on random
// inputs from well-conditioned ranges (gen.Float64Range; never gen.Float64,
// which produces 1e281). The seed is fixed; gopter prints it on failure.
func TestLogDomainProperties(t *testing.T) {
	t.Parallel()
	params := gopter.DefaultTestParametersWithSeed(1)
	params.MinSuccessfulTests = 500
	params.MaxSize = 30
	props := gopter.NewProperties(params)

	// softplus(x) − softplus(−x) = x. Each softplus is within 3 units of
	// ε(|F| + |x|) with |F| ≤ |x| + log 2; the difference adds ½ ulp of
	// |x|: 16ε(|x| + 1) bounds the total.
	props.Property("Log1pExp(x) − Log1pExp(−x) = x", prop.ForAll(
		func(x float64) bool {
			d := Log1pExp(x) - Log1pExp(-x)
			return math.Abs(d-x) <= 16*ldEps*(math.Abs(x)+1)
		},
		gen.Float64Range(-800, 800),
	))
	// LogExpm1 inverts Log1pExp: log(e^{softplus(x)} − 1) = x. The inner
	// relative error δ ≤ 3ε(1 + |x|σ(x)/softplus) of softplus(x) becomes an
	// absolute error ≤ δ·softplus/(1 − e^{−softplus}) ≤ 3ε(1 + |x|)·(1 +
	// log 2) in the outer function, plus its own 3ε(|x| + 1).
	props.Property("LogExpm1(Log1pExp(x)) = x", prop.ForAll(
		func(x float64) bool {
			return math.Abs(LogExpm1(Log1pExp(x))-x) <= 12*ldEps*(math.Abs(x)+1)
		},
		gen.Float64Range(-700, 700),
	))
	// LogLog1pExp is log of the softplus: 3 units each, and log turns the
	// softplus's relative error into an absolute one.
	props.Property("LogLog1pExp(x) = log(Log1pExp(x))", prop.ForAll(
		func(x float64) bool {
			return math.Abs(LogLog1pExp(x)-math.Log(Log1pExp(x))) <= 8*ldEps*(math.Abs(LogLog1pExp(x))+1)
		},
		gen.Float64Range(-700, 700),
	))
	// max x ≤ LogSumExp(x) ≤ max x + log n: exact on the left (log1p of a
	// non-negative sum is ≥ 0), 4 units on the right.
	props.Property("max ≤ LogSumExp ≤ max + log n", prop.ForAll(
		func(x []float64) bool {
			if len(x) == 0 {
				return LogSumExp(x) == ldNInf
			}
			m := ldNInf
			for _, v := range x {
				m = math.Max(m, v)
			}
			l := LogSumExp(x)
			up := m + math.Log(float64(len(x)))
			return m <= l && l <= up+4*ldEps*(math.Abs(up)+float64(len(x)))
		},
		gen.SliceOf(gen.Float64Range(-1e4, 1e4)),
	))
	// LogSumExp(x + c) = LogSumExp(x) + c, within the rounding of the x_i + c
	// (ε·|x_i + c|, S-weighted) and 4 units on each side.
	props.Property("LogSumExp(x + c) = LogSumExp(x) + c", prop.ForAll(
		func(x []float64, c float64) bool {
			if len(x) == 0 {
				return true
			}
			y := make([]float64, len(x))
			var s float64
			for i, v := range x {
				y[i] = v + c
				s += math.Abs(v) + math.Abs(c)
			}
			return math.Abs(LogSumExp(y)-(LogSumExp(x)+c)) <= 10*ldEps*(s+float64(len(x)))
		},
		gen.SliceOf(gen.Float64Range(-50, 50)),
		gen.Float64Range(-1e4, 1e4),
	))
	props.TestingRun(t)
}

// Benchmarks of the functions in the training loop's hot path.

var ldSink float64

func BenchmarkLogSumExp1000(b *testing.B) {
	x := make([]float64, 1000)
	rnd := rand.New(rand.NewPCG(1, 1))
	for i := range x {
		x[i] = -1e4 + 50*rnd.Float64()
	}
	b.ReportAllocs()
	for b.Loop() {
		ldSink = LogSumExp(x)
	}
}

func BenchmarkLogAddExp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ldSink = LogAddExp(-1000.5, -1001)
	}
}

func BenchmarkLog1pExp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ldSink = Log1pExp(-3.5)
	}
}

func BenchmarkLogExpm1(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ldSink = LogExpm1(1.5)
	}
}

func BenchmarkLogLog1pExp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ldSink = LogLog1pExp(-3.5)
	}
}

func BenchmarkLog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ldSink = Log(3.5)
	}
}

func BenchmarkExp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ldSink = Exp(-3.5)
	}
}

// Big-float helpers: see losses/bigref_test.go for the method, of which
// these are a copy (test helpers cannot be shared between packages without
// exporting them).

// ldRef is a precision in bits; its methods return values of that precision.
type ldRef struct{ prec uint }

// ldGuard is the number of extra bits each elementary function works with.
const ldGuard = 64

func (r ldRef) w() ldRef                                { return ldRef{r.prec + ldGuard} }
func (r ldRef) z() *big.Float                           { return new(big.Float).SetPrec(r.prec) }
func (r ldRef) f(x float64) *big.Float                  { return r.z().SetFloat64(x) }
func (r ldRef) round(x *big.Float) *big.Float           { return r.z().Set(x) }
func (r ldRef) add(a, b *big.Float) *big.Float          { return r.z().Add(a, b) }
func (r ldRef) sub(a, b *big.Float) *big.Float          { return r.z().Sub(a, b) }
func (r ldRef) mul(a, b *big.Float) *big.Float          { return r.z().Mul(a, b) }
func (r ldRef) quo(a, b *big.Float) *big.Float          { return r.z().Quo(a, b) }
func (r ldRef) neg(a *big.Float) *big.Float             { return r.z().Neg(a) }
func (r ldRef) addf(a *big.Float, b float64) *big.Float { return r.add(a, r.f(b)) }

// negligible reports whether term is below 2^{−(prec+4)}·|sum|.
func (r ldRef) negligible(term, sum *big.Float) bool {
	if term.Sign() == 0 {
		return true
	}
	if sum.Sign() == 0 {
		return false
	}
	return term.MantExp(nil) < sum.MantExp(nil)-int(r.prec)-4
}

// atanh returns Σ t^{2k+1}/(2k+1) for |t| ≤ 1/2.
func (r ldRef) atanh(t *big.Float) *big.Float {
	w := r.w()
	if t.Sign() == 0 {
		return r.z()
	}
	t2 := w.mul(t, t)
	term := w.round(t)
	sum := w.round(t)
	for k := 1; ; k++ {
		term = w.mul(term, t2)
		d := w.quo(term, w.f(float64(2*k+1)))
		sum = w.add(sum, d)
		if w.negligible(d, sum) {
			break
		}
	}
	return r.round(sum)
}

var (
	ldLn2Mu    sync.Mutex
	ldLn2Cache = map[uint]*big.Float{}
)

// ln2 returns log 2 = 2 atanh(1/3).
func (r ldRef) ln2() *big.Float {
	ldLn2Mu.Lock()
	defer ldLn2Mu.Unlock()
	if v, ok := ldLn2Cache[r.prec]; ok {
		return v
	}
	w := r.w()
	third := w.quo(w.f(1), w.f(3))
	v := r.round(w.mul(w.f(2), w.atanh(third)))
	ldLn2Cache[r.prec] = v
	return v
}

// log returns the natural logarithm of x ≥ 0 (−Inf at 0, +Inf at +Inf).
func (r ldRef) log(x *big.Float) *big.Float {
	switch {
	case x.Sign() < 0:
		panic(fmt.Sprintf("ldRef.log of negative %v", x))
	case x.Sign() == 0:
		return r.z().SetInf(true)
	case x.IsInf():
		return r.z().SetInf(false)
	}
	w := r.w()
	m := w.z()
	e := x.MantExp(m) // x = m·2^e, m ∈ [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	t := w.quo(w.addf(m, -1), w.addf(m, 1)) // |t| ≤ 0.1716
	s := w.mul(w.f(2), w.atanh(t))
	if e != 0 {
		s = w.add(s, w.mul(w.f(float64(e)), w.w().ln2()))
	}
	return r.round(s)
}

// exp returns e^x for |x| ≤ 1e8 (the exponent range of big.Float is ±2^31).
func (r ldRef) exp(x *big.Float) *big.Float {
	if x.IsInf() {
		if x.Sign() > 0 {
			return r.z().SetInf(false)
		}
		return r.z()
	}
	xf, _ := x.Float64()
	if math.Abs(xf) > 1e8 {
		panic(fmt.Sprintf("ldRef.exp(%g): argument out of range", xf))
	}
	if x.Sign() == 0 {
		return r.f(1)
	}
	// |k| < 2^28: 32 more ldGuard bits keep x − k·log 2 exact to the working precision.
	w := ldRef{r.prec + ldGuard + 32}
	k := math.Round(xf / math.Ln2)
	y := w.sub(x, w.mul(w.f(k), w.ln2()))
	const s = 10
	y.SetMantExp(y, -s)
	sum, term := w.f(1), w.f(1)
	for n := 1; ; n++ {
		term = w.quo(w.mul(term, y), w.f(float64(n)))
		sum = w.add(sum, term)
		if w.negligible(term, sum) {
			break
		}
	}
	for i := 0; i < s; i++ { // squaring s times loses at most s bits of the ldGuard
		sum = w.mul(sum, sum)
	}
	sum.SetMantExp(sum, int(k))
	return r.round(sum)
}

// ldAbsCmp compares |x| with c.
func ldAbsCmp(x *big.Float, c float64) int { return new(big.Float).Abs(x).Cmp(big.NewFloat(c)) }

// expm1 returns e^x − 1 with full relative precision near 0.
func (r ldRef) expm1(x *big.Float) *big.Float {
	w := r.w()
	if x.IsInf() || x.Sign() == 0 || ldAbsCmp(x, 0.5) >= 0 {
		return r.round(w.addf(w.exp(x), -1))
	}
	sum := w.round(x)
	term := w.round(x)
	for n := 2; ; n++ {
		term = w.quo(w.mul(term, x), w.f(float64(n)))
		sum = w.add(sum, term)
		if w.negligible(term, sum) {
			break
		}
	}
	return r.round(sum)
}

// log1p returns log(1 + x) with full relative precision near 0, x > −1.
func (r ldRef) log1p(x *big.Float) *big.Float {
	w := r.w()
	if x.IsInf() || ldAbsCmp(x, 0.5) > 0 {
		// For x ∈ (−1, −1/2) the sum 1 + x is exact when the working precision
		// covers x's bits; ldRefValue raises the precision otherwise.
		return r.round(w.log(w.addf(x, 1)))
	}
	t := w.quo(x, w.addf(x, 2))
	return r.round(w.mul(w.f(2), w.atanh(t)))
}

// softplus returns log(1 + e^x). For x > 1e5 it returns x: the difference
// log1p(e^{−x}) < e^{−1e5} is below 2^{−140000} relative.
func (r ldRef) softplus(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.round(x)
	}
	return r.log1p(r.w().exp(x))
}

// onePlusExp returns 1 + e^x. For x < −1e5 it returns 1: the difference
// e^x < e^{−1e5} is below 2^{−140000}.
func (r ldRef) onePlusExp(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(-1e5)) < 0 {
		return r.f(1)
	}
	return r.addf(r.w().exp(x), 1)
}

// logExpm1 returns log(e^x − 1) for x > 0. For x > 1e5 it returns x: the
// difference |log1p(−e^{−x})| < 2e^{−1e5} is below 2^{−140000} relative.
func (r ldRef) logExpm1(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.round(x)
	}
	return r.log(r.w().expm1(x))
}

// ldRefAgree is the relative agreement of two successive precisions that
// ldRefValue accepts: 2^{−100}, 47 bits beyond float64's 53.
const ldRefAgree = -100

// ldRefValue evaluates eval at increasing precision until two successive
// results agree to 2^{−100} relative and returns the last one rounded to
// float64 (correctly rounded, including to subnormals, 0 and ±Inf).
//
// A result of exactly 0 is accepted only once it has stayed 0 up to 4096
// bits: a cancellation that the working precision cannot resolve (two equal
// roundings of log 2 + 5e-301 and log 2) gives 0 at every low precision.
func ldRefValue(eval func(r ldRef) *big.Float) float64 {
	prev := eval(ldRef{256})
	for p := uint(512); p <= 1<<14; p *= 2 {
		cur := eval(ldRef{p})
		if ldBigAgree(prev, cur) && (cur.Sign() != 0 || p >= 4096) {
			v, _ := cur.Float64()
			return v
		}
		prev = cur
	}
	panic("reference did not converge at 16384 bits")
}

func ldBigAgree(a, b *big.Float) bool {
	if a.IsInf() || b.IsInf() {
		return a.IsInf() && b.IsInf() && a.Sign() == b.Sign()
	}
	if b.Sign() == 0 {
		return a.Sign() == 0
	}
	d := new(big.Float).SetPrec(b.Prec()).Sub(a, b)
	return d.Sign() == 0 || d.MantExp(nil) < b.MantExp(nil)+ldRefAgree
}

// ldRefFunc is a function of one real evaluated at r's precision.
type ldRefFunc func(r ldRef, x *big.Float) *big.Float

// ldRefFuncN is a function of several reals evaluated at r's precision.
type ldRefFuncN func(r ldRef, x []*big.Float) *big.Float

func (F ldRefFunc) n() ldRefFuncN {
	return func(r ldRef, x []*big.Float) *big.Float { return F(r, x[0]) }
}

// ref returns F(x) rounded to float64.
func ldRefAt(F ldRefFunc, x float64) float64 { return ldRefN(F.n(), x) }

// ldRefN returns F(x...) rounded to float64.
func ldRefN(F ldRefFuncN, x ...float64) float64 {
	return ldRefValue(func(r ldRef) *big.Float { return F(r, r.fs(x)) })
}

func (r ldRef) fs(x []float64) []*big.Float {
	b := make([]*big.Float, len(x))
	for i, v := range x {
		b[i] = r.f(v)
	}
	return b
}

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
// ε·(|F| + S), counted from the roundings of the formula; bigref.Within applies it.
// A result in the subnormal range carries absolute precision 2⁻¹⁰⁷⁴ only, so
// as many units of 2⁻¹⁰⁷⁴ are allowed on top.

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// ldRefs memoizes the high-precision references (see
// internal/bigref/cache.go: by default every reference is computed and checked
// against the file; IMPLICITBIAS_BIGREF=cache reads it).
var ldRefs = bigref.NewCache("testdata/bigref-cache.txt", false)

var (
	ldInf  = math.Inf(1)
	ldNInf = math.Inf(-1)
	ldNaN  = math.NaN()
)

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
	return ldRefs.Value("LSE", func(r bigref.Ref) *big.Float {
		mb := r.F(m)
		s := r.Z()
		for _, v := range x {
			if math.IsInf(v, -1) {
				continue
			}
			d := r.Sub(r.F(v), mb)
			if d.Cmp(big.NewFloat(-1e5)) < 0 {
				continue
			}
			s = r.Add(s, r.Exp(d))
		}
		return r.Add(mb, r.Log(s))
	}, x...)
}

// ldScaleLSE returns the error scale of LogSumExp's formula m + log1p(s),
// s = Σ_{i≠k} e^{x_i − m}, beyond |F| (in units of which bigref.Within measures):
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
	return ldRefs.At("Log1pExp", func(r bigref.Ref, x *big.Float) *big.Float { return r.Softplus(x) }, x)
}

func ldRefLogExpm1(x float64) float64 {
	return ldRefs.At("LogExpm1", func(r bigref.Ref, x *big.Float) *big.Float { return r.LogExpm1(x) }, x)
}

func ldRefLogLog1pExp(x float64) float64 {
	return ldRefs.At("LogLog1pExp", func(r bigref.Ref, x *big.Float) *big.Float { return r.Log(r.W().Softplus(x)) }, x)
}

func ldRefExp(x float64) float64 {
	return ldRefs.At("Exp", func(r bigref.Ref, x *big.Float) *big.Float { return r.Exp(x) }, x)
}

// ldSigmoid is σ(x) = 1/(1 + e^{−x}), for condition scales only.
func ldSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

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
		if got := LogSumExp(test.x); !bigref.Same(got, test.want) {
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
	var worst bigref.Worst
	for i, c := range cases {
		want := ldRefLSE(c.x...)
		got := LogSumExp(c.x)
		sc := ldScaleLSE(want, c.x...)
		if !bigref.Within(got, want, sc, budget) {
			t.Errorf("%s: LogSumExp(%v) = %v, want %v (%.3g units)", c.name, c.x, got, want, bigref.Units(got, want, sc))
		}
		worst.Add(bigref.Units(got, want, sc), float64(i))
	}
	t.Logf("LogSumExp: worst error %.3g units (budget %d), %s", worst.Units, budget, cases[int(worst.At)].name)
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
		if got := LogAddExp(test.a, test.b); !bigref.Same(got, test.want) {
			t.Errorf("LogAddExp(%v, %v) = %v, want %v", test.a, test.b, got, test.want)
		}
	}
	// Accuracy: LogSumExp's formula for n = 2, with its scale and budget.
	const budget = 2
	var worst bigref.Worst
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
		if !bigref.Within(got, want, sc, budget) {
			t.Errorf("LogAddExp(%v, %v) = %v, want %v (%.3g units)", a, b, got, want, bigref.Units(got, want, sc))
		}
		worst.Add(bigref.Units(got, want, sc), a)
		// The formula is symmetric by construction and is LogSumExp's for n = 2.
		if got2 := LogAddExp(b, a); got2 != got {
			t.Errorf("LogAddExp(%v, %v) = %v ≠ LogAddExp(%v, %v) = %v", a, b, got, b, a, got2)
		}
		if lse := LogSumExp([]float64{a, b}); lse != got {
			t.Errorf("LogAddExp(%v, %v) = %v ≠ LogSumExp = %v", a, b, got, lse)
		}
	}
	t.Logf("LogAddExp: worst error %.3g units (budget %d)", worst.Units, budget)
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
		if got := Log1pExp(test.x); !bigref.Same(got, test.want) {
			t.Errorf("Log1pExp(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [−800, 800] and at the branch points −37, 18, 37. Budget 3:
	// exp (1 ulp) and log1p (1 ulp, condition ≤ 1) then ½ ulp; the S term
	// |x|σ(x) covers the rounding of x itself.
	const budget = 3
	xs := bigref.Grid(-800, 800, 801, bigref.Around(-745, -709, -37, 0, 18, 37)...)
	xs = append(xs, bigref.LogGrid(-300, 1, 0.25, true, true)...)
	var worst bigref.Worst
	for _, x := range xs {
		want := ldRefLog1pExp(x)
		got := Log1pExp(x)
		sens := math.Abs(x) * ldSigmoid(x)
		if !bigref.Within(got, want, sens, budget) {
			t.Errorf("Log1pExp(%v) = %v, want %v (%.3g units)", x, got, want, bigref.Units(got, want, sens))
		}
		worst.Add(bigref.Units(got, want, sens), x)
	}
	t.Logf("Log1pExp: worst error %.3g units at x = %v (budget %d)", worst.Units, worst.At, budget)
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
		if got := LogExpm1(test.x); !bigref.Same(got, test.want) {
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
	xs := bigref.LogGrid(-300, -10, 1, true, false)
	xs = append(xs, bigref.LogGrid(-10, math.Log10(800), 0.02, true, false)...)
	xs = append(xs, bigref.Around(5e-324, 0x1p-1022, 0.5, math.Ln2, 37, 709.78)...)
	var worst bigref.Worst
	for _, x := range xs {
		want := ldRefLogExpm1(x)
		got := LogExpm1(x)
		sens := x / -math.Expm1(-x)
		if !bigref.Within(got, want, sens, budget) {
			t.Errorf("LogExpm1(%v) = %v, want %v (%.3g units)", x, got, want, bigref.Units(got, want, sens))
		}
		worst.Add(bigref.Units(got, want, sens), x)
	}
	t.Logf("LogExpm1: worst error %.3g units at x = %v (budget %d)", worst.Units, worst.At, budget)
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
		if got := LogLog1pExp(test.x); !bigref.Same(got, test.want) {
			t.Errorf("LogLog1pExp(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [−1e6, 1e6] (log grid, both signs) and at the branch
	// points ±37 and the zero log(e − 1) ≈ 0.5413. Budget 3: log of the
	// softplus (3 units, condition of log ≤ 1/|F| folded into the scale) or
	// the tail formulas (log, log1p, one addition).
	const budget = 3
	xs := bigref.LogGrid(-12, 6, 0.05, true, true)
	xs = append(xs, bigref.Around(-37, 37, 18, 0, 0.5413248546129181, 1e-300, -1e-300)...)
	var worst bigref.Worst
	for _, x := range xs {
		want := ldRefLogLog1pExp(x)
		got := LogLog1pExp(x)
		// S = |x|·σ(x)/softplus(x).
		sens := math.Abs(x) * ldSigmoid(x) / Log1pExp(x)
		if !bigref.Within(got, want, sens, budget) {
			t.Errorf("LogLog1pExp(%v) = %v, want %v (%.3g units)", x, got, want, bigref.Units(got, want, sens))
		}
		worst.Add(bigref.Units(got, want, sens), x)
	}
	t.Logf("LogLog1pExp: worst error %.3g units at x = %v (budget %d)", worst.Units, worst.At, budget)
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
		if got := Exp(test.x); !bigref.Same(got, test.want) {
			t.Errorf("Exp(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy on [−708, thr] (normal results), finite up to the threshold,
	// relative to the result (S = 0: the inputs are exact floats and exp is
	// evaluated to about 1 ulp by math.Exp). Budget 2: math.Exp below 709;
	// above, exp(x/2)² with x/2 exact, i.e. twice the error of exp(x/2) and
	// ½ ulp for the product.
	const budget = 2
	xs := bigref.Grid(-708, 709, 1418, bigref.Around(709, 709.43, 709.44, 709.6, 709.78, thr)...)
	var worst bigref.Worst
	for _, x := range xs {
		want := ldRefExp(x)
		got := Exp(x)
		if !bigref.Within(got, want, 0, budget) {
			t.Errorf("Exp(%v) = %v, want %v (%.3g units)", x, got, want, bigref.Units(got, want, 0))
		}
		worst.Add(bigref.Units(got, want, 0), x)
	}
	t.Logf("Exp: worst error %.3g units at x = %v (budget %d)", worst.Units, worst.At, budget)
	// Up to 709 inclusive Exp is math.Exp (at 709, 8.218407461554972e307;
	// exp(354.5)² is the next float up).
	for _, x := range []float64{-745, -708, 0, 1, 700, math.Nextafter(709, 0), 709} {
		if got := Exp(x); got != math.Exp(x) {
			t.Errorf("Exp(%v) = %v, want math.Exp's %v", x, got, math.Exp(x))
		}
	}
	// Subnormal results, [−745, −708]: absolute precision 2⁻¹⁰⁷⁴, of which
	// bigref.Within allows budget units.
	for _, x := range bigref.Grid(-745, -708, 75, -745.1332191019412, -744.44) {
		if want, got := ldRefExp(x), Exp(x); !bigref.Within(got, want, 0, budget) {
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
		if got := Log(test.x); !bigref.Same(got, test.want) {
			t.Errorf("Log(%v) = %v, want %v", test.x, got, test.want)
		}
	}
	// Accuracy, subnormal and normal x. Budget 2 on the scale |log x| + 1
	// (S = |x·(1/x)| = 1): math.Log's ulp, then for subnormals the rounded
	// subtraction of the rounded 52·log 2 (½ ulp each of numbers ≤ 745).
	const budget = 2
	xs := bigref.Around(5e-324, 1e-323, 0x1p-1022, 1e-310, 1e-300, 0.5, 1, 2, 1e300, math.MaxFloat64)
	for k := 0; k <= 52; k++ {
		xs = append(xs, math.Ldexp(1, -1074+k), math.Ldexp(1.7, -1074+k))
	}
	var worst bigref.Worst
	for _, x := range xs {
		want := ldRefs.At("Log", func(r bigref.Ref, x *big.Float) *big.Float { return r.Log(x) }, x)
		got := Log(x)
		if !bigref.Within(got, want, 1, budget) {
			t.Errorf("Log(%v) = %v, want %v (%.3g units)", x, got, want, bigref.Units(got, want, 1))
		}
		worst.Add(bigref.Units(got, want, 1), x)
	}
	t.Logf("Log: worst error %.3g units at x = %v (budget %d)", worst.Units, worst.At, budget)
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
			return math.Abs(d-x) <= 16*bigref.Eps*(math.Abs(x)+1)
		},
		gen.Float64Range(-800, 800),
	))
	// LogExpm1 inverts Log1pExp: log(e^{softplus(x)} − 1) = x. The inner
	// relative error δ ≤ 3ε(1 + |x|σ(x)/softplus) of softplus(x) becomes an
	// absolute error ≤ δ·softplus/(1 − e^{−softplus}) ≤ 3ε(1 + |x|)·(1 +
	// log 2) in the outer function, plus its own 3ε(|x| + 1).
	props.Property("LogExpm1(Log1pExp(x)) = x", prop.ForAll(
		func(x float64) bool {
			return math.Abs(LogExpm1(Log1pExp(x))-x) <= 12*bigref.Eps*(math.Abs(x)+1)
		},
		gen.Float64Range(-700, 700),
	))
	// LogLog1pExp is log of the softplus: 3 units each, and log turns the
	// softplus's relative error into an absolute one.
	props.Property("LogLog1pExp(x) = log(Log1pExp(x))", prop.ForAll(
		func(x float64) bool {
			return math.Abs(LogLog1pExp(x)-math.Log(Log1pExp(x))) <= 8*bigref.Eps*(math.Abs(LogLog1pExp(x))+1)
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
			return m <= l && l <= up+4*bigref.Eps*(math.Abs(up)+float64(len(x)))
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
			return math.Abs(LogSumExp(y)-(LogSumExp(x)+c)) <= 10*bigref.Eps*(s+float64(len(x)))
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

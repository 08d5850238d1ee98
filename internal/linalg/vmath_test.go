package linalg

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// refPrec is the precision of the references: bigref's series carry 64 guard
// bits on top, so a 128-bit result is exact far beyond float64's 53 bits.
var refPrec = bigref.Ref{Prec: 128}

// ulpErr returns |got − want| in ulps of want: units of 2^{E−52} for
// 2^E ≤ |want| < 2^{E+1}, 2⁻¹⁰⁷⁴ below the normal range. Equal infinities
// and zeros are 0; a wrong infinity or NaN is +Inf.
func ulpErr(got float64, want *big.Float) float64 {
	if wf, _ := want.Float64(); math.IsInf(wf, 0) {
		// Beyond MaxFloat64 + ½ ulp: the correctly rounded result is ±Inf.
		if got == wf {
			return 0
		}
		return math.Inf(1)
	}
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return math.Inf(1)
	}
	e := -1074
	if want.Sign() != 0 {
		e = max(want.MantExp(nil)-1-52, -1074)
	}
	d := new(big.Float).SetPrec(256).Sub(big.NewFloat(got), want)
	d.SetMantExp(d, -e)
	u, _ := d.Float64()
	return math.Abs(u)
}

// vmathPoints returns the test points of each function: the whole range the
// engine feeds it, on grids, as random bit patterns, around every branch
// point, and the special values.
func vmathPoints(fn string) []float64 {
	r := rand.New(rand.NewPCG(7, 28))
	var xs []float64
	// randBits returns a float64 with a uniform exponent in [lo, hi] and
	// random mantissa: all binades equally often.
	randBits := func(lo, hi int) float64 {
		e := lo + r.IntN(hi-lo+1)
		return math.Ldexp(1+r.Float64(), e)
	}
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, math.MaxFloat64, -math.MaxFloat64}
	xs = append(xs, specials...)
	switch fn {
	case "exp":
		xs = append(xs, bigref.Grid(-746, 710, 4001)...)
		for range 4000 {
			xs = append(xs, -746+r.Float64()*1456, (r.Float64()-0.5)*2)
		}
		for range 1000 {
			v := randBits(-1074, 9)
			xs = append(xs, v, -v)
		}
		xs = append(xs, bigref.Around(709.782712893384, 709.4361393, -745.1332191019412,
			-708.3964185322641, -745.1332191019411, 0.34657359027997264, -0.34657359027997264, 1e6, -1e6)...)
	case "log":
		for range 6000 {
			xs = append(xs, randBits(-1074, 1023))
		}
		for range 1000 {
			xs = append(xs, 1+(r.Float64()-0.5)*0x1p-20, 1+(r.Float64()-0.5)*0.6, math.Float64frombits(r.Uint64()>>12|1))
		}
		xs = append(xs, bigref.Around(1, math.Sqrt2, math.Sqrt2/2, 2, 0.5, 0x1p-1022)...)
		xs = append(xs, -1e-300, -5)
	case "log1p":
		for range 3000 {
			v := randBits(-1074, 1023)
			xs = append(xs, v, -math.Ldexp(1+r.Float64(), -1-r.IntN(1074)))
		}
		for range 2000 {
			xs = append(xs, -1+r.Float64()*3, (r.Float64()-0.5)*0x1p-30)
		}
		xs = append(xs, bigref.Around(-1, -0.5, 0x1p-53, -0x1p-53, 0x1p-54, 1e-300, 0x1p53)...)
		xs = append(xs, -2, -1-0x1p-52)
	case "tanh":
		// The engine's pre-activations (|h| of order 1 to 10, at the
		// NTK's widths), every binade, and the branch at 0.625, where
		// tanh rounds to ±1 (|x| ≈ 19.06) and where e^{2|x|} overflows.
		for range 3000 {
			v := randBits(-1074, 1023)
			xs = append(xs, v, -v)
		}
		for range 3000 {
			xs = append(xs, (r.Float64()-0.5)*20, (r.Float64()-0.5)*1.25)
		}
		xs = append(xs, bigref.Grid(-25, 25, 2001)...)
		xs = append(xs, bigref.Around(0.625, -0.625, 19.061547465398498, 44.01484596555653, 354.891356446692, 0x1p-26, -0x1p-26)...)
	}
	return xs
}

// vmathFuncs are the functions under test with their references and the
// error bounds their doc comments state (in ulps).
var vmathFuncs = []struct {
	name  string
	f     func(dst, x []float64)
	ref   func(x float64) *big.Float // nil result: NaN expected
	bound float64
}{
	{"exp", Exp, func(x float64) *big.Float {
		if x != x {
			return nil
		}
		return refPrec.Exp(refPrec.F(x))
	}, 1},
	{"log", Log, func(x float64) *big.Float {
		if x < 0 || x != x {
			return nil
		}
		return refPrec.Log(refPrec.F(x))
	}, 1},
	{"log1p", Log1p, func(x float64) *big.Float {
		if x < -1 || x != x {
			return nil
		}
		if x == -1 {
			return refPrec.Z().SetInf(true)
		}
		return refPrec.Log1p(refPrec.F(x))
	}, 2},
	{"tanh", Tanh, tanhRef, 2},
}

// tanhRef is tanh x = −expm1(−2|x|)/(2 + expm1(−2|x|)) with x's sign (full
// relative precision near 0); beyond |x| = 400 it is ±(1 − 2⁻¹⁰⁰⁰), which
// rounds as tanh x does.
func tanhRef(x float64) *big.Float {
	if x != x {
		return nil
	}
	a := math.Abs(x)
	var t *big.Float
	if a > 400 {
		t = refPrec.Sub(refPrec.F(1), refPrec.F(0x1p-1000))
	} else {
		w := refPrec.W()
		e := w.Expm1(w.F(-2 * a))
		t = refPrec.Round(w.Neg(w.Quo(e, w.AddF(e, 2))))
	}
	if x < 0 || x == 0 && math.Signbit(x) {
		t = refPrec.Neg(t)
	}
	return t
}

// TestVMathAccuracy checks Exp, Log, Log1p and Tanh against 256-bit references
// over their whole range, on every kernel set (whose bits must agree anyway:
// TestVMathSets), within the bounds their doc comments state.
func TestVMathAccuracy(t *testing.T) {
	for _, fn := range vmathFuncs {
		t.Run(fn.name, func(t *testing.T) {
			xs := vmathPoints(fn.name)
			got := make([]float64, len(xs))
			fn.f(got, xs)
			var worst bigref.Worst
			for i, x := range xs {
				if math.Abs(x) > 1e8 && fn.name == "exp" {
					want := 0.0
					if x > 0 {
						want = math.Inf(1)
					}
					if got[i] != want {
						t.Errorf("%s(%g) = %g, want %g", fn.name, x, got[i], want)
					}
					continue
				}
				want := fn.ref(x)
				if want == nil {
					if !math.IsNaN(got[i]) {
						t.Errorf("%s(%g) = %g, want NaN", fn.name, x, got[i])
					}
					continue
				}
				u := ulpErr(got[i], want)
				worst.Add(u, x)
				if !(u < fn.bound) {
					t.Errorf("%s(%v) = %v, reference %v: %.3g ulp (bound %g)", fn.name, x, got[i], want.Text('g', 20), u, fn.bound)
				}
			}
			t.Logf("%s on %d points (kernels %s): worst %.3f ulp at %v", fn.name, len(xs), Kernels(), worst.Units, worst.At)
		})
	}
}

// TestVMathSpecial checks the special cases against math, where both are
// exact, and the sign of zero.
func TestVMathSpecial(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	negZero := math.Copysign(0, -1)
	cases := []struct {
		fn   string
		f    func(dst, x []float64)
		x    float64
		want float64
	}{
		{"exp", Exp, 0, 1}, {"exp", Exp, negZero, 1}, {"exp", Exp, inf, inf}, {"exp", Exp, -inf, 0},
		{"exp", Exp, nan, nan},
		{"exp", Exp, 709.7827128933841, inf}, {"exp", Exp, -745.1332191019412, 0},
		{"exp", Exp, -745.1332191019411, math.SmallestNonzeroFloat64}, {"exp", Exp, 1, math.E},
		{"exp", Exp, 1e6, inf}, {"exp", Exp, -1e6, 0},
		{"log", Log, 1, 0}, {"log", Log, 0, -inf}, {"log", Log, negZero, -inf}, {"log", Log, inf, inf},
		{"log", Log, -inf, nan}, {"log", Log, -1, nan}, {"log", Log, nan, nan}, {"log", Log, 2, math.Ln2},
		{"log", Log, math.E, 1}, {"log", Log, math.SmallestNonzeroFloat64, -1074 * math.Ln2},
		{"log1p", Log1p, 0, 0}, {"log1p", Log1p, negZero, negZero}, {"log1p", Log1p, -1, -inf},
		{"log1p", Log1p, inf, inf}, {"log1p", Log1p, -inf, nan}, {"log1p", Log1p, -2, nan}, {"log1p", Log1p, nan, nan},
		{"log1p", Log1p, 1e-300, 1e-300}, {"log1p", Log1p, math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64},
		{"log1p", Log1p, 1, math.Ln2},
		{"tanh", Tanh, 0, 0}, {"tanh", Tanh, negZero, negZero}, {"tanh", Tanh, inf, 1}, {"tanh", Tanh, -inf, -1},
		{"tanh", Tanh, nan, nan}, {"tanh", Tanh, 20, 1}, {"tanh", Tanh, -1e300, -1},
		{"tanh", Tanh, math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64},
	}
	for _, ks := range available {
		withSet(ks, func() {
			for _, c := range cases {
				// 8 copies: the assembly kernels see it, not only the tail.
				x := make([]float64, 9)
				for i := range x {
					x[i] = c.x
				}
				got := make([]float64, len(x))
				c.f(got, x)
				for _, g := range got {
					if !bigref.Same(g, c.want) || math.Signbit(g) != math.Signbit(c.want) && !math.IsNaN(g) {
						t.Errorf("%s: %s(%v) = %v, want %v", ks.name, c.fn, c.x, g, c.want)
						break
					}
				}
			}
		})
	}
}

// TestVMathSets checks that every kernel set gives the generic bits, for
// every length (so the tails are covered) and on the test points.
func TestVMathSets(t *testing.T) {
	for _, fn := range vmathFuncs {
		xs := vmathPoints(fn.name)
		// and random bit patterns: every sign, exponent and NaN payload.
		r := rand.New(rand.NewPCG(11, 13))
		for range 100000 {
			xs = append(xs, math.Float64frombits(r.Uint64()))
		}
		want := make([]float64, len(xs))
		withSet(genericSet, func() { fn.f(want, xs) })
		for _, ks := range available {
			withSet(ks, func() {
				for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, len(xs)} {
					off := n % 5
					if off+n > len(xs) {
						off = 0
					}
					got := make([]float64, n)
					fn.f(got, xs[off:off+n])
					// In place: the tail goes another way (vmRun).
					in := append([]float64(nil), xs[off:off+n]...)
					fn.f(in, in)
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(want[off+i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[off+i])) {
							t.Fatalf("%s %s(%v) = %v (%#x), generic %v (%#x)", ks.name, fn.name, xs[off+i], got[i], math.Float64bits(got[i]), want[off+i], math.Float64bits(want[off+i]))
						}
						if !bigref.Same(in[i], want[off+i]) {
							t.Fatalf("%s %s in place, n = %d (%v) = %v, want %v", ks.name, fn.name, n, xs[off+i], in[i], want[off+i])
						}
					}
				}
				// In place.
				got := append([]float64(nil), xs...)
				fn.f(got, got)
				for i := range got {
					if !bigref.Same(got[i], want[i]) {
						t.Fatalf("%s %s in place (%v) = %v, want %v", ks.name, fn.name, xs[i], got[i], want[i])
					}
				}
			})
		}
	}
}

// TestLogSumExp checks LogSumExp against 256-bit references on random
// vectors spanning the log-domain range of LL App. K (entries down to
// −1e6, spreads from 0 to 1e3), within its stated bound: 2 ulp of the result
// plus 2 ulp of the maximum.
func TestLogSumExp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var worst bigref.Worst
	for c := range 600 {
		n := 1 + r.IntN(40)
		if c%50 == 0 {
			n = 300 + r.IntN(300) // across chunks
		}
		x := make([]float64, n)
		base := []float64{0, -1e6, 1e6, -700, 40, -1e-3}[c%6]
		spread := math.Pow(10, -3+6*r.Float64())
		for i := range x {
			x[i] = base + spread*(r.Float64()-0.5)
		}
		got := LogSumExp(x)
		// reference: log Σ e^{x_i − m} + m in big arithmetic.
		m := x[0]
		for _, v := range x {
			m = max(m, v)
		}
		w := bigref.Ref{Prec: 256}
		s := w.Z()
		for _, v := range x {
			s = w.Add(s, w.Exp(w.Sub(w.F(v), w.F(m))))
		}
		want := w.Add(w.Log(s), w.F(m))
		u := ulpErr(got, want)
		wf, _ := want.Float64()
		budget := 2 + 2*ulpOf(m)/ulpOf(wf) // 2 ulp of the result plus 2 of m
		worst.Add(u/budget, float64(c))
		if !(u <= budget) {
			t.Errorf("case %d: LogSumExp = %v, reference %v: %.3g ulp (budget %.3g)", c, got, want.Text('g', 20), u, budget)
		}
	}
	specials := []struct {
		x    []float64
		want float64
	}{
		{nil, math.Inf(-1)}, {[]float64{math.Inf(-1), math.Inf(-1)}, math.Inf(-1)},
		{[]float64{1, math.Inf(1)}, math.Inf(1)}, {[]float64{math.Inf(1), math.NaN()}, math.NaN()},
		{[]float64{0, -40}, 4.248354255291589e-18}, {[]float64{0, 0}, math.Ln2}, {[]float64{5}, 5},
		{[]float64{-1e6, -1e6}, -1e6 + math.Ln2},
	}
	for _, c := range specials {
		if got := LogSumExp(c.x); !bigref.Same(got, c.want) {
			t.Errorf("LogSumExp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	t.Logf("LogSumExp: worst %.3f of the budget", worst.Units)
}

// ulpOf returns the spacing of float64 at |v|.
func ulpOf(v float64) float64 {
	v = math.Abs(v)
	if v < 0x1p-1022 {
		return 0x1p-1074
	}
	return math.Nextafter(v, math.Inf(1)) - v
}

// BenchmarkVMath times each batched function against the scalar math loop
// on a batch of 30 (a tiny property case) and 1000 (W2's batch); Tanh on
// N(0, 4) pre-activations (both of its branches, mixed).
func BenchmarkVMath(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{30, 1000} {
		x := make([]float64, n)
		pos := make([]float64, n)
		pre := make([]float64, n) // pre-activations of a tanh layer
		for i := range x {
			pre[i] = 2 * r.NormFloat64()
			x[i] = -20 * r.Float64()
			pos[i] = math.Exp(x[i]) * 3
		}
		dst := make([]float64, n)
		kernels := []struct {
			name string
			f    func()
		}{
			{"Exp", func() { Exp(dst, x) }},
			{"math.Exp", func() {
				for i, v := range x {
					dst[i] = math.Exp(v)
				}
			}},
			{"Log", func() { Log(dst, pos) }},
			{"math.Log", func() {
				for i, v := range pos {
					dst[i] = math.Log(v)
				}
			}},
			{"Log1p", func() { Log1p(dst, pos) }},
			{"math.Log1p", func() {
				for i, v := range pos {
					dst[i] = math.Log1p(v)
				}
			}},
			{"LogSumExp", func() { dst[0] = LogSumExp(x) }},
			{"Tanh", func() { Tanh(dst, pre) }},
			{"math.Tanh", func() {
				for i, v := range pre {
					dst[i] = math.Tanh(v)
				}
			}},
		}
		for _, ks := range available {
			for _, k := range kernels {
				if ks != available[0] && len(k.name) > 5 && k.name[:5] == "math." {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/n=%d", k.name, ks.name, n), func(b *testing.B) {
					withSet(ks, func() {
						b.ReportAllocs()
						cpu0 := cpuSeconds()
						for range b.N {
							k.f()
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
						// CPU time, which a busy machine distorts less.
						b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N*n), "cpu-ns/value")
					})
				})
			}
		}
	}
}

package losses

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// exponentialRef: LL Remark A.1, ℓ(q) = e^{−q}.
var exponentialRef = marginRef{
	logLoss: func(r bigref.Ref, q *big.Float) *big.Float { return r.Neg(q) },
	f:       func(r bigref.Ref, q *big.Float) *big.Float { return r.Round(q) },
	fPrime:  func(r bigref.Ref, q *big.Float) *big.Float { return r.F(1) },
	g:       func(r bigref.Ref, u *big.Float) *big.Float { return r.Round(u) },
	gPrime:  func(r bigref.Ref, u *big.Float) *big.Float { return r.F(1) },
}

// binaryRefGrad is e^{−shift}·∂ℓ(y·s)/∂s = −y f′(q) e^{log ℓ(q) − shift},
// q = y·s, of x = (s, shift).
func binaryRefGrad(m marginRef, y float64) bigref.FuncN {
	return func(r bigref.Ref, x []*big.Float) *big.Float {
		w := r.W()
		q := w.Mul(w.F(y), x[0])
		e := w.Exp(w.Sub(m.logLoss(w, q), x[1]))
		return r.Mul(w.F(-y), w.Mul(m.fPrime(w, q), e))
	}
}

// budgetBinaryGrad, in units of ε·(|F| + S): log ℓ (3 units of |log ℓ| + its
// S) and the subtraction of shift (½ ulp of the exponent) become a relative
// error of exp(·) (1 ulp more), f′ (4 units) and two products (½ each): 9.
// Where ℓ > 1 (negative margins) the rounding of log ℓ costs ½ε·|log ℓ|
// more, which S does not cover (σ(−q) = f′ℓ is insensitive to q there): at
// most ½·log(1e6) ≈ 7 units for margins down to −1e6; 4 units measured at
// q = −1e4 with shift 0.
const budgetBinaryGrad = 9

// TestBinaryScaledGrad compares BinaryLoss.ScaledGrad with the analytic
// derivative times e^{−shift}, for labels ±1 and shifts 0, log ℓ (the
// engine's), ±1e4 and log ℓ ∓ 709.6 / + 720, where e^{log ℓ − shift} alone
// would overflow or be subnormal.
func TestBinaryScaledGrad(t *testing.T) {
	t.Parallel()
	scores := []float64{-50, -1, 0, 1e-8, 1, 20, 38, 745, 1e4, 1e6}
	var w bigref.Worst
	for _, c := range []struct {
		name string // of the reference, its label in refs
		m    Margin
		ref  marginRef
	}{
		{"exponential", Exponential{}, exponentialRef},
		{"logistic", Logistic{}, logisticRef},
		{"poly", ZDPolyTail(), polyTailRef(1, 0)},
		{"poly(2,0.5)", PolyTail{Alpha: 2, Beta: 0.5}, polyTailRef(2, 0.5)},
	} {
		b := NewBinary(c.m)
		dst := make([]float64, 1)
		for _, s := range scores {
			for _, y := range []float64{1, -1} {
				logL := c.m.LogLoss(y * s)
				for _, shift := range []float64{0, logL, -1e4, 1e4, logL - 709.6, logL + 720} {
					b.ScaledGrad(dst, []float64{s}, y, shift)
					what := fmt.Sprintf("%s.ScaledGrad(%v, y=%v, shift=%v)", c.m.Name(), s, y, shift)
					check(t, &w, what, fmt.Sprintf("binary.Grad/%s/%v", c.name, y), dst[0], binaryRefGrad(c.ref, y), budgetBinaryGrad, s, shift)
				}
				// log ℓ through the Loss interface.
				if got := b.LogLoss([]float64{s}, y); got != logL {
					t.Errorf("%s.LogLoss(%v, %v) = %v, want %v", c.m.Name(), s, y, got, logL)
				}
			}
		}
	}
	t.Logf("worst error ≤ %.3g units (budget %d)", w.Units, budgetBinaryGrad)
}

// TestBinaryScaledGradNoUnderflow: the example. For the exponential
// loss at q = 1e4, ℓ = e^{−1e4} underflows and e^{1e4} overflows, but with
// shift = −1e4 the scaled gradient is −y·e^0: exactly −y, since log ℓ − shift
// = −1e4 + 1e4 = 0 exactly.
func TestBinaryScaledGradNoUnderflow(t *testing.T) {
	t.Parallel()
	b := NewBinary(Exponential{})
	dst := make([]float64, 1)
	for _, test := range []struct {
		s, y, shift, want float64
	}{
		{1e4, 1, -1e4, -1},
		{-1e4, -1, -1e4, 1},
		{1e6, 1, -1e6, -1},
		// e^{−1e4 + 1e4 − 1} = e^{−1}, to the ulp of math.Exp.
		{1e4, 1, 1 - 1e4, -math.Exp(-1)},
	} {
		b.ScaledGrad(dst, []float64{test.s}, test.y, test.shift)
		if dst[0] != test.want {
			t.Errorf("exp.ScaledGrad(%v, y=%v, shift=%v) = %v, want %v", test.s, test.y, test.shift, dst[0], test.want)
		}
	}
	// Logistic at margin 1e4: f′ = 1 and log ℓ = −1e4 − e^{−1e4}/2 = −1e4 in
	// float64, so again exactly −1.
	NewBinary(Logistic{}).ScaledGrad(dst, []float64{1e4}, 1, -1e4)
	if dst[0] != -1 {
		t.Errorf("logistic.ScaledGrad(1e4, y=1, shift=-1e4) = %v, want -1", dst[0])
	}
	if b.Kind() != Binary || b.Name() != "exp" {
		t.Errorf("Kind, Name = %v, %q", b.Kind(), b.Name())
	}
}

func BenchmarkBinaryLogisticScaledGrad(b *testing.B) {
	l := NewBinary(Logistic{})
	dst := make([]float64, 1)
	s := []float64{0}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s[0] = benchMargins[i&7]
		l.ScaledGrad(dst, s, 1, -s[0])
		i++
	}
	sink = dst[0]
}

func BenchmarkBinaryLogisticLogLoss(b *testing.B) {
	l := NewBinary(Logistic{})
	s := []float64{0}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s[0] = benchMargins[i&7]
		sink = l.LogLoss(s, 1)
		i++
	}
}

// TestBinaryScaledGradRanges checks the two formulas of ScaledGrad where they
// differ by more than rounding. Where e^e (e = log ℓ − shift) is a normal
// float, the result is the product f′·e^e; at e = 0 that is −y·f′ exactly,
// for any f′, however small or large (the fallback exp(log|f′|) would carry
// the rounding of log|f′|, up to |log f′|·ε/2 relative). Where e^e overflows
// while f′ is small, or is subnormal while f′ is large, log|f′| goes into the
// exponent: the result is finite, and accurate to the rounding of that
// exponent (|e|·ε/2 relative, below 1e-13 here), where the product would be
// +Inf or carry e^e's subnormal rounding (≥ 1e-3 relative at e = −740).
func TestBinaryScaledGradRanges(t *testing.T) {
	t.Parallel()
	dst := make([]float64, 1)
	// PolyTail at its kink q = β = 0: f = 0, f′ = α exactly.
	for _, alpha := range []float64{1e-300, 3e-200, 7e-5, 0.3, 1e250} {
		b := NewBinary(PolyTail{Alpha: alpha, Beta: 0})
		for _, y := range []float64{1, -1} {
			b.ScaledGrad(dst, []float64{0}, y, 0)
			if dst[0] != -y*alpha {
				t.Errorf("poly(%v,0).ScaledGrad(0, y=%v, shift=0) = %v, want %v exactly", alpha, y, dst[0], -y*alpha)
			}
		}
	}
	// The ends of the product's range, e = 709 and e = −708 exactly: the
	// product α·e^e is within 1.5 ulps, the reference (α·e^{e/2})·e^{e/2}
	// within 3; 8 ulps allow both (the fallback's exponent e + log α would
	// carry the rounding of log α and of the sum, up to ~6e-14 relative).
	for _, c := range []struct{ alpha, e float64 }{
		{1e-300, 709}, {3e-200, 709}, {7e-5, 709}, {1e300, -708}, {3e200, -708}, {7e5, -708},
	} {
		b := NewBinary(PolyTail{Alpha: c.alpha, Beta: 0})
		want := -(c.alpha * math.Exp(c.e/2)) * math.Exp(c.e/2)
		b.ScaledGrad(dst, []float64{0}, 1, -c.e)
		if !(math.Abs(dst[0]-want) <= 8*0x1p-52*math.Abs(want)) {
			t.Errorf("poly(%v,0).ScaledGrad(0, y=1, shift=%v) = %v, want %v (e = %v)", c.alpha, -c.e, dst[0], want, c.e)
		}
	}
	for _, c := range []struct {
		name        string
		m           Margin
		s, shift    float64
		want        float64 // for y = 1
		description string
	}{
		// f′ = 1/(1e300 + 1) = 1e-300, log ℓ = −log1p(1e300); e ≈ 710.2:
		// e^e overflows, the result −e^{e − log(1e300)} ≈ −2.8e8 does not.
		{"poly", ZDPolyTail(), 1e300, -1401, -math.Exp(1401 - 2*math.Log1p(1e300)), "e^e overflows"},
		// f′ = 1e15, log ℓ = 0, e = −740: e^e ≈ 4.2e-322 is subnormal, the
		// result −1e15·e^{−740} ≈ −4.2e-307 is normal.
		{"poly(1e15,0)", PolyTail{Alpha: 1e15, Beta: 0}, 0, 740, -(1e15 * math.Exp(-370)) * math.Exp(-370), "e^e is subnormal"},
	} {
		b := NewBinary(c.m)
		for _, y := range []float64{1, -1} {
			b.ScaledGrad(dst, []float64{y * c.s}, y, c.shift)
			want := y * c.want
			if !(math.Abs(dst[0]-want) <= 1e-12*math.Abs(want)) {
				t.Errorf("%s.ScaledGrad(%v, y=%v, shift=%v) = %v, want %v (%s)", c.name, y*c.s, y, c.shift, dst[0], want, c.description)
			}
		}
	}
}

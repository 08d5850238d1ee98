package bigref

import (
	"math"
	"math/big"
	"testing"
)

// TestReference checks the big-float helpers themselves against Go's
// math package, whose Exp, Log, Expm1 and Log1p are accurate to about 1 ulp:
// agreement to 2 ulps at hundreds of points rules out a wrong series or a
// wrong argument reduction in the helpers (which would be off by far more).
func TestReference(t *testing.T) {
	t.Parallel()
	one := func(F Func) func(float64) float64 {
		return func(x float64) float64 { return At(F, x) }
	}
	for _, test := range []struct {
		name   string
		ref    func(float64) float64
		math   func(float64) float64
		points []float64
	}{
		{"exp", one(func(r Ref, x *big.Float) *big.Float { return r.Exp(x) }), math.Exp, Grid(-700, 700, 141, -1e-8, 1e-300, 0.5)},
		{"log", one(func(r Ref, x *big.Float) *big.Float { return r.Log(x) }), math.Log, append(LogGrid(-300, 300, 5, true, false), 0.7, 0.999, 1.001, 1.5)},
		{"expm1", one(func(r Ref, x *big.Float) *big.Float { return r.Expm1(x) }), math.Expm1, append(LogGrid(-20, 2.5, 0.25, true, true), 0.4999, 0.5)},
		{"log1p", one(func(r Ref, x *big.Float) *big.Float { return r.Log1p(x) }), math.Log1p, append(LogGrid(-20, 300, 2, true, false), -0.5, -0.4999, -0.9, -1e-8, -1e-300)},
	} {
		for _, x := range test.points {
			want, got := test.ref(x), test.math(x)
			if !Within(got, want, 0, 2) {
				t.Errorf("reference %s(%g) = %v, math says %v", test.name, x, want, got)
			}
		}
	}
	// ln 2 through two independent routes: 2 atanh(1/3) and −log(1/2)
	// computed by log's own reduction (m = 1/2·2 → t = 0, e = −1).
	r := Ref{Prec: 256}
	if d := r.Sub(r.Ln2(), r.Neg(r.Log(r.F(0.5)))); d.Sign() != 0 && d.MantExp(nil) > -250 {
		t.Errorf("ln 2 routes differ by %v", d)
	}
	// exp(log x) = x to the working precision.
	for _, x := range []float64{1e-300, 0.3, 3, 1e300} {
		xb := r.F(x)
		if d := r.Sub(r.Exp(r.Log(xb)), xb); d.Sign() != 0 && d.MantExp(nil) > xb.MantExp(nil)-240 {
			t.Errorf("exp(log(%g)) − %g = %v", x, x, d)
		}
	}
}

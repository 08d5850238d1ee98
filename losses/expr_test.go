package losses

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/symbolic"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// builtinFormulas are the hand-written margin losses and the formulas that
// define them: LL Remarks A.1, A.2, and ZD eq. 19 with α = 1, β = 0 and the
// logistic shifted vertically to be continuous at 0 (polytail.go).
var builtinFormulas = []struct {
	formula string
	m       Margin
}{
	{"exp(-q)", Exponential{}},
	{"log(1+exp(-q))", Logistic{}},
	{"if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)", ZDPolyTail()},
}

// exprPoints are the margins of the comparison: the accuracy tests' grid on
// [−50, 1e6] (marginPoints), and both sides of 0 down to 1e-300.
func exprPoints() []float64 {
	qs := marginPoints(marginCase{})
	for _, e := range []float64{1e-300, 1e-100, 1e-16, 1e-8, 1e-4, 0.01} {
		qs = append(qs, e, -e)
	}
	return append(qs, math.Copysign(0, -1))
}

// relErr returns |got − want|/|want| (0 when equal, +Inf when want = 0 ≠ got).
func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestExprMatchesBuiltins: the built-in losses re-derived from their
// formulas agree with the hand-written ones — log ℓ, f, f′ — to 1e-12
// relative on q ∈ [−50, 1e6] (the bound; the derivation produces
// the same stable forms, so the worst error seen is 1 ulp), and g, g′ to
// 1e-12 times the condition of the inverse, |u|/(|g|·f′(g)) (Newton solves
// f(q) = u, whose rounding ε·|u| moves q by ε·|u|/f′).
func TestExprMatchesBuiltins(t *testing.T) {
	t.Parallel()
	for _, c := range builtinFormulas {
		e, err := NewExpr(c.formula)
		if err != nil {
			t.Fatalf("%q: %v", c.formula, err)
		}
		var w [3]bigref.Worst
		for _, q := range exprPoints() {
			for k, pair := range [3][2]float64{{e.LogLoss(q), c.m.LogLoss(q)}, {e.F(q), c.m.F(q)}, {e.FPrime(q), c.m.FPrime(q)}} {
				r := relErr(pair[0], pair[1])
				w[k].Add(r, q)
				if !(r <= 1e-12) {
					t.Errorf("%s: %s(%v) = %.17g, hand-written %.17g", c.m.Name(), [3]string{"log ℓ", "f", "f′"}[k], q, pair[0], pair[1])
				}
			}
			if e.DLogLoss(q) != -e.FPrime(q) {
				t.Errorf("%s: DLogLoss(%v) ≠ −FPrime", c.m.Name(), q)
			}
		}
		t.Logf("%s: bigref.Worst relative error log ℓ %.2g (q = %g), f %.2g (q = %g), f′ %.2g (q = %g)", c.m.Name(), w[0].Units, w[0].At, w[1].Units, w[1].At, w[2].Units, w[2].At)
		for _, u := range logPoints(marginCase{}) {
			g, want := e.G(u), c.m.G(u)
			cond := math.Max(1, math.Abs(u)/(math.Abs(want)*c.m.FPrime(want)))
			if math.IsInf(cond, 0) || math.IsNaN(cond) {
				cond = 1
			}
			if r := relErr(g, want); !(r <= 1e-12*cond) && !(math.Abs(g-want) <= 1e-300) {
				t.Errorf("%s: g(%v) = %.17g, hand-written %.17g (cond %.3g)", c.m.Name(), u, g, want, cond)
			}
			if r := relErr(e.GPrime(u), c.m.GPrime(u)); !(r <= 1e-12*cond) && cond < 1e3 {
				t.Errorf("%s: g′(%v) = %.17g, hand-written %.17g", c.m.Name(), u, e.GPrime(u), c.m.GPrime(u))
			}
		}
		if e.BF() != c.m.BF() {
			t.Errorf("%s: b_f = %v, hand-written %v", c.m.Name(), e.BF(), c.m.BF())
		}
	}
}

// TestExprTrainsLikeBuiltin: through NewBinary, the loss and gradient the
// engine uses (LogLoss, ScaledGrad) are the hand-written loss's to the same
// 1e-12 (bit for bit for exp and logistic, whose derived forms are the
// hand-written ones; 1 ulp of f′ for the polynomial tail's left piece).
func TestExprTrainsLikeBuiltin(t *testing.T) {
	t.Parallel()
	for _, c := range builtinFormulas {
		l, err := ByName(ExprPrefix + c.formula)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBinary(c.m)
		var g1, g2 [1]float64
		for _, s := range []float64{-30, -1, -1e-9, 0, 0.5, 3, 40, 800, 1e5} {
			for _, y := range []float64{-1, 1} {
				for _, shift := range []float64{0, -700, -1e4} {
					l.ScaledGrad(g1[:], []float64{s}, y, shift)
					b.ScaledGrad(g2[:], []float64{s}, y, shift)
					if relErr(g1[0], g2[0]) > 1e-12 || relErr(l.LogLoss([]float64{s}, y), b.LogLoss([]float64{s}, y)) > 1e-12 {
						t.Errorf("%s at s = %v, y = %v, shift %v: grad %v vs %v", c.m.Name(), s, y, shift, g1, g2)
					}
				}
			}
		}
	}
}

func TestExprByName(t *testing.T) {
	t.Parallel()
	l, err := ByName("expr:log(1+exp(-q))")
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind() != Binary || l.Name() != "expr:log(1+exp(-q))" {
		t.Errorf("Kind %v, Name %q", l.Kind(), l.Name())
	}
	m, ok := MarginOf(l)
	if _, isExpr := m.(*Expr); !ok || !isExpr {
		t.Errorf("MarginOf = %T, %v", m, ok)
	}
	// ℓ = e^{−1e6}: log ℓ = −1e6 exactly, no underflow.
	e, _ := ByName("expr:exp(-q)")
	if got := e.LogLoss([]float64{1e6}, 1); got != -1e6 {
		t.Errorf("log ℓ(1e6) = %v, want −1e6", got)
	}
	_, err = ByName("expr:2q")
	var pe *symbolic.ParseError
	if !errors.As(err, &pe) || pe.Pos != 2 || !strings.Contains(err.Error(), "position 2") {
		t.Errorf("ByName(expr:2q) error = %v, want a ParseError at position 2", err)
	}
	if _, err := ByName("expr:1/0"); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("ByName(expr:1/0) error = %v", err)
	}
	if _, err := ByName("exprx"); err == nil || !strings.Contains(err.Error(), "expr:FORMULA") {
		t.Errorf("ByName(exprx) error = %v, want one mentioning expr:FORMULA", err)
	}
}

// TestExprKinked: a piecewise formula reports its kink through Kinked, a
// smooth one none.
func TestExprKinked(t *testing.T) {
	t.Parallel()
	e, _ := NewExpr(builtinFormulas[2].formula)
	var k Kinked = e
	if ks := k.Kinks(); len(ks) != 1 || ks[0] != 0 {
		t.Errorf("poly kinks = %v, want [0]", ks)
	}
	s, _ := NewExpr("if q < 0 then exp(-q) else 1 - q + q^2/2")
	if ks := s.Kinks(); len(ks) != 0 {
		t.Errorf("C¹ join: kinks = %v", ks)
	}
}

// TestExprBF: for ℓ = e^{−q}(1 + q²)^0.9, f = q − 0.9·log(1 + q²), and
// (f′q)′ = 1 − 3.6q/(1 + q²)² is negative on an interval ending at the
// root b of (1 + b²)² = 3.6b near 0.88 (found here by bisection on the
// polynomial): the smallest admissible b_f.
func TestExprBF(t *testing.T) {
	t.Parallel()
	e, err := NewExpr("exp(-q)*(1+q^2)^0.9")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := 0.7, 1.0 // (1+q²)² − 3.6q < 0 at 0.7, > 0 at 1
	for i := 0; i < 100; i++ {
		m := (lo + hi) / 2
		if (1+m*m)*(1+m*m)-3.6*m < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	if got := e.BF(); !(math.Abs(got-hi) <= 1e-12) {
		t.Errorf("b_f = %.17g, want %.17g", got, hi)
	}
}

func BenchmarkExprScaledGrad(b *testing.B) {
	l, _ := ByName("expr:log(1+exp(-q))")
	dst, s := make([]float64, 1), make([]float64, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s[0] = float64(i%100) - 50
		l.ScaledGrad(dst, s, 1, -3)
	}
}

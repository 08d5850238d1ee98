package losses

import (
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// issueMargins are the margins at which the losses must be finite and
// accurate: both sides of 0, the branch points 36…38 of the softplus, and the
// margins at which ℓ underflows (745) and far beyond (1e6).
var issueMargins = []float64{-50, -1, 0, 1e-8, 1, 20, 36, 38, 100, 700, 745, 800, 1e4, 1e6}

// marginCase is one margin loss with its references and the margins around
// its kink, if it has one.
type marginCase struct {
	name  string
	m     Margin
	ref   marginRef
	extra []float64
}

func marginCases() []marginCase {
	return []marginCase{
		{"logistic", Logistic{}, logisticRef, nil},
		// ZD App. C: α = 1, β = 0. The kink is at 0: approach it from both
		// sides down to the smallest subnormal, and through −0. (Collected
		// from failures: f(−1e-300) was 0 instead of −5e-301, and g, g′ near
		// u = 0⁻ were wrong with it, before leftExcess.)
		{"poly", ZDPolyTail(), polyTailRef(1, 0), append(bigref.Around(0, -1e-8, 1e-8),
			-1e-300, 1e-300, math.Copysign(0, -1), -1e-100, -1e-16, 1e-16)},
		// Two more shapes: a faster tail with the kink at a positive margin,
		// and a slower one with the kink at a negative margin (where ℓ_left
		// is shifted down: log(1 + e^{−β}) > 1).
		{"poly(2,0.5)", PolyTail{Alpha: 2, Beta: 0.5}, polyTailRef(2, 0.5), append(bigref.Around(0.5), 0.5-1e-8, 0.5+1e-8)},
		{"poly(0.5,-1)", PolyTail{Alpha: 0.5, Beta: -1}, polyTailRef(0.5, -1), append(bigref.Around(-1), -1-1e-8, -1+1e-8)},
	}
}

// marginPoints are the margins q ∈ [−50, 1e6] of the accuracy tests: the
// issue's list, a log grid of both signs, and the case's kink.
func marginPoints(c marginCase) []float64 {
	qs := append([]float64{}, issueMargins...)
	qs = append(qs, bigref.LogGrid(-8, 6, 0.25, true, false)...)
	qs = append(qs, bigref.LogGrid(-8, math.Log10(50), 0.25, false, true)...)
	return append(qs, c.extra...)
}

// logPoints are the arguments u of g and g′: log(1/ℓ) over the same range,
// where u < 0 is a loss above 1 (q below the kink for the poly losses, q <
// −0.54 for the logistic one).
func logPoints(c marginCase) []float64 {
	us := marginPoints(c)
	// 1419.8 and 1420: e^{u/α}/α for α = 2 is finite (≈ 9e307) while
	// e^{u/α} overflows, PolyTail.GPrime's overflow-free branch.
	return append(us, 1e-300, -1e-300, 709, 709.5, 709.78, 710, 1419.8, 1420)
}

// Budgets, in units of ε·(|F| + S) (see internal/bigref/compare.go). The formulas have
// 3 to 6 operations each accurate to ½ or 1 ulp whose errors reach the
// result with factors ≤ 1 relative to that scale (log1p and the softplus
// have condition ≤ 1; a log turns a relative error into an absolute one,
// which the scale |F| + S absorbs):
//
//	log ℓ, f: 3  (LogLog1pExp: numerics tests it at 3; poly: expm1, ÷, log1p, log1p)
//	f′:       4  (exp, 1 + t, log1p, two ÷)
//	g:        4  (exp, expm1, ÷, log, −; poly: expm1 twice, ×, log1p)
//	g′:       4  (exp, expm1, ÷; poly: exp twice, g, ×)
const (
	budgetLogLoss = 3
	budgetFPrime  = 4
	budgetG       = 4
	budgetGPrime  = 4
)

// TestMarginAccuracy compares log ℓ, f, f′, g and g′ of the logistic and the
// polynomially tailed losses with the high-precision references of
// reference_test.go at q ∈ [−50, 1e6] (ZD eq. (19); LL Remark A.2).
func TestMarginAccuracy(t *testing.T) {
	t.Parallel()
	for _, c := range marginCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, fn := range []struct {
				name   string
				impl   func(float64) float64
				ref    bigref.Func
				points []float64
				budget float64
			}{
				{"LogLoss", c.m.LogLoss, c.ref.logLoss, marginPoints(c), budgetLogLoss},
				{"F", c.m.F, c.ref.f, marginPoints(c), budgetLogLoss},
				{"FPrime", c.m.FPrime, c.ref.fPrime, marginPoints(c), budgetFPrime},
				{"G", c.m.G, c.ref.g, logPoints(c), budgetG},
				{"GPrime", c.m.GPrime, c.ref.gPrime, logPoints(c), budgetGPrime},
			} {
				var w bigref.Worst
				for _, x := range fn.points {
					if t.Failed() {
						// Each further point costs a reference
						// evaluation; the first failure says enough.
						break
					}
					want := refs.At(c.name+"."+fn.name, fn.ref, x)
					got := fn.impl(x)
					if math.IsNaN(got) || (math.IsInf(got, 0) && !math.IsInf(want, 0)) {
						t.Errorf("%s(%v) = %v, want %v", fn.name, x, got, want)
						continue
					}
					if got == want {
						continue
					}
					s := refs.Sensitivity(c.name+"."+fn.name, fn.ref, x)
					if !bigref.Within(got, want, s, fn.budget) {
						t.Errorf("%s(%v) = %v, want %v (%.3g units)", fn.name, x, got, want, bigref.Units(got, want, s))
					}
					w.Add(bigref.Units(got, want, s), x)
				}
				t.Logf("%s.%s: worst error %.3g units at %v (budget %v)", c.name, fn.name, w.Units, w.At, fn.budget)
			}
		})
	}
}

// TestExponential: every function is exact (LL Remark A.1).
func TestExponential(t *testing.T) {
	t.Parallel()
	e := Exponential{}
	for _, q := range append(append([]float64{}, issueMargins...), inf, ninf, nan, math.Copysign(0, -1)) {
		for _, test := range []struct {
			name      string
			got, want float64
		}{
			{"LogLoss", e.LogLoss(q), -q},
			{"DLogLoss", e.DLogLoss(q), -1},
			{"F", e.F(q), q},
			{"FPrime", e.FPrime(q), 1},
			{"G", e.G(q), q},
			{"GPrime", e.GPrime(q), 1},
		} {
			if !bigref.Same(test.got, test.want) {
				t.Errorf("Exponential.%s(%v) = %v, want %v", test.name, q, test.got, test.want)
			}
		}
	}
	if e.BF() != 0 || LogThreshold(e) != 0 || e.Name() != "exp" {
		t.Errorf("Exponential: BF = %v, LogThreshold = %v, Name = %q; want 0, 0, exp", e.BF(), LogThreshold(e), e.Name())
	}
}

// TestMarginSpecialCases checks the special cases the doc comments list, with ==.
func TestMarginSpecialCases(t *testing.T) {
	t.Parallel()
	l := Logistic{}
	p := ZDPolyTail()
	mx := math.MaxFloat64
	for _, test := range []struct {
		name      string
		got, want float64
	}{
		{"Logistic.LogLoss(+Inf)", l.LogLoss(inf), ninf},
		{"Logistic.LogLoss(-Inf)", l.LogLoss(ninf), inf},
		{"Logistic.LogLoss(NaN)", l.LogLoss(nan), nan},
		// Finite for every finite q: −q − e^{−q}/2 rounds to −q.
		{"Logistic.LogLoss(MaxFloat64)", l.LogLoss(mx), -mx},
		{"Logistic.F(+Inf)", l.F(inf), inf},
		{"Logistic.F(-Inf)", l.F(ninf), ninf},
		{"Logistic.FPrime(+Inf)", l.FPrime(inf), 1},
		{"Logistic.FPrime(-Inf)", l.FPrime(ninf), 0},
		{"Logistic.FPrime(NaN)", l.FPrime(nan), nan},
		// t/log1p(t) is exactly 1 in float64 below t = 2⁻⁵³ and 1 + t rounds to 1.
		{"Logistic.FPrime(38)", l.FPrime(38), 1},
		{"Logistic.DLogLoss(1e6)", l.DLogLoss(1e6), -1},
		{"Logistic.G(+Inf)", l.G(inf), inf},
		{"Logistic.G(-Inf)", l.G(ninf), ninf},
		{"Logistic.G(NaN)", l.G(nan), nan},
		// g(u) = u − e^{−u}/2 + …: exactly u once e^{−u} underflows.
		{"Logistic.G(1e6)", l.G(1e6), 1e6},
		{"Logistic.GPrime(+Inf)", l.GPrime(inf), 1},
		{"Logistic.GPrime(-Inf)", l.GPrime(ninf), inf},
		{"Logistic.GPrime(NaN)", l.GPrime(nan), nan},
		{"Logistic.BF", l.BF(), 0},

		{"PolyTail.F(+Inf)", p.F(inf), inf},
		{"PolyTail.F(-Inf)", p.F(ninf), ninf},
		{"PolyTail.F(NaN)", p.F(nan), nan},
		// f(β) = 0 exactly, from either zero.
		{"PolyTail.F(0)", p.F(0), 0},
		{"PolyTail.F(-0)", p.F(math.Copysign(0, -1)), 0},
		{"PolyTail.FPrime(+Inf)", p.FPrime(inf), 0},
		{"PolyTail.FPrime(-Inf)", p.FPrime(ninf), 0},
		{"PolyTail.FPrime(NaN)", p.FPrime(nan), nan},
		// At β the right derivative α; just left of it σ(−β)/ℓ_left(β) = ½.
		{"PolyTail.FPrime(0)", p.FPrime(0), 1},
		{"PolyTail.FPrime(-5e-324)", p.FPrime(-5e-324), 0.5},
		{"PolyTail.G(+Inf)", p.G(inf), inf},
		{"PolyTail.G(-Inf)", p.G(ninf), ninf},
		{"PolyTail.G(NaN)", p.G(nan), nan},
		{"PolyTail.G(0)", p.G(0), 0},
		{"PolyTail.GPrime(+Inf)", p.GPrime(inf), inf},
		{"PolyTail.GPrime(-Inf)", p.GPrime(ninf), inf},
		{"PolyTail.GPrime(NaN)", p.GPrime(nan), nan},
		// g′(0⁺) = 1/α, g′(0⁻) = 1/f′(0⁻) = 1 + e^β = 2.
		{"PolyTail.GPrime(0)", p.GPrime(0), 1},
		{"PolyTail.GPrime(-5e-324)", p.GPrime(-5e-324), 2},
		{"PolyTail.BF", p.BF(), 0},
		{"PolyTail{2,-1}.BF", PolyTail{Alpha: 2, Beta: -1}.BF(), 0},
		{"PolyTail{2,0.5}.BF", PolyTail{Alpha: 2, Beta: 0.5}.BF(), 0.5},
		{"LogThreshold(poly)", LogThreshold(p), 0},
	} {
		if !bigref.Same(test.got, test.want) {
			t.Errorf("%s = %v, want %v", test.name, test.got, test.want)
		}
	}
	// LL (B4) threshold of the logistic loss: log ℓ(0) = log log 2.
	want := bigref.At(logisticRef.logLoss, 0)
	if got := LogThreshold(l); !bigref.Within(got, want, 0, budgetLogLoss) {
		t.Errorf("LogThreshold(logistic) = %v, want %v", got, want)
	}
	for _, test := range []struct {
		m    Margin
		want string
	}{
		{Logistic{}, "logistic"},
		{ZDPolyTail(), "poly"},
		{PolyTail{Alpha: 2, Beta: 0.5}, "poly(2,0.5)"},
		{PolyTail{Alpha: 0.5, Beta: -1}, "poly(0.5,-1)"},
	} {
		if got := test.m.Name(); got != test.want {
			t.Errorf("Name() = %q, want %q", got, test.want)
		}
	}
}

// TestLogisticInverse checks g(log 1/ℓ(q)) = g(f(q)) = q, the identity the
// smoothed margin γ̃ = g(log 1/𝓛)/ρ^L rests on (LL Remark A.2), to 1e-12
// relative on [1, 1e6] and 1e-12 absolute on [0, 1], and g′(f(q))·f′(q) = 1.
//
// The identity's own error is far below 1e-12: f(q) has error ≤ 3ε(|f| +
// |q f′|), which g maps to an error ≤ 3ε(|f| + |q f′|)·g′(f(q)) = 3ε(|f|/f′ +
// |q|) in q, with |f|/f′ ≤ q + 1 for q ≥ 0; g adds 4ε(|q| + |u g′|) of its
// own: about 14ε(|q| + 1) ≈ 3e-15(|q| + 1) in all.
//
// For the product, f′ and g′ each carry ≤ 4ε(1 + S/|F|) relative error and
// g′ moves by the relative error of f(q) times |u g″/g′| ≤ 1: 16ε in all.
// (This product caught Logistic.GPrime implementing the g′ printed in LL
// Remark A.2, which is off by the factor e^{e^{−u}}: the product was ½ at
// q = 0.)
func TestLogisticInverse(t *testing.T) {
	t.Parallel()
	l := Logistic{}
	qs := append(bigref.LogGrid(-12, 6, 0.05, true, false), 0, 5e-324, 1e-300, 36, 37, 38, 745, 800)
	check := func(q float64) {
		u := l.F(q)
		back := l.G(u)
		tol := 1e-12
		if q > 1 {
			tol *= q
		}
		if math.Abs(back-q) > tol {
			t.Errorf("g(f(%v)) = %v: error %.3g > %.3g", q, back, math.Abs(back-q), tol)
		}
		if prod := l.GPrime(u) * l.FPrime(q); math.Abs(prod-1) > 16*bigref.Eps {
			t.Errorf("g′(f(%v))·f′(%v) = 1 + %.3g", q, q, prod-1)
		}
	}
	for _, q := range qs {
		check(q)
	}

	params := gopter.DefaultTestParametersWithSeed(2)
	params.MinSuccessfulTests = 1000
	props := gopter.NewProperties(params)
	props.Property("g(f(q)) = q and g′(f(q))·f′(q) = 1, q ∈ [0, 1e6]", prop.ForAll(
		func(q float64) bool {
			u := l.F(q)
			tol := math.Max(1, q) * 1e-12
			return math.Abs(l.G(u)-q) <= tol && math.Abs(l.GPrime(u)*l.FPrime(q)-1) <= 16*bigref.Eps
		},
		gen.OneGenOf(gen.Float64Range(0, 1), logUniform(0, 6)),
	))
	props.TestingRun(t)

	// The references agree: g of the reference f is q to 2⁻²⁰⁰(1 + |q|) at
	// 512 bits (a check of reference_test.go as much as of the loss). The
	// difference is compared in big arithmetic: at q = 0 it is rounding noise
	// of size 2⁻⁵⁰⁰, which bigref.Value could never confirm as 0.
	r := bigref.Ref{Prec: 512}
	for _, q := range []float64{0, 1e-8, 1, 20, 745, 1e6} {
		qb := r.F(q)
		d := r.Sub(logisticRef.g(r, logisticRef.f(r, qb)), qb)
		if d.Sign() != 0 && d.MantExp(nil) > -200+max(0, qb.MantExp(nil)) {
			t.Errorf("reference g(f(%v)) − %v = %v", q, q, d)
		}
	}
}

// logUniform generates 10^e for e uniform in [e0, e1].
func logUniform(e0, e1 float64) gopter.Gen {
	return gen.Float64Range(e0, e1).Map(func(e float64) float64 { return math.Pow(10, e) })
}

// marginRange generates q ∈ [−50, 1e6] on a log scale of both signs, plus
// the uniform [−1, 1] around the kinks.
func marginRange() gopter.Gen {
	return gen.OneGenOf(
		logUniform(-8, 6),
		logUniform(-8, math.Log10(50)).Map(func(q float64) float64 { return -q }),
		gen.Float64Range(-1, 1),
	)
}

// TestMarginProperties checks the hypotheses of LL App. A.1 that the losses
// meet (and the one the polynomial tail fails) on random margins q ∈ [−50,
// 1e6]: f strictly increasing (B3.2: f′ > 0), f′(q)·q non-decreasing on q > 0
// for the logistic loss (B3.3), and f′(q)·q ≤ α for the polynomial tail with
// β ≤ 1, which is why it fails (B3.3). Pairs q < q′ are compared only when
// they are far enough apart for the increase to exceed the rounding errors;
// each property says how far.
func TestMarginProperties(t *testing.T) {
	t.Parallel()
	params := gopter.DefaultTestParametersWithSeed(3)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	for _, c := range marginCases() {
		m := c.m
		props.Property(c.name+": f′ > 0", prop.ForAll(
			func(q float64) bool { return m.FPrime(q) > 0 && -m.DLogLoss(q) == m.FPrime(q) },
			marginRange(),
		))
		// f(q + d) − f(q) ≥ d·min f′ on [q, q + d]; with d = 1e-6·(1 + |q|)
		// and f′ ≥ 1/(|q| + 2) on [−50, 1e6] for these losses (α ≥ 0.5: f′ =
		// α/(q − β + 1) ≥ 0.5/(q + 2)), the increase is ≥ 2.5e-7·(1+|q|)/(|q|+2)
		// ≥ 1.2e-7, far above the 3ε(|f| + |q f′|) ≤ 1e-14 error of each f.
		props.Property(c.name+": f increasing", prop.ForAll(
			func(q, r float64) bool {
				d := 1e-6 * (1 + math.Abs(q)) * (1 + r)
				return m.F(q+d) > m.F(q) && m.LogLoss(q+d) < m.LogLoss(q)
			},
			marginRange(), gen.Float64Range(0, 10),
		))
	}
	// (B3.3) for the logistic loss: f′(q)q has derivative f′ + q f″ > 0 on
	// q > 0 (≥ 0.36 at q = 0, → 1); over d = 1e-6·(1 + q) it grows by more
	// than the 8ε·f′q error of the two products.
	l := Logistic{}
	props.Property("logistic: f′(q)·q non-decreasing on q > 0", prop.ForAll(
		func(q, r float64) bool {
			d := 1e-6 * (1 + q) * (1 + r)
			return l.FPrime(q+d)*(q+d) >= l.FPrime(q)*q
		},
		logUniform(-8, 6), gen.Float64Range(0, 10),
	))
	// (B3.3) fails for the polynomial tail: f′(q)q = αq/(q − β + 1) ≤ α for
	// q ≥ β whenever β ≤ 1, so it does not → ∞. Rounding: 2 ulps of α.
	for _, c := range marginCases()[1:] {
		p := c.m.(PolyTail)
		props.Property(c.name+": f′(q)·q ≤ α on q ≥ max(β, 0)", prop.ForAll(
			func(q float64) bool {
				q += math.Max(p.Beta, 0)
				return p.FPrime(q)*q <= p.Alpha*(1+4*bigref.Eps)
			},
			logUniform(-8, 6),
		))
	}
	props.TestingRun(t)
}

// Benchmarks of the margin functions the engine calls per sample and step.

var sink float64

// benchMargins are margins of all sizes, cycled through so that no branch
// is predicted perfectly.
var benchMargins = []float64{-3.5, 0.25, 2, 30, 40, 800, 1e4, 1e6}

func benchMargin(b *testing.B, f func(float64) float64) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sink = f(benchMargins[i&7])
		i++
	}
}

func BenchmarkLogisticLogLoss(b *testing.B) { benchMargin(b, Logistic{}.LogLoss) }
func BenchmarkLogisticFPrime(b *testing.B)  { benchMargin(b, Logistic{}.FPrime) }
func BenchmarkLogisticG(b *testing.B)       { benchMargin(b, Logistic{}.G) }
func BenchmarkLogisticGPrime(b *testing.B)  { benchMargin(b, Logistic{}.GPrime) }
func BenchmarkPolyTailF(b *testing.B)       { benchMargin(b, ZDPolyTail().F) }
func BenchmarkPolyTailFPrime(b *testing.B)  { benchMargin(b, ZDPolyTail().FPrime) }
func BenchmarkPolyTailG(b *testing.B)       { benchMargin(b, ZDPolyTail().G) }

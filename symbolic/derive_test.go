package symbolic

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// derivFormulas are smooth losses (and pieces of piecewise ones) whose
// derivatives are compared with finite differences.
var derivFormulas = []string{
	"exp(-q)", "log(1+exp(-q))", "exp(-q^3)", "log(1+exp(-q^3))",
	"if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)",
	"exp(-q)*(1+q^2)^0.9", "1/(1+exp(q))", "exp(-q)+exp(-2*q)", "2*exp(-q)/(3+q^2)",
	"sqrt(1+exp(-2*q))", "exp(-abs(q)^3)", "expm1(exp(-q))", "log1p(exp(-q))^2", "exp(-q)^(1/3)",
}

// TestDerivativesFiniteDifferences: f′, f″, ℓ′, ℓ″ from the symbolic
// derivation agree with central differences (gonum diff/fd, step 1e-5·s,
// s = max(1, |q|)) of f, f′, ℓ, ℓ′. The central difference's error is
// h²·|f‴|/6 ≈ 1e-10·s² plus rounding ε·|f|/h ≈ 1e-11·|f|; the bound
// 1e-6·max(1, |value|, |f|) leaves room for third derivatives up to 1e4.
func TestDerivativesFiniteDifferences(t *testing.T) {
	t.Parallel()
	for _, src := range derivFormulas {
		fm, err := NewFormula(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, q := range []float64{-3, -1.3, -0.4, 0.3, 0.9, 2, 5.5, 12} {
			p := fm.PieceAt(q)
			h := 1e-5 * math.Max(1, math.Abs(q))
			if fm.PieceAt(q-2*h) != p || fm.PieceAt(q+2*h) != p {
				continue // the stencil crosses a breakpoint
			}
			s := &fd.Settings{Formula: fd.Central, Step: h}
			for _, c := range []struct {
				name      string
				got       float64
				of        func(float64) float64
				magnitude float64
			}{
				{"f′", p.EvalF1(q), p.EvalF, p.EvalF(q)},
				{"f″", p.EvalF2(q), p.EvalF1, p.EvalF1(q)},
				{"ℓ′", p.l1.Eval(q), p.l.Eval, p.l.Eval(q)},
				{"ℓ″", p.l2.Eval(q), p.l1.Eval, p.l1.Eval(q)},
			} {
				want := fd.Derivative(c.of, q, s)
				tol := 1e-6 * math.Max(1, math.Max(math.Abs(want), math.Abs(c.magnitude)))
				if !(math.Abs(c.got-want) <= tol) {
					t.Errorf("%q at q = %v: %s = %.15g, finite differences %.15g", src, q, c.name, c.got, want)
				}
			}
		}
	}
}

// TestDerivativeIdentities: ℓ′ = −f′ℓ and ℓ″ = (f′² − f″)ℓ with ℓ = e^{−f},
// the forms the checks use in log domain, agree with the symbolic ℓ′, ℓ″
// where ℓ is a normal number: to 1e-12 relative to the sizes of the terms
// (each side is a few roundings, e^{−f} adds |f|·ε ≤ 1e-14 here; the sums
// cancel at most by the ratio of terms to result, which the scale includes).
func TestDerivativeIdentities(t *testing.T) {
	t.Parallel()
	for _, src := range derivFormulas {
		fm, _ := NewFormula(src)
		for _, q := range []float64{-5, -1, -0.2, 0.2, 1, 3, 10, 30} {
			p := fm.PieceAt(q)
			l := math.Exp(-p.EvalF(q))
			f1, f2 := p.EvalF1(q), p.EvalF2(q)
			if l1, want := p.l1.Eval(q), -f1*l; !(math.Abs(l1-want) <= 1e-12*math.Abs(want)+1e-300) {
				t.Errorf("%q at %v: ℓ′ = %.17g, −f′ℓ = %.17g", src, q, l1, want)
			}
			scale := (f1*f1 + math.Abs(f2)) * l
			if l2, want := p.l2.Eval(q), (f1*f1-f2)*l; !(math.Abs(l2-want) <= 1e-12*scale+1e-300) {
				t.Errorf("%q at %v: ℓ″ = %.17g, (f′² − f″)ℓ = %.17g", src, q, l2, want)
			}
		}
	}
}

// TestStableForms: the rewrites keep log ℓ and f′ finite and exact for
// margins where ℓ underflows; the references are the closed forms, worked
// by hand, evaluated with package math.
func TestStableForms(t *testing.T) {
	t.Parallel()
	q := 1e6
	for _, test := range []struct {
		formula         string
		logLoss, fprime float64
		form            string // a piece of the printed f
	}{
		// The example: ℓ = e^{−1e6} gives log ℓ = −1e6.
		{"exp(-q)", -1e6, 1, "q"},
		{"exp(-1e6*q)", -1e12, 1e6, "1e+06*q"},
		{"2*exp(-q)", -1e6 + math.Ln2, 1, "log(2)"},
		{"exp(-q)/(1+q^2)", -1e6 - math.Log1p(1e12), 1 + 2e6/(1+1e12), "log1p(q^2)"},
		{"exp(-q)+exp(-2*q)", -1e6, 1, "logaddexp"},
		{"1/(1+exp(q))", -1e6, 1, "softplus(q)"},
		{"log(1+exp(-q))", -1e6, 1, "logsoftplus(-q)"},
		{"log1p(exp(-q))^2", -2e6, 2, "logsoftplus(-q)"},
		{"sqrt(exp(-q))", -5e5, 0.5, "0.5*q"},
		{"log(exp(-q))^2", 2 * math.Log(1e6), -2e-6, "log"},
		{"exp(-q)*exp(-q^2)", -1e6 - 1e12, 1 + 2e6, "q^2"},
	} {
		fm, err := NewFormula(test.formula)
		if err != nil {
			t.Fatalf("%q: %v", test.formula, err)
		}
		if got := fm.LogLoss(q); !(math.Abs(got-test.logLoss) <= 4e-16*math.Abs(test.logLoss)) {
			t.Errorf("%q: log ℓ(1e6) = %.17g, want %.17g", test.formula, got, test.logLoss)
		}
		if got := fm.FPrime(q); !(math.Abs(got-test.fprime) <= 1e-15*math.Abs(test.fprime)) {
			t.Errorf("%q: f′(1e6) = %.17g, want %.17g", test.formula, got, test.fprime)
		}
		if f := fm.Pieces[0].F.String(); !strings.Contains(f, test.form) {
			t.Errorf("%q: f = %s, want a form with %q", test.formula, f, test.form)
		}
	}
	// log ℓ where ℓ ≈ 1 keeps its relative precision: the polynomially
	// tailed loss's left piece near 0⁻ is −q/2 + O(q²).
	fm, _ := NewFormula("if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)")
	for _, q := range []float64{-1e-300, -1e-100, -1e-16} {
		if got, want := fm.F(q), q/2; !(math.Abs(got-want) <= 1e-15*math.Abs(want)) {
			t.Errorf("poly: f(%v) = %v, want %v", q, got, want)
		}
	}
}

// TestEvalDoesNotAllocate: compiled programs, the loss functions and the
// inverse run without allocating.
func TestEvalDoesNotAllocate(t *testing.T) {
	fm, _ := NewFormula("if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)")
	lg, _ := NewFormula("log(1+exp(-q^3))")
	var sink float64
	var isink Interval
	for name, fn := range map[string]func(){
		"F":            func() { sink += fm.F(0.7) + fm.F(-0.7) },
		"FPrime":       func() { sink += fm.FPrime(0.7) + lg.FPrime(3) },
		"FSecond":      func() { sink += lg.FSecond(3) },
		"Inverse":      func() { sink += lg.Inverse(5, 0) },
		"EvalInterval": func() { isink = lg.Pieces[0].IntervalF1(Interval{1, 2}) },
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s allocates %v times per call", name, a)
		}
	}
	_, _ = sink, isink
}

// TestInverse: g(f(q)) = q to the conditioning of the inverse
// (|f(q)|/(|q|·f′(q)) units of ε), from the anchor b_f = 0.
func TestInverse(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"exp(-q)", "log(1+exp(-q))", "exp(-q^3)", "log(1+exp(-q^3))", "if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)"} {
		fm, _ := NewFormula(src)
		for _, q := range []float64{1e-300, 1e-8, 0.3, 1, 7, 45, 800, 1e4, 1e6, -0.5, -3} {
			u := fm.F(q)
			if u == 0 && q != 0 {
				continue // f(q) underflows (q³ for q = 1e-300): nothing to invert
			}
			g := fm.Inverse(u, 0)
			cond := math.Abs(u) / (math.Abs(q) * fm.FPrime(q))
			if !(math.Abs(g-q) <= 8*0x1p-52*math.Max(1, cond)*math.Abs(q)) {
				t.Errorf("%q: g(f(%v)) = %v (cond %.3g)", src, q, g, cond)
			}
			if cond > 1e8 {
				continue // g is accurate only to cond·ε relative: g′ there is noise
			}
			// g′ = 1/f′(g) carries g's relative error times |f″g/f′|.
			rel := 16 * 0x1p-52 * (1 + math.Max(1, cond)*math.Abs(fm.FSecond(q)*q/fm.FPrime(q)))
			if gp, want := fm.InversePrime(u, 0), 1/fm.FPrime(q); !(math.Abs(gp-want) <= rel*math.Abs(want)) {
				t.Errorf("%q: g′(f(%v)) = %v, want %v", src, q, gp, want)
			}
		}
	}
	fm, _ := NewFormula("exp(-q)")
	for _, u := range []float64{math.Inf(1), math.Inf(-1)} {
		if g := fm.Inverse(u, 0); g != u {
			t.Errorf("g(%v) = %v", u, g)
		}
	}
	if g := fm.Inverse(math.NaN(), 0); !math.IsNaN(g) {
		t.Errorf("g(NaN) = %v", g)
	}
	// f = log1p(q²) ≥ 0 never reaches −1: the search runs off to −∞.
	bowl, _ := NewFormula("1/(1+q^2)")
	if g := bowl.Inverse(-1, 0); !math.IsInf(g, -1) {
		t.Errorf("bowl: g(−1) = %v, want −Inf", g)
	}
	// f = log1p(q) reaches 710 only beyond the largest float64.
	poly, _ := NewFormula("1/(q+1)")
	if g := poly.Inverse(710, 0); !math.IsInf(g, 1) {
		t.Errorf("poly: g(710) = %v, want +Inf", g)
	}
	// log of a negative number on the way: NaN.
	bad, _ := NewFormula("exp(-sqrt(q))")
	if g := bad.Inverse(-1, 0); !math.IsNaN(g) {
		t.Errorf("exp(-sqrt(q)): g(−1) = %v, want NaN", g)
	}
}

// TestScan: the scan certifies, refutes and leaves undecided the right
// parts of [−1, 1] for x² − 1/4 ≥ 0, and stops at its budget.
func TestScan(t *testing.T) {
	t.Parallel()
	judge := func(x Interval) Outcome {
		v := ISub(IPowInt(x, 2), Point(0.25))
		switch {
		case v.Lo >= 0:
			return Certified
		case v.Hi < 0:
			return Refuted
		}
		return Undecided
	}
	spans := Scan(-1, 1, &ScanSettings{Cells: 8, MaxDepth: 20, Budget: 10000}, judge)
	for _, sp := range spans {
		mid := sp.Lo + (sp.Hi-sp.Lo)/2
		switch sp.Outcome {
		case Certified:
			if math.Abs(mid) < 0.5 {
				t.Errorf("certified span %v inside (−1/2, 1/2)", sp)
			}
		case Refuted:
			if math.Abs(mid) >= 0.5 {
				t.Errorf("refuted span %v outside (−1/2, 1/2)", sp)
			}
		case Undecided:
			if sp.Hi-sp.Lo > 1e-5 || math.Abs(math.Abs(mid)-0.5) > 1e-5 {
				t.Errorf("undecided span %v away from ±1/2", sp)
			}
		}
	}
	if spans[0].Lo != -1 || spans[len(spans)-1].Hi != 1 {
		t.Errorf("spans do not cover [−1, 1]: %v", spans)
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].Lo != spans[i-1].Hi || spans[i].Outcome == spans[i-1].Outcome {
			t.Errorf("spans %v and %v are not adjacent and merged", spans[i-1], spans[i])
		}
	}
	calls := 0
	Scan(-1, 1, &ScanSettings{Cells: 4, MaxDepth: 60, Budget: 50}, func(Interval) Outcome { calls++; return Undecided })
	if calls > 50 {
		t.Errorf("the scan made %d judgements with a budget of 50", calls)
	}
}

// TestKinks: the polynomially tailed loss has a kink at 0 (f′(0⁻) = 1/2,
// f′(0⁺) = 1); a piecewise formula whose pieces meet with equal value and
// slope has none (the negative control of the kink detection).
func TestKinks(t *testing.T) {
	t.Parallel()
	poly, _ := NewFormula("if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)")
	if k := poly.Kinks(); len(k) != 1 || k[0] != 0 {
		t.Errorf("poly kinks = %v, want [0]", k)
	}
	smooth, _ := NewFormula("if q < 0 then exp(-q) else 1 - q + q^2/2")
	if k := smooth.Kinks(); len(k) != 0 {
		t.Errorf("C¹ join: kinks = %v, want none", k)
	}
	jump, _ := NewFormula("if q < 1 then exp(-q) else exp(-2*q)")
	if k := jump.Kinks(); len(k) != 1 || k[0] != 1 {
		t.Errorf("jump: kinks = %v, want [1]", k)
	}
}

func BenchmarkFormulaF(b *testing.B) {
	fm, _ := NewFormula("log(1+exp(-q))")
	var s float64
	for i := 0; i < b.N; i++ {
		s += fm.F(float64(i%100) - 50)
	}
	_ = s
}

func BenchmarkFormulaFPrime(b *testing.B) {
	fm, _ := NewFormula("if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)")
	b.ReportAllocs()
	var s float64
	for i := 0; i < b.N; i++ {
		s += fm.FPrime(float64(i%100) - 50)
	}
	_ = s
}

func BenchmarkEvalInterval(b *testing.B) {
	fm, _ := NewFormula("log(1+exp(-q^3))")
	p := fm.Pieces[0]
	b.ReportAllocs()
	var s Interval
	for i := 0; i < b.N; i++ {
		s = p.IntervalF1(Interval{float64(i % 10), float64(i%10) + 0.5})
	}
	_ = s
}

func BenchmarkInverse(b *testing.B) {
	fm, _ := NewFormula("log(1+exp(-q))")
	b.ReportAllocs()
	var s float64
	for i := 0; i < b.N; i++ {
		s += fm.Inverse(float64(i%50)+1, 0)
	}
	_ = s
}

package losses

import (
	"strings"

	"github.com/implicitbias/implicitbias/symbolic"
)

// ExprPrefix is the prefix of a loss name that ByName reads as a formula:
// "expr:log(1+exp(-q))".
const ExprPrefix = "expr:"

// Expr is a margin loss read from a formula ℓ(q) in q (package symbolic:
// numbers, + − × ÷ ^, exp, log, log1p, expm1, sqrt, abs, if q < b then …
// else …). f = −log ℓ and f′ are the symbolic derivation's stable forms,
// accurate for margins up to 1e6 and beyond; g = f⁻¹ and g′ come from
// safeguarded Newton on them, started at b_f.
type Expr struct {
	fm    *symbolic.Formula
	bf    float64
	kinks []float64
}

// NewExpr parses formula (errors are *symbolic.ParseError, with the
// position of the problem) and finds b_f: the smallest b ≥ 0 such that
// f′(q)q is non-decreasing on (b, ∞) (symbolic.Formula.BF, certified on
// [0, 100], sampled up to 1e6). When there is none (f′q decreases at the
// largest sampled margin), BF is 0, the threshold the margin bookkeeping
// then uses (as for PolyTail); the hypothesis checks report the failure.
func NewExpr(formula string) (*Expr, error) {
	fm, err := symbolic.NewFormula(formula)
	if err != nil {
		return nil, err
	}
	bf := fm.BF(nil).BF
	if bf > 1e300 {
		bf = 0
	}
	return &Expr{fm: fm, bf: bf, kinks: fm.Kinks()}, nil
}

// Formula returns the parsed formula.
func (e *Expr) Formula() *symbolic.Formula { return e.fm }

// Name returns "expr:" and the formula.
func (e *Expr) Name() string { return ExprPrefix + e.fm.Source }

// LogLoss returns log ℓ(q) = −f(q).
func (e *Expr) LogLoss(q float64) float64 { return e.fm.LogLoss(q) }

// DLogLoss returns −f′(q).
func (e *Expr) DLogLoss(q float64) float64 { return -e.fm.FPrime(q) }

// F returns f(q).
func (e *Expr) F(q float64) float64 { return e.fm.F(q) }

// FPrime returns f′(q).
func (e *Expr) FPrime(q float64) float64 { return e.fm.FPrime(q) }

// G returns g(u) = f⁻¹(u), searched from b_f (symbolic.Formula.Inverse).
func (e *Expr) G(u float64) float64 { return e.fm.Inverse(u, e.bf) }

// GPrime returns g′(u) = 1/f′(g(u)).
func (e *Expr) GPrime(u float64) float64 { return 1 / e.fm.FPrime(e.G(u)) }

// BF returns b_f.
func (e *Expr) BF() float64 { return e.bf }

// Kinks returns the breakpoints of a piecewise formula where f or f′ is
// discontinuous (symbolic.Formula.Kinks).
func (e *Expr) Kinks() []float64 { return append([]float64(nil), e.kinks...) }

// exprByName returns the loss named "expr:FORMULA", and false for other names.
func exprByName(name string) (Loss, bool, error) {
	f, ok := strings.CutPrefix(name, ExprPrefix)
	if !ok {
		return nil, false, nil
	}
	m, err := NewExpr(f)
	if err != nil {
		return nil, true, err
	}
	return NewBinary(m), true, nil
}

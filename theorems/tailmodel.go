package theorems

import (
	"math"

	"github.com/implicitbias/implicitbias/losses"
)

// marginTail is what the linear-limit check (linearLimit) knows of a binary
// margin loss ℓ(u), u = y⟨θ, x⟩: its slope −ℓ′(u) > 0 and curvature ℓ″(u),
// which the companion integration of GD's flow needs (logFlow), and its
// exponential tail −ℓ′(u) ~ c·e^{−u} (Soudry et al. 2018, Def. 2, the
// "tight exponential tail"), which sets the computed limit of the residual
// θ − ŵ log T.
type marginTail struct {
	name string
	// slope returns −ℓ′(u); curv returns ℓ″(u).
	slope, curv func(u float64) float64
	// c is the tail constant; expTail reports that −ℓ′(u)e^{u} → c. When
	// it is false (a polynomial tail, or a loss the check cannot name) the
	// limit is computed for the exponential tail e^{−u} all the same: the
	// check then compares the run with the theory whose hypothesis the
	// loss breaks.
	c       float64
	expTail bool
	// known reports that slope and curv are the loss's own; when false
	// they are the exponential model e^{−u} (a loss outside those the
	// check was validated on, tailOf).
	known bool
}

// tailDev returns −ℓ′(u) − c·e^{−u}, the loss's departure from its
// exponential tail (0 without one: the check then holds the run to the
// exponential model, see marginTail).
func (m *marginTail) tailDev(u float64) float64 {
	if !m.expTail {
		return 0
	}
	return m.slope(u) - m.c*math.Exp(-u)
}

// pull returns the tail model's −ℓ′(u): the loss's own slope when it has
// an exponential tail, c·e^{−u} otherwise.
func (m *marginTail) pull(u float64) float64 {
	if m.expTail {
		return m.slope(u)
	}
	return m.c * math.Exp(-u)
}

// expSlope is −ℓ′ = ℓ″ = e^{−u} of the exponential loss.
func expSlope(u float64) float64 { return math.Exp(-u) }

// logisticSlope is −ℓ′(u) = 1/(1 + e^{u}) of ℓ(u) = log(1 + e^{−u}),
// without overflow.
func logisticSlope(u float64) float64 {
	if u > 0 {
		e := math.Exp(-u)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(u))
}

// logisticCurv is ℓ″(u) = σ(u)σ(−u) of the logistic loss.
func logisticCurv(u float64) float64 {
	s := logisticSlope(u)
	return s * (1 - s)
}

// tailProbe are the margins at which the tail constant of a loss without a
// closed form is read: −ℓ′(u)e^{u} at u = 40 and u = 60 must agree to
// tailProbeTol for an exponential tail (any tight exponential tail
// e^{−u}(1 + O(e^{−μu})) with μ ≥ 0.35 does; a polynomial tail's ratio grows
// like e^{20} between them).
var tailProbe = [2]float64{40, 60}

const tailProbeTol = 1e-6

// curvStep is the relative step of the central difference that gives ℓ″
// of a loss known only through its Margin (truncation O(h²) ~ 10⁻⁸
// relative, rounding ~ε/h ~ 10⁻¹²): it enters the modified equation's
// correction, a term ~1/t of the flow, and the budgets.
const curvStep = 1e-4

// tailOf returns the tail model of the loss l (a trajectory's Loss; nil
// when the run did not declare one), computed for the loss it declares
// (declaredMargin): closed forms for exp and logistic, the Margin interface
// and a central difference for ZD's polynomial tail and formula losses
// (losses.Expr), and the exponential model for any other loss (the check
// is validated on the losses of losses.ByName; another PolyTail is a
// negative control of section C).
func tailOf(l losses.Loss) *marginTail {
	name := ""
	if l != nil {
		name = l.Name()
	}
	m := &marginTail{name: name, slope: expSlope, curv: expSlope, c: 1}
	mg, ok := declaredMargin(l)
	if !ok || l.Kind() != losses.Binary {
		return m
	}
	switch v := mg.(type) {
	case losses.Exponential:
		return &marginTail{name: name, slope: expSlope, curv: expSlope, c: 1, expTail: true, known: true}
	case losses.Logistic:
		return &marginTail{name: name, slope: logisticSlope, curv: logisticCurv, c: 1, expTail: true, known: true}
	case losses.PolyTail:
		if v != losses.ZDPolyTail() {
			return m
		}
	case *losses.Expr:
	default:
		return m
	}
	m.known = true
	m.slope = func(u float64) float64 { return math.Exp(mg.LogLoss(u)) * mg.FPrime(u) }
	m.curv = func(u float64) float64 {
		h := curvStep * math.Max(1, math.Abs(u))
		return (m.slope(u-h) - m.slope(u+h)) / (2 * h)
	}
	var c [2]float64
	for i, u := range tailProbe {
		c[i] = math.Exp(mg.LogLoss(u)+u) * mg.FPrime(u)
	}
	if c[0] > 0 && !math.IsInf(c[0], 0) && math.Abs(c[1]/c[0]-1) <= tailProbeTol {
		m.c, m.expTail = c[1], true
	}
	return m
}

// declaredMargin returns the margin loss that l declares: its own
// (losses.MarginOf), or for a margin that stands in for another and says so
// (Unwrap: a planted fault of package faults, which keeps the loss's name
// and changes its values) the one it wraps. A check computes its theory
// for the declared loss, never from the implementation it checks.
func declaredMargin(l losses.Loss) (losses.Margin, bool) {
	if l == nil {
		return nil, false
	}
	m, ok := losses.MarginOf(l)
	if !ok {
		return nil, false
	}
	return declared(m), true
}

// declared returns the margin loss m declares: m, or the one it wraps
// (declaredMargin).
func declared(m losses.Margin) losses.Margin {
	for {
		w, wraps := m.(interface{ Unwrap() losses.Margin })
		if !wraps {
			return m
		}
		m = w.Unwrap()
	}
}

// isExp reports the exponential loss ℓ(u) = e^{−u}.
func isExp(m losses.Margin) bool {
	_, ok := m.(losses.Exponential)
	return ok
}

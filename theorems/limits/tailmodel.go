package limits

import (
	"math"

	"github.com/implicitbias/implicitbias/losses"
)

// marginTail is what the linear-limit check (LinearLimit) knows of a binary
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

// tailOf returns the tail model of the loss l (a trajectory's Loss; nil
// when the run did not declare one), computed for the loss it declares
// (losses.DeclaredMargin): closed forms for exp and logistic, the Margin
// interface and a central difference for ZD's polynomial tail and formula
// losses (losses.Expr), and the exponential model for any other loss (the
// check is validated on the losses of losses.ByName; another PolyTail is a
// negative control of section C). The slopes and the tail constant are
// package losses' (tail.go).
func tailOf(l losses.Loss) *marginTail {
	name := ""
	if l != nil {
		name = l.Name()
	}
	m := &marginTail{name: name, slope: losses.ExpSlope, curv: losses.ExpSlope, c: 1}
	mg, ok := losses.DeclaredMargin(l)
	if !ok || l.Kind() != losses.Binary {
		return m
	}
	switch v := mg.(type) {
	case losses.Exponential:
		return &marginTail{name: name, slope: losses.ExpSlope, curv: losses.ExpSlope, c: 1, expTail: true, known: true}
	case losses.Logistic:
		return &marginTail{name: name, slope: losses.LogisticSlope, curv: losses.LogisticCurv, c: 1, expTail: true, known: true}
	case losses.PolyTail:
		if v != losses.ZDPolyTail() {
			return m
		}
	case *losses.Expr:
	default:
		return m
	}
	m.known = true
	m.slope = func(u float64) float64 { return losses.Slope(mg, u) }
	// ℓ″ by a central difference (losses.CurvStep): it enters the modified
	// equation's correction, a term ~1/t of the flow, and the budgets.
	m.curv = func(u float64) float64 { return losses.CentralCurv(m.slope, u) }
	if c, ok := losses.ExpTail(mg); ok {
		m.c, m.expTail = c, true
	}
	return m
}

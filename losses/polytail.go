package losses

import (
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// PolyTail is the polynomially tailed loss of ZD eq. (19) (Wang et al., 2022):
//
//	ℓ(q) = ℓ_left(q)               for q < β
//	ℓ(q) = (q − (β − 1))^{−α}      for q ≥ β
//
// with ℓ_left the logistic loss shifted by a constant so that ℓ is continuous
// at β (ZD App. C: "the logistic loss shifted to make the overall loss function
// continuous"; we read the shift as vertical):
//
//	ℓ_left(q) = log(1 + e^{−q}) − log(1 + e^{−β}) + 1.
//
// ZD App. C uses α = 1, β = 0. On the right branch f(q) = α log(q − β + 1),
// f′(q) = α/(q − β + 1), so f′(q)q → α: (B3.3) fails, which is the point of
// the loss. The left and right derivatives at β differ (for α = 1, β = 0:
// f′(0⁻) = 1/2, f′(0⁺) = 1), so f is not C¹ there: (B3.1) fails too.
type PolyTail struct {
	Alpha, Beta float64
}

// ZDPolyTail returns the loss of ZD App. C: α = 1, β = 0.
func ZDPolyTail() PolyTail { return PolyTail{Alpha: 1, Beta: 0} }

// Name returns "poly" for ZD's parameters and "poly(α,β)" otherwise.
func (p PolyTail) Name() string {
	if p.Alpha == 1 && p.Beta == 0 {
		return "poly"
	}
	return "poly(" + ftoa(p.Alpha) + "," + ftoa(p.Beta) + ")"
}

// leftShift is c = 1 − log(1 + e^{−β}), so that ℓ_left(q) = log(1+e^{−q}) + c.
func (p PolyTail) leftShift() float64 { return 1 - numerics.Log1pExp(-p.Beta) }

// LogLoss returns log ℓ(q).
func (p PolyTail) LogLoss(q float64) float64 { return -p.F(q) }

// DLogLoss returns −f′(q).
func (p PolyTail) DLogLoss(q float64) float64 { return -p.FPrime(q) }

// F returns f(q) = −log ℓ(q).
func (p PolyTail) F(q float64) float64 {
	if q >= p.Beta {
		return p.Alpha * math.Log1p(q-p.Beta)
	}
	return -math.Log(numerics.Log1pExp(-q) + p.leftShift())
}

// FPrime returns f′(q); at q = β it returns the right derivative α.
func (p PolyTail) FPrime(q float64) float64 {
	if q >= p.Beta {
		return p.Alpha / (q - p.Beta + 1)
	}
	// −ℓ′_left(q) = σ(−q) = 1/(1 + e^{q}).
	return 1 / ((1 + math.Exp(q)) * (numerics.Log1pExp(-q) + p.leftShift()))
}

// G returns the inverse of f: e^{u/α} + β − 1 for u ≥ 0 = f(β), and the
// inverse of the left branch, −log(e^{e^{−u} − c} − 1), for u < 0.
func (p PolyTail) G(u float64) float64 {
	if u >= 0 {
		return math.Exp(u/p.Alpha) + p.Beta - 1
	}
	return -numerics.LogExpm1(math.Exp(-u) - p.leftShift())
}

// GPrime returns g′(u) = 1/f′(g(u)).
func (p PolyTail) GPrime(u float64) float64 {
	if u >= 0 {
		return math.Exp(u/p.Alpha) / p.Alpha
	}
	return 1 / p.FPrime(p.G(u))
}

// BF returns max(β, 0): the loss has no admissible b_f ((B3.3) fails), and
// this is the threshold its margin bookkeeping uses.
func (p PolyTail) BF() float64 { return math.Max(p.Beta, 0) }

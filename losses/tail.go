package losses

import "math"

// The slope and curvature of a binary margin loss ℓ(u), u = y⟨θ, x⟩, and
// its exponential tail: what the companion flows of the linear limits
// (theorems/limits) need of a loss. The slope is
//
//	−ℓ′(u) = e^{−f(u)}·f′(u) > 0,
//
// the curvature ℓ″(u), and a tight exponential tail (Soudry et al. 2018,
// Def. 2) is −ℓ′(u) ~ c·e^{−u} as u → ∞, c the tail constant.

// ExpSlope is −ℓ′(u) = ℓ″(u) = e^{−u} of the exponential loss.
func ExpSlope(u float64) float64 { return math.Exp(-u) }

// LogisticSlope is −ℓ′(u) = 1/(1 + e^{u}) of ℓ(u) = log(1 + e^{−u}),
// without overflow.
func LogisticSlope(u float64) float64 {
	if u > 0 {
		e := math.Exp(-u)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(u))
}

// LogisticCurv is ℓ″(u) = σ(u)σ(−u) of the logistic loss.
func LogisticCurv(u float64) float64 {
	s := LogisticSlope(u)
	return s * (1 - s)
}

// Slope returns −ℓ′(u) = e^{log ℓ(u)}·f′(u) of a margin loss.
func Slope(m Margin, u float64) float64 { return math.Exp(m.LogLoss(u)) * m.FPrime(u) }

// CurvStep is the relative step of CentralCurv (truncation O(h²) ~ 10⁻⁸
// relative, rounding ~ε/h ~ 10⁻¹²).
const CurvStep = 1e-4

// CentralCurv returns ℓ″(u) from the slope −ℓ′ by the central difference
//
//	ℓ″(u) ≈ (slope(u − h) − slope(u + h))/(2h),  h = CurvStep·max(1, |u|),
//
// for a loss known only through its Margin.
func CentralCurv(slope func(float64) float64, u float64) float64 {
	h := CurvStep * math.Max(1, math.Abs(u))
	return (slope(u-h) - slope(u+h)) / (2 * h)
}

// TailProbe are the margins at which ExpTail reads −ℓ′(u)e^{u}: they must
// agree to TailProbeTol for an exponential tail (any tight exponential
// tail e^{−u}(1 + O(e^{−μu})) with μ ≥ 0.35 does; a polynomial tail's ratio
// grows like e^{20} between them).
var TailProbe = [2]float64{40, 60}

// TailProbeTol is the relative agreement ExpTail asks of the two probes.
const TailProbeTol = 1e-6

// ExpTail returns the tail constant c of a margin loss with a tight
// exponential tail, −ℓ′(u)e^{u} → c, read at TailProbe[1], and whether the
// loss has one: c > 0 finite, and the two probes agree to TailProbeTol.
func ExpTail(m Margin) (c float64, ok bool) {
	var p [2]float64
	for i, u := range TailProbe {
		p[i] = math.Exp(m.LogLoss(u)+u) * m.FPrime(u)
	}
	if p[0] > 0 && !math.IsInf(p[0], 0) && math.Abs(p[1]/p[0]-1) <= TailProbeTol {
		return p[1], true
	}
	return 0, false
}

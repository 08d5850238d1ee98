package kkt

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Bounds of LL-I1.
const (
	// HatStartTol bounds |ψ| at the start (Thm I.1's hypothesis ψ = 0): the
	// start is built from φ = 1/(1 − r²), so |ψ| is a few ulps of φ.
	HatStartTol = 1e-9
	// HatCurveTol is the distance |ψ| from the curve ψ = 0 beyond which a
	// trajectory is no longer the flow of Thm I.1 started on it.
	HatCurveTol = 0.1
	// HatMonotoneTol is the relative decrease of γ̃ between records that
	// counts as rounding: γ̃ = g(log 1/𝓛)/ρ^L takes a handful of roundings
	// (≈ 1e-15 relative); 1e-13 leaves room for log 𝓛 near 0.
	HatMonotoneTol = 1e-13
)

// MexicanHatCircling checks LL-I1 (Thm I.1) on a trajectory of the
// Mexican-hat model (models.MexicanHat, θ ∈ ℝ³, started on ψ = 0): θ̂ keeps
// circling — the polar angle φ of (u, v) = (x, y)/ρ grows without bound
// while r = ‖(u, v)‖ → 1 — and γ̃ is non-decreasing.
//
// A finite run shows the circling as a full turn: the unwrapped φ grows by
// at least 2π (then θ̂ has no single limit; its limit points fill the
// circle). The statistic is 2π/Δφ (holds when ≤ 1). It is violated when γ̃
// decreases beyond rounding, or when r has moved far enough toward 1 that
// the theorem's invariant ψ = 0 predicts a full turn — Δ(1/(1 − r²)) ≥ 2π —
// while φ turned by less than π: θ̂ then converges (to a point of the circle)
// instead of circling. Otherwise the run was too short (inconclusive). The
// records must keep θ densely enough that φ moves by less than π/2 between
// them (unwrapping). A trajectory that leaves the curve (|ψ| > HatCurveTol)
// without deciding is reported as assumption-failed: the curve is unstable
// (perturbations grow at a rate of order 1 per unit time), so a
// discretized flow leaves it unless it is integrated far more accurately
// than the ~e^{2π} time units a turn takes allow; MexicanHatFlow checks
// the theorem's mechanism pointwise instead.
func MexicanHatCircling(tr *train.Trajectory) theorems.Verdict {
	type pt struct{ phi, r, gt float64 }
	var pts []pt
	var prev float64
	psiMax := 0.0
	for _, rec := range tr.Records {
		th := rec.Theta
		if th == nil {
			continue
		}
		if len(th) != 3 {
			return theorems.Assumption("LL-I1 is about the Mexican hat on θ ∈ ℝ³; θ has %d entries", len(th))
		}
		rho := math.Sqrt(th[0]*th[0] + th[1]*th[1] + th[2]*th[2])
		u, v := th[0]/rho, th[1]/rho
		r := math.Hypot(u, v)
		a := math.Atan2(v, u)
		phi := a
		if len(pts) > 0 {
			d := math.Remainder(a-prev, 2*math.Pi)
			if math.Abs(d) > math.Pi/2 {
				return theorems.Undecided("records too sparse to follow the polar angle (it moved %.3g rad between steps %d and the previous record)", d, rec.Step)
			}
			phi = pts[len(pts)-1].phi + d
		}
		prev = a
		if len(pts) == 0 {
			if !(r > 0 && r < 1) {
				return theorems.Assumption("Thm I.1 starts with 0 < r < 1; r = %.6g", r)
			}
			if psi := math.Remainder(phi-1/(1-r*r), 2*math.Pi); math.Abs(psi) > HatStartTol {
				return theorems.Assumption("Thm I.1 starts on ψ = φ − 1/(1−r²) = 0; ψ = %.3g", psi)
			}
		}
		if r < 1 {
			psiMax = math.Max(psiMax, math.Abs(math.Remainder(phi-1/(1-r*r), 2*math.Pi)))
		}
		pts = append(pts, pt{phi, r, rec.SmoothedMargin})
	}
	if len(pts) < 2 {
		return theorems.Undecided("fewer than two records with θ")
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].gt < pts[i-1].gt*(1-HatMonotoneTol) {
			return violatedBy(fmt.Sprintf("γ̃ decreased from %.17g to %.17g between records %d and %d", pts[i-1].gt, pts[i].gt, i-1, i))
		}
	}
	first, last := pts[0], pts[len(pts)-1]
	dphi := last.phi - first.phi
	inv := func(r float64) float64 {
		if r >= 1 {
			return math.Inf(1)
		}
		return 1 / (1 - r*r)
	}
	da := inv(last.r) - inv(first.r)
	detail := fmt.Sprintf("polar angle %.4g → %.4g (Δφ = %.4g rad), r %.6g → %.6g (Δ 1/(1−r²) = %.4g), max |ψ| %.2g, γ̃ %.10g → %.10g",
		first.phi, last.phi, dphi, first.r, last.r, da, psiMax, first.gt, last.gt)
	stat := 2 * math.Pi / dphi
	if dphi <= 0 {
		stat = math.Inf(1)
	}
	switch {
	case dphi >= 2*math.Pi && last.r > first.r:
		return theorems.Verdict{Status: theorems.Holds, Statistic: stat, Bound: 1, Detail: detail}
	case da >= 2*math.Pi && math.Abs(dphi) < math.Pi:
		return theorems.Verdict{Status: theorems.Violated, Statistic: stat, Bound: 1, Detail: "r → 1 but the direction does not circle: " + detail}
	case psiMax > HatCurveTol:
		return theorems.Assumption("the trajectory left the invariant curve ψ = 0, so it is not the flow of Thm I.1 (the curve is unstable: discretization errors grow until θ̂ falls into the valley ψ = π/2, where a turn takes time ~e^{1/(1−r²)}): %s", detail)
	}
	v := theorems.Undecided("the run ended before a full turn: %s", detail)
	v.Statistic, v.Bound = stat, 1
	return v
}

// HatInvarianceBound is the bound of MexicanHatFlow on |dψ/dt| relative to
// |φ̇| + |(d/dr)(1/(1−r²))·ṙ|, times the cancellation factor κ = ‖∇h‖/‖P∇h‖
// of the tangential projection P: the gradient is exact to a few ulps, and
// the projection loses a factor κ (the radial part L·h/ρ dominates when
// f ≈ e^{−1/(1−r²)} is small); 1e-12 is ~50 ulps.
const HatInvarianceBound = 1e-12

// MexicanHatFlow checks, at a point θ ∈ ℝ³ of the curve ψ = φ − 1/(1−r²) = 0
// with 0 < r < 1, the mechanism of LL Thm I.1 for the Mexican-hat model m:
// under the flow dθ/dt ∝ ∇h (the flow of 𝓛 = Σ_n e^{−h} is ∇h times
// N e^{−h} > 0), with (u, v) = (r cos φ, r sin φ) the first two coordinates
// of θ̂,
//
//	dψ/dt = φ̇ − (2r/(1−r²)²)·ṙ = 0   (the curve is invariant),
//	ṙ > 0 and φ̇ > 0                  (r → 1 and the polar angle grows),
//	⟨∇γ̃, ∇h⟩ ≥ 0                     (γ̃ = (h − log N)/ρ^L does not decrease).
//
// Together they give the theorem: on the curve φ = 1/(1−r²) + const, so φ
// is unbounded exactly when r → 1. The statistic is |dψ/dt| relative to the
// two terms it is the difference of (bound HatInvarianceBound·max(1, κ)).
// N is the number of samples (for γ̃).
func MexicanHatFlow(m models.Model, theta []float64, N int) theorems.Verdict {
	if m.NumParams() != 3 || len(theta) != 3 || m.Out() != 1 {
		return theorems.Assumption("LL Thm I.1 is about the Mexican hat on θ ∈ ℝ³; model %s has %d parameters", m, m.NumParams())
	}
	d := m.Degree()
	if !d.Homogeneous {
		return theorems.Assumption("(A2) homogeneity: model %s is %s", m, d)
	}
	L := d.Order
	rho := math.Sqrt(theta[0]*theta[0] + theta[1]*theta[1] + theta[2]*theta[2])
	u, v := theta[0]/rho, theta[1]/rho
	r := math.Hypot(u, v)
	if !(r > 0 && r < 1) {
		return theorems.Assumption("Thm I.1 needs 0 < r < 1; r = %.6g", r)
	}
	a := 1 / (1 - r*r)
	if psi := math.Remainder(math.Atan2(v, u)-a, 2*math.Pi); math.Abs(psi) > HatStartTol {
		return theorems.Assumption("θ is not on the curve ψ = φ − 1/(1−r²) = 0: ψ = %.3g", psi)
	}
	g := models.NewGrader(m)
	grad := make([]float64, 3)
	h := g.Grad(theta, make([]float64, m.In()), 0, grad)
	// Tangential velocity of θ̂: (θ̇ − θ̂⟨θ̂, θ̇⟩)/ρ.
	rad := (theta[0]*grad[0] + theta[1]*grad[1] + theta[2]*grad[2]) / rho
	var tang [3]float64
	for i := range tang {
		tang[i] = (grad[i] - theta[i]/rho*rad) / rho
	}
	tn := math.Sqrt(tang[0]*tang[0] + tang[1]*tang[1] + tang[2]*tang[2])
	gn := math.Sqrt(grad[0]*grad[0]+grad[1]*grad[1]+grad[2]*grad[2]) / rho
	rdot := (u*tang[0] + v*tang[1]) / r
	phidot := (u*tang[1] - v*tang[0]) / (r * r)
	da := 2 * r * a * a
	psidot := phidot - da*rdot
	scale := math.Abs(phidot) + math.Abs(da*rdot)
	if scale == 0 || tn == 0 {
		return violatedBy(fmt.Sprintf("θ̂ does not move on the sphere (ṙ = %.3g, φ̇ = %.3g): no circling", rdot, phidot))
	}
	kappa := gn / tn
	// dγ̃/dt ∝ ⟨∇γ̃, ∇h⟩ = (‖∇h‖² − L²h(h − log N)/ρ²)/ρ^L (Euler: ⟨θ, ∇h⟩ = Lh).
	g2 := grad[0]*grad[0] + grad[1]*grad[1] + grad[2]*grad[2]
	dgt := g2 - L*L*h*(h-math.Log(float64(N)))/(rho*rho)
	detail := fmt.Sprintf("r = %.6g, ρ = %.4g, L = %g: φ̇ = %.6g, (d/dr)(1/(1−r²))·ṙ = %.6g, dψ/dt = %.3g, κ = %.3g, ⟨∇γ̃, ∇h⟩·ρ^L = %.4g", r, rho, L, phidot, da*rdot, psidot, kappa, dgt)
	v1 := theorems.Compare(math.Abs(psidot)/scale, HatInvarianceBound*math.Max(1, kappa), detail)
	switch {
	case v1.Status != theorems.Holds:
		v1.Detail = "the curve ψ = 0 is not invariant: " + detail
		return v1
	case !(rdot > 0):
		return violatedBy("r does not grow on the curve: " + detail)
	case !(phidot > 0):
		return violatedBy("the polar angle does not grow on the curve: " + detail)
	case dgt < -1e-12*g2:
		return violatedBy("γ̃ decreases along the flow: " + detail)
	}
	return v1
}

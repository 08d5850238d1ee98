package kkt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Decision rule of LL-4.5's trend check (NTKAlignment; LL-4.4 and LL-A9
// decide by the theorem's own bounds, kktconvergence.go). A claim "X → 0 along
// training" is tested on a finite run by comparing X in the last recorded
// window with its largest value over the windows after t0, and by whether
// the direction θ̂ still moves:
//
//	X_last ≤ ShrinkFactor·max X        holds: X at least halved from its peak
//	θ̂ frozen and X_last > 0            violated: the direction has converged
//	                                   (moved less than FrozenAngle over the
//	                                   second half of the windows) to a point
//	                                   where X is not 0, so its limit is not
//	                                   what the theorem says
//	otherwise                          inconclusive: θ̂ still moves and X has
//	                                   not yet halved; the run was too short
//
// A finite run cannot refute "→ 0" while the direction is still moving, so
// there is no other way to be violated. ShrinkFactor is the test's demand,
// not a fitted tolerance: a quantity that tends to 0 eventually falls below
// any fraction of its peak, and halving is the smallest demand that is more
// than "decreased". FrozenAngle is far above the rounding of θ̂ (~1e-16) and
// far below any movement of a direction that converges at the rates of LL
// §4 (≳ 1/log t) over half a run.
const (
	ShrinkFactor = 0.5
	FrozenAngle  = 1e-9
	// frozenFloor is the value below which X counts as 0 for a frozen
	// direction (X is relative: ε/‖θ̃‖, 1 − β, an angle).
	frozenFloor = 1e-9
)

// trend classifies ratio = X_last/max X for a quantity that should tend to
// 0; drift is the largest angle of θ̂ over the second half of the windows and
// last the relative size of X at the last window.
func trend(ratio, drift, last float64, detail string) theorems.Verdict {
	v := theorems.Verdict{Statistic: ratio, Bound: ShrinkFactor, Detail: detail}
	switch {
	case ratio <= ShrinkFactor:
		v.Status = theorems.Holds
	case drift <= FrozenAngle && last > frozenFloor:
		v.Status = theorems.Violated
		v.Detail = fmt.Sprintf("the direction is frozen (moved %.2g rad over the second half) at a point where the quantity is %.4g, not 0: %s", drift, last, detail)
	default:
		v.Status = theorems.Inconclusive
		v.Detail = fmt.Sprintf("θ̂ still moves (%.2g rad over the second half) and the quantity has not yet halved from its peak: %s", drift, detail)
	}
	return v
}

// NTKAlignment checks LL-4.5 (Cor 4.5, Lemma C.13) on a trajectory of a
// smooth network ((S1)): late in training θ is, up to scale, the solution w*
// of the hard-margin SVM in the gradient-feature space at θ,
//
//	minimize ½‖w‖²  s.t.  y_n⟨w, ∇Φ(θ; x_n)⟩ ≥ 1,
//
// whose kernel is K(x, x') = ⟨∇Φ_x(θ), ∇Φ_x'(θ)⟩. The angle ∠(θ, w*)
// (KKT.SVMAngle) is measured at every window after t0; the statistic is its
// last value over its peak (see trend). At every one-record window it also
// checks the duality identity behind Lemma C.13 made quantitative (see
// KKT.Gap): with x = θ̃/L,
//
//	(ε²/2 + L·δ)/L² = ½‖x‖² − ½‖w*‖²,
//
// which holds exactly when Euler's identity holds and the SVM's dual is
// optimal (Σα = ‖w*‖²); it ties the SVM solver to the KKT residuals. The
// tolerance is 1e-8 of ½‖x‖²: the SVM is solved to KKT residual 1e-10 and
// Euler's identity holds to 1e-10 (EulerBound), each entering once per
// constraint.
func NTKAlignment(obj *train.Objective, tr *train.Trajectory, L float64) theorems.Verdict {
	if k, ok := obj.Model.(interface{ Kinked() bool }); ok && k.Kinked() {
		return theorems.Assumption("(S1) Cor 4.5 is stated for smooth (C²) networks; %s is only piecewise smooth", obj.Model)
	}
	// The steps first (explicit gradient methods with consecutive
	// records): a step that is not −η∇𝓛 is not the dynamics Cor 4.5 is
	// about, whatever the angle does.
	steps, err := checkDescentSteps(obj, tr)
	if err != nil {
		return measureVerdict(err)
	}
	if v := steps.verdict(); v != nil {
		return *v
	}
	ks, drift, bad := measureAll(obj, tr, L)
	if bad != nil {
		return *bad
	}
	ws := Windows(tr, true)
	for i, k := range ks {
		if len(ws[i]) != 1 {
			continue
		}
		x2 := k.ThetaTildeNorm * k.ThetaTildeNorm / (k.L * k.L)
		primal := (x2 - k.SVM.NormSq) / 2
		if e := math.Abs(k.Gap-primal) / (x2 / 2); !(e <= 1e-8) {
			return violatedBy(fmt.Sprintf("window at step %d: the duality gap from the KKT residuals, %.10g, differs from ½‖θ̃/L‖² − ½‖w*‖² = %.10g by %.3g of ½‖θ̃/L‖² (Euler's identity or the SVM's optimality fails)", ws[i][0].Step, k.Gap, primal, e))
		}
	}
	first, last := ks[0], ks[len(ks)-1]
	r, p := peakRatio(ks, func(k *KKT) float64 { return k.SVMAngle })
	return trend(r, drift, last.SVMAngle, fmt.Sprintf("%d windows after t0: ∠(θ, w*) %.4g rad (peak %.4g) → %.4g (×%.3g); ‖w*‖ %.4g → %.4g",
		len(ks), first.SVMAngle, ks[p].SVMAngle, last.SVMAngle, r, floats.Norm(first.SVM.W, 2), floats.Norm(last.SVM.W, 2)))
}

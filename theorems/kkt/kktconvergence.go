package kkt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Decision rule of LL-4.5's trend check (NTKAlignment; LL-4.4 and LL-A9
// decide by the theorem's own bounds, kkttail.go). A claim "X → 0 along
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

// secondHalfDrift returns the largest angle between θ at the last window
// and θ at the windows of the second half.
func secondHalfDrift(ws [][]train.Record) float64 {
	last := ws[len(ws)-1][0].Theta
	d := 0.0
	for _, w := range ws[len(ws)/2:] {
		d = math.Max(d, numerics.Angle(w[0].Theta, last))
	}
	return d
}

// KKTConvergence checks LL-4.4 (Thm 4.4, A.8, E.3) on a trajectory: the
// direction of θ(t) approaches KKT points of (P), so the KKT residuals ε
// and δ of θ̃ = θ/q_min^{1/L} (MeasureKKTWindow, the multipliers that
// minimize ε²/2 + Lδ) tend to 0. The proof bounds them by Lemma C.8 and
// Cor C.10, and so does the check, from the measured trajectory
// (kkttail.go): for every pair of windows of the second half of the run
// (in log ρ) some window from one to the other must have
//
//	g = (ε²/2 + Lδ)/‖θ̃‖² ≤ C_ij/2 + max d     and     β^{−2} − 1 ≤ C_ij,
//
// C_ij = (1/L)Δlog γ̃/Δlog ρ between the two windows and d = Lδ_C8/‖θ̃‖² the
// Lemma C.8 certificate's δ; the statistic is the worse of the two worst
// ratios (TailBound). Along every pair of consecutive records of a gradient
// method the step must be −η∇𝓛 (StepIdentityUlps): Lemma C.9 rests on it.
// The case is inconclusive while the tightest gap bound over the second
// half is not below the largest g after t0.
//
// The trajectory must keep θ (train.Config.KeepTheta) at several times
// after separation; any train.Trajectory works (gradient descent, a
// loss-based schedule, an integrated flow); windows of two or more
// consecutive records let the step identity be checked. L = 0 derives the
// order.
func KKTConvergence(obj *train.Objective, tr *train.Trajectory, L float64) theorems.Verdict {
	ws, steps, L, bad := tailSetup(obj, tr, L)
	if bad != nil {
		return *bad
	}
	first, last := ws[0], ws[len(ws)-1]
	return gapDecision(ws, L, steps, "g", func(w tailWindow) float64 { return w.gap },
		fmt.Sprintf("; ε/‖θ̃‖ %.4g → %.4g, δ %.4g → %.4g, d %.4g → %.4g", first.eps, last.eps, first.del, last.del, first.d, last.d))
}

// BetaConvergence checks LL-A9 (Thm A.9, E.4) on a trajectory: the proof
// makes θ̃ an (ε, δ)-KKT point with the multipliers of Lemma C.8, ε² =
// ‖θ̃‖²(2 − 2β) ≤ C₁²(1 − β) and δ = δ_C8 ≤ C₂/log(1/𝓛), and 1 − β → 0 at the
// rate Cor C.10 gives from the growth of γ̃ and ρ. The check computes the
// certificate's normalized gap g_C8 = (ε²/2 + Lδ)/‖θ̃‖² = (1 − β) + d at
// every window and requires, for every pair of windows of the second half
// of the run (in log ρ), some window from one to the other with
//
//	g_C8 ≤ C_ij/2 + max d     and     β^{−2} − 1 ≤ C_ij
//
// (kkttail.go; the statistic is the worse of the two worst ratios,
// TailBound); along every pair of consecutive records of a gradient method
// the step must be −η∇𝓛 (StepIdentityUlps). The case is inconclusive while
// the tightest bound over the second half is not below the largest g_C8
// after t0, and when log(1/𝓛) ≤ 0 (δ = C₂/log(1/𝓛) undefined) it fails the
// assumption. β over a window of a kinked model uses the summed gradients
// (MeasureKKTWindow). (Deciding on 1 − β alone, the bound C_ij of linear GD
// stays ≈ κ − 1 ~ 0.1 from Lemma B.5's slack while β^{−2} − 1 ~ 1/log² T is
// below it from the start on 194 of 300 cases: undecidable at this run
// length; δ's part decays with 𝓛 and decides.)
func BetaConvergence(obj *train.Objective, tr *train.Trajectory, L float64) theorems.Verdict {
	ws, steps, L, bad := tailSetup(obj, tr, L)
	if bad != nil {
		return *bad
	}
	first, last := ws[0], ws[len(ws)-1]
	if u := -first.logL; !(u > 0) {
		return theorems.Assumption("log(1/𝓛) = %.4g ≤ 0 at the first window: δ = C₂/log(1/𝓛) is not defined", u)
	}
	return gapDecision(ws, L, steps, "g_C8", func(w tailWindow) float64 { return w.cert },
		fmt.Sprintf("; 1−β %.4g → %.4g, d %.4g → %.4g, log(1/𝓛) %.4g → %.4g", first.oneMinusB, last.oneMinusB, first.d, last.d, -first.logL, -last.logL))
}

// gapDecision applies the two tail bounds, β^{−2} − 1 ≤ C_ij and gap(w) ≤
// C_ij/2 + max d, and decides on the gap (the β bound is the chain's
// premise: it is reported when it fails).
func gapDecision(ws []tailWindow, L float64, steps *descentCheck, name string, gap func(tailWindow) float64, extra string) theorems.Verdict {
	beta := tailBounds(ws, L, func(w tailWindow) float64 { return w.b }, func(_, _ int, c float64) float64 { return c })
	g := tailBounds(ws, L, gap, func(i, j int, c float64) float64 {
		d := 0.0
		for k := i; k <= j; k++ {
			d = math.Max(d, ws[k].d)
		}
		return math.Max(c, 0)/2 + d
	})
	if beta.pairs > 0 && beta.worst > TailBound {
		return beta.decide("β^{−2} − 1 (the Cor C.10 step of the chain)", steps, extra)
	}
	v := g.decide(name, steps, extra)
	if beta.pairs > 0 {
		// The statistic is the worse of the two ratios (both against 1).
		v.Statistic = math.Max(v.Statistic, beta.worst)
		v.Detail += fmt.Sprintf("; Cor C.10 on β^{−2} − 1: worst ratio %.3g", beta.worst)
	}
	return v
}

// tailSetup checks the setting, the descent-step identity and measures the
// windows (at least three after t0).
func tailSetup(obj *train.Objective, tr *train.Trajectory, L float64) ([]tailWindow, *descentCheck, float64, *theorems.Verdict) {
	_, L, bad := kktSetting(obj, L)
	if bad != nil {
		return nil, nil, 0, bad
	}
	steps, err := checkDescentSteps(obj, tr)
	if err != nil {
		v := measureVerdict(err)
		return nil, nil, 0, &v
	}
	if v := steps.verdict(); v != nil {
		return nil, nil, 0, v
	}
	ws, bad := measureTail(obj, tr, L)
	if bad != nil {
		return nil, nil, 0, bad
	}
	if len(ws) < 3 {
		v := theorems.Undecided("fewer than three recorded windows with θ after t0 (%d): record θ at more steps after the loss falls below ℓ(b_f) (t₀): a few dozen records after separation, e.g. spaced geometrically to the end of the run", len(ws))
		return nil, nil, 0, &v
	}
	return ws, steps, L, nil
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

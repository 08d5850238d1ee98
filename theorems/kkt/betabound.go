package kkt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// BetaWindowBound checks LL-C10 (Cor C.10) on a densely recorded trajectory:
// for t₂ > t₁ ≥ t₀ some t* ∈ (t₁, t₂) has
//
//	β(t*)^{−2} − 1 ≤ (1/L)·(log γ̃(t₂) − log γ̃(t₁)) / (log ρ(t₂) − log ρ(t₁)),
//
// with β = cos∠(θ, −∇𝓛). The records after t0 are grouped into windows
// (Windows): β of a window uses its summed gradients (MeasureKKTWindow: the
// Clarke combination gradient descent realizes on a ReLU network), ρ and γ̃
// its first record. Every pair of windows with at least one window strictly
// between them is tested, t* ranging over those windows (a sparser
// recording can only make the left side larger, so a pass is evidence and
// a failure names the pair). The statistic is the largest
// ratio min_{t*}(β^{−2} − 1) / RHS; the claim holds when it is ≤ 1 + slack.
// slack is the caller's bound on the trajectory's discretization error
// relative to the right side (0 for an exact flow; see the property tests
// for how a gradient-descent run derives it); a right side ≤ 0 (γ̃ did not
// grow) fails unless some β(t*) = 1. The corollary rests on θ moving
// along −∇𝓛 (Lemma C.9, eq. (15)): along every pair of consecutive records
// of a gradient method the step must be −η∇𝓛 to rounding
// (StepIdentityUlps), or the check is violated.
func BetaWindowBound(obj *train.Objective, tr *train.Trajectory, L, slack float64) theorems.Verdict {
	_, L, bad := kktSetting(obj, L)
	if bad != nil {
		return *bad
	}
	steps, err := checkDescentSteps(obj, tr)
	if err != nil {
		return measureVerdict(err)
	}
	if v := steps.verdict(); v != nil {
		return *v
	}
	var recs []train.Record
	var gap []float64 // β^{−2} − 1 at each window
	for _, w := range Windows(tr, true) {
		beta, err := windowBeta(obj, w)
		if err != nil {
			return measureVerdict(err)
		}
		if !(beta > 0) {
			return theorems.Assumption("β = %.4g ≤ 0 at step %d after t0 contradicts ⟨θ, −∇𝓛⟩ = Lν > 0 (LL-B4): not a homogeneous model", beta, w[0].Step)
		}
		if !(w[0].SmoothedMargin > 0) {
			return theorems.Assumption("γ̃ = %v at step %d: not separated", w[0].SmoothedMargin, w[0].Step)
		}
		recs = append(recs, w[0])
		gap = append(gap, 1/(beta*beta)-1)
	}
	if len(recs) < 3 {
		// Too few records after t0 to test the corollary; but its premise,
		// every step −η∇𝓛 (Lemma C.9), holds for gradient descent at every
		// step, separated or not: a run whose steps leave it (a stray
		// preconditioner can also keep the run from reaching t0; soak seed
		// 1795706067141635, mlp:relu:2x6 N=5) is violated, not undecided.
		all, err := checkDescentStepsIn(obj, tr, false)
		if err != nil {
			return measureVerdict(err)
		}
		if v := all.verdict(); v != nil {
			return *v
		}
		return theorems.Undecided("fewer than three records with θ after t0 (%d)", len(recs))
	}
	worst, detail := math.Inf(-1), ""
	pairs := 0
	for i := 0; i < len(recs); i++ {
		inner := math.Inf(1)
		for j := i + 2; j < len(recs); j++ {
			inner = math.Min(inner, gap[j-1])
			dr := math.Log(recs[j].Rho) - math.Log(recs[i].Rho)
			if !(dr > 0) {
				continue // ρ did not grow: the corollary's window is empty
			}
			rhs := (math.Log(recs[j].SmoothedMargin) - math.Log(recs[i].SmoothedMargin)) / (L * dr)
			pairs++
			var ratio float64
			switch {
			case inner == 0:
				ratio = 0
			case rhs <= 0:
				ratio = math.Inf(1)
			default:
				ratio = inner / rhs
			}
			if ratio > worst {
				worst = ratio
				detail = fmt.Sprintf("steps %d–%d: min β^{−2}−1 = %.6g over %d records, (1/L)Δlog γ̃/Δlog ρ = %.6g (Δlog ρ = %.4g)", recs[i].Step, recs[j].Step, inner, j-i-1, rhs, dr)
			}
		}
	}
	if pairs == 0 {
		// As with too few records: the premise is checked on every step,
		// separated or not. A stray preconditioner can act only before t0
		// and leave a run whose steps after it round to nothing (soak seed
		// 1795883474982697, linear in=3 N=7 exp: step 0→1 pushes ρ to 72,
		// 𝓛 ≈ e^{−45}, θ frozen in floating point): violated, not undecided.
		all, err := checkDescentStepsIn(obj, tr, false)
		if err != nil {
			return measureVerdict(err)
		}
		if v := all.verdict(); v != nil {
			return *v
		}
		return theorems.Undecided("ρ did not grow between any two records after t0")
	}
	return theorems.Compare(worst, 1+slack, fmt.Sprintf("worst of %d windows: %s; %v", pairs, detail, steps))
}

// windowBeta returns β = cos∠(θ₁, −Σ_s ∇𝓛(θ_s)) over a window of
// consecutive records (pointwise for one record); see MeasureKKTWindow for
// why a window is summed.
func windowBeta(obj *train.Objective, w []train.Record) (float64, error) {
	P := obj.Model.NumParams()
	descent := make([]float64, P)
	var logL0 float64
	for s, r := range w {
		ev, err := obj.Evaluate(r.Theta, true)
		if err != nil {
			return 0, err
		}
		if s == 0 {
			logL0 = ev.LogLoss
		}
		floats.AddScaled(descent, -math.Exp(ev.LogLoss-logL0), ev.Dir)
	}
	rho, dn := floats.Norm(w[0].Theta, 2), floats.Norm(descent, 2)
	if rho == 0 || dn == 0 {
		return 0, fmt.Errorf("degenerate window at step %d: ‖θ‖ = %g, ‖Σ∇𝓛‖ = %g", w[0].Step, rho, dn)
	}
	return floats.Dot(w[0].Theta, descent) / (rho * dn), nil
}

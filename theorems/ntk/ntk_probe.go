package ntk

import "github.com/implicitbias/implicitbias/theorems"

// Probes: a sweep is decided by one of its jobs when that job alone is
// violated. The checks of ZD-T4/L5, ZD-T6 and ZD-T9 first test each
// (width, seed, μ) on its own — its measurements finite, its hypotheses
// (W^L(0) = 0, λ_min(Θ^{(0)}) > 0, and for ZD-T6 and ZD-T9 the training
// risk), its linearized run on GD on eq. (11) (LinPath), and for ZD-T6
// and ZD-T9 Lemma 18's and App. D.6's bounds at its end — and only then fit
// the gaps across the widths. A violation found by the per-run tests of a
// job whose own hypotheses hold is a counterexample whatever the other
// jobs measure, so properties/ntk trains a sweep's narrowest (cheapest)
// job first and stops there when its probe is violated (an engine fault
// that leaves the linearized path is caught on every job: issue 28's
// "decide as soon as the evidence allows"); any other probe verdict lets
// the sweep go on, and the sweep's verdict is then the full check's, on
// the same runs. The one difference from a full sweep: there, a
// hypothesis failing in another job would be reported first
// (assumption-failed) instead of this job's violation.

// probeUndecided is a probe's verdict when its per-run tests find nothing:
// the sweep must go on (the fits need every width).
var probeUndecided = theorems.Undecided("one job's per-run tests pass: the fits across the widths decide")

// ProbeApproximation returns NTKApproximation's per-run verdict on the
// runs of one job and whether it decides the sweep (violated).
func ProbeApproximation(runs []GapRun) (theorems.Verdict, bool) {
	return decided(ntkApproximation(runs, true))
}

// ProbeRegularized is ProbeApproximation for RegularizedWidthGap.
func ProbeRegularized(runs []RegRun, eps float64) (theorems.Verdict, bool) {
	return decided(regularizedWidthGap(runs, eps, true))
}

// ProbeSign is ProbeApproximation for SignAgreement.
func ProbeSign(runs []SignRun) (theorems.Verdict, bool) {
	return decided(signAgreement(runs, true))
}

func decided(v theorems.Verdict) (theorems.Verdict, bool) {
	return v, v.Status == theorems.Violated
}

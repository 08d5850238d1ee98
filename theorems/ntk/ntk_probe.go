package ntk

import "github.com/implicitbias/implicitbias/theorems"

// Probes: a sweep is decided by one of its jobs when that job alone
// settles the verdict. The checks of ZD-T4/L5, ZD-T6 and ZD-T9 first test
// each (width, seed, μ) on its own — its measurements finite, its
// hypotheses (W^L(0) = 0, λ_min(Θ^{(0)}) > 0; for ZD-T9 also q* > 0,
// separable gradient features and the training risk ε < 1/4), its
// linearized run on GD on eq. (11) (LinPath), ZD-T6's hypothesis (14) on
// the training risk, and for ZD-T6 and ZD-T9 Lemma 18's and App. D.6's
// bounds at its end — and only then fit the gaps across the widths.
// properties/ntk trains a sweep's narrowest (cheapest) job first and stops
// there when the claim's own check, on that job alone, finds
//
//   - a violation by those per-run tests, its own hypotheses holding: a
//     counterexample whatever the other jobs measure (an engine fault that
//     leaves the linearized path is caught on every job: issue 28's
//     "decide as soon as the evidence allows"); or
//   - a hypothesis failing that the check reads before any violation of
//     any job (all of them but ZD-T6's (14), which comes after the path
//     tests: a fault of the regularizer raises the risk, and must be
//     reported as such): the sweep's verdict is then assumption-failed
//     whatever its other jobs hold.
//
// A NaN measurement of the job makes it invalid (assumption-failed), as it
// makes the whole sweep. Any other probe verdict lets the sweep go on, and
// the sweep's verdict is then the full check's, on the same runs. The
// difference from judging a whole sweep: a hypothesis failing in another
// job would be reported before this job's violation, and a NaN
// measurement in another job would make the sweep invalid (neither happens
// on the sweeps of the catalog).

// ProbeApproximation returns NTKApproximation's per-run verdict on the
// runs of one job and whether it decides the sweep (violated or
// assumption-failed).
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
	return v, v.Status == theorems.Violated || v.Status == theorems.AssumptionFailed
}

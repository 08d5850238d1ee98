package cases

import (
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// RecordRun trains θ (in place) with opt for about steps steps and records
// windows of burst consecutive steps with θ kept at steps 1, growth,
// growth², … (train.RunWindows), which is what the trajectory checks of
// section C read (kkt.Windows).
func RecordRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps, burst int, growth float64) (*train.Trajectory, error) {
	return RecordRunUntil(obj, opt, theta, steps, burst, growth, nil)
}

// DenseRun trains θ (in place) for steps steps and records a window of
// burst consecutive steps every every steps (θ kept): the dense recording
// of LL-C10.
func DenseRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps, every, burst int) (*train.Trajectory, error) {
	return DenseRunUntil(obj, opt, theta, steps, every, burst, nil)
}

// DenseRunUntil is DenseRun ended where stop says (nil: never).
func DenseRunUntil(obj *train.Objective, opt train.Optimizer, theta []float64, steps, every, burst int, stop func(*train.Trajectory) bool) (*train.Trajectory, error) {
	return train.RunWindows(obj, opt, theta, train.WindowPlan{Steps: steps, Burst: burst, Every: every, Stop: stop})
}

// LogRun trains θ (in place) for steps steps and records θ at steps
// growing by 1.2× (windows of one record).
func LogRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps int) (*train.Trajectory, error) {
	return RecordRun(obj, opt, theta, steps, 1, 1.2)
}

// Tolerance of the monotonicity flows: relative and absolute local error
// per coordinate. At 1e-10 the summed error bound of log γ̃ stays orders of
// magnitude below its growth on the generated cases (the check measures
// this and is inconclusive otherwise).
const FlowTol = 1e-10

// Stopping a control's windowed run once its verdict is decided (issue 28
// item 3), section C's form of properties/classification's stopWhenViolated (the
// argument is that file's; docs/speed.md, "Stopping the controls").
//
// A control is caught only by a violated verdict. Its run is judged at
// record milestones — the first record at or after step FirstJudge, then
// at or after JudgeGrowth times the last milestone — and ends at the first
// milestone where check is violated; the records up to that step are the
// full run's, bit for bit (train.SoFar), and the verdict is then
// recomputed from them by the caller. A fault control (clean not nil: the
// claim's run of the same case without the fault) stops only where clean,
// cut at the same step, holds: the fault controls' validity rule
// (properties.Decide) applied at the shorter length, so that a catch there
// is one the correct engine does not make at that length. A run never
// violated at a milestone trains to its full length and is judged as
// before, so a control is caught as often as before or more, never less.
// Claims are never stopped.

// FirstJudge is the first step at which a control's run is judged (as in
// section E: at t = 1000 the 1.5× grid has 17 records, the window
// [T^{1/2}, T] 9 of them).
const FirstJudge = 1000

// JudgeGrowth spaces the milestones: a run decided between two of them
// trains at most JudgeGrowth times the steps it needed; one never decided
// early pays one judgement per milestone (4 on a 2·10⁵-step run).
const JudgeGrowth = 4

// Judge is a claim's check on a run (the objective it is judged on bound).
type Judge func(*train.Trajectory) theorems.Verdict

// StopWhenViolated returns a train.WindowPlan.Stop that ends a control's
// run at the first milestone where check is violated and, when clean is
// not nil, cleanCheck (the check on the case without the fault: a fault
// may change the model or the loss) holds on clean cut at the same step.
func StopWhenViolated(check Judge, clean *train.Trajectory, cleanCheck Judge) func(*train.Trajectory) bool {
	var cleanTo func(int) (*train.Trajectory, error)
	if clean != nil {
		cleanTo = func(int) (*train.Trajectory, error) { return clean, nil }
	}
	return StopWhenViolatedTwin(check, cleanTo, cleanCheck)
}

// StopWhenViolatedTwin is StopWhenViolated for a clean run that is not
// kept (LL-C10's dense runs): cleanTo(step), asked only at a milestone
// where check is violated, returns the claim's run of the case without the
// fault trained at least that far (a run stopped there is the full run's
// prefix, bit for bit: train.WindowPlan.Stop). A clean run that fails or
// ends before step does not let the control stop there. cleanTo nil: no
// clean twin.
func StopWhenViolatedTwin(check Judge, cleanTo func(step int) (*train.Trajectory, error), cleanCheck Judge) func(*train.Trajectory) bool {
	judgeAt := FirstJudge
	return func(tr *train.Trajectory) bool {
		step := tr.Steps
		if step < judgeAt {
			return false
		}
		judgeAt = JudgeGrowth * step
		if check(tr).Status != theorems.Violated {
			return false
		}
		if cleanTo == nil {
			return true
		}
		clean, err := cleanTo(step)
		if err != nil || clean.Final().Step < step {
			return false
		}
		return cleanCheck(train.SoFar(clean, step)).Status == theorems.Holds
	}
}

// RecordRunUntil is RecordRun ended where stop says (nil: never).
func RecordRunUntil(obj *train.Objective, opt train.Optimizer, theta []float64, steps, burst int, growth float64, stop func(*train.Trajectory) bool) (*train.Trajectory, error) {
	return train.RunWindows(obj, opt, theta, train.WindowPlan{Steps: steps, Burst: burst, Growth: growth, Stop: stop})
}

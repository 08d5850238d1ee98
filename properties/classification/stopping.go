package classification

import (
	"errors"
	"math"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Stopping a control's run once its verdict is decided (issue 28 item 3).
//
// A control (the polynomial-tail runs, the fault controls) is caught only
// by a violated verdict. The checks of section E are comparisons with
// computed limits whose budgets are upper bounds at every length of run
// (theorems/limits.LinLimitBound, MultiClassLimit: every ratio ≤ 1 on a
// correct engine by derivation, whatever T_end; the window is always
// [T_end^{1/2}, T_end]), so the check of the run's first t steps is the
// check of a run of t steps, and a violation there is as final as at the
// full length: the records of a GD run up to step t are those of the run
// of t steps, bit for bit. A control's run is therefore judged at record
// milestones (steps ≥ firstJudge, growing by judgeGrowth) and ends at the
// first violated one; the verdict is then recomputed from the records kept
// (never taken from the judge). A run never violated at a milestone trains
// to its full length and is judged there as before, so a control can only
// be caught as often as before or more, never less.
//
// A fault control's case counts only where the claim holds on it without
// the fault (properties.Decide). At a milestone that rule is applied at the
// milestone's length: the faulted run stops only when the clean run of the
// same case (the claim's run, cached) holds at the same step, so that a
// catch at the shorter length is one the correct engine does not make there.
// The polynomial-tail controls have no clean twin computed; they rest on
// the derivation above, and on its measurement: every claim case of ZD-T7,
// ZD-T8, ZD-B and XY-P1 at seeds 1–3 holds at every milestone
// (docs/speed.md, "Stopping the controls").
//
// Claims are never stopped: a claim holding at a milestone may still be
// violated later (part 1 compares the residual at T_end with its limit, and
// a run that drifts slowly needs the whole window), so their runs keep
// their full length (DirectionSteps, ClassSteps).

// firstJudge is the first step at which a control's run is judged: at
// t = 1000 (T = 500, log T ≈ 6.2) the window [T^{1/2}, T] holds 9 records
// of the 1.5× grid, enough for every part of the limit checks (the GD map
// replays short segments, the flow comparison integrates each segment).
const firstJudge = 1000

// judgeGrowth spaces the milestones: a run decided between two milestones
// trains at most judgeGrowth times the steps it needed (up to the 1.5×
// grid's rounding), and one never decided early pays a judgement per
// milestone — the records at steps 1 478, 7 482, 37 877 and 191 752 —, 3
// on DirectionSteps' runs, 4 on ClassSteps' (~10 ms each for the binary
// checks, against ~1 µs per step). At seeds 1–3 nearly every control run
// of ZD-T7, ZD-T8, XY-P1 and ZD-B stops at 1 478 steps, a few at 7 482,
// one of ZD-B's pairwise tail at 37 877 (docs/speed.md).
const judgeGrowth = 4

// errDecided ends a run whose verdict is decided (grwRecorder.Step).
var errDecided = errors.New("classification: the run's verdict is decided")

// judge is a claim's check on a run, applied to its prefixes.
type judge func(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict

// prefix returns the trajectory of tr's first step steps (its records up
// to that step, which must be one of them), with tr's header: the run of
// step steps.
func prefix(tr *train.Trajectory, step int) *train.Trajectory {
	p := *tr
	p.Records = nil
	for _, r := range tr.Records {
		if r.Step <= step {
			p.Records = append(p.Records, r)
		}
	}
	last := p.Records[len(p.Records)-1]
	p.Theta, p.Steps, p.Weights, p.Stalled = last.Theta, last.Step, last.Weights, false
	return &p
}

// stopWhenViolated returns the stop rule of a control's run on data: stop
// at a milestone where check is violated and, when clean is not nil (a
// fault control), clean's run of the same length holds.
func stopWhenViolated(data *dataset.Dataset, check judge, clean *train.Trajectory) func(*train.Trajectory) bool {
	return func(tr *train.Trajectory) bool {
		if check(data, tr).Status != theorems.Violated {
			return false
		}
		if clean == nil {
			return true
		}
		step := tr.Final().Step
		if clean.Final().Step < step {
			return false
		}
		return check(data, prefix(clean, step)).Status == theorems.Holds
	}
}

// header returns the fields train.Run sets on the trajectory of obj
// trained by opt under w (nil: none), without records.
func header(obj *train.Objective, opt train.Optimizer, w train.Weighting) train.Trajectory {
	deg := obj.Model.Degree()
	tr := train.Trajectory{Model: obj.Model.String(), Loss: obj.Loss, Step: opt.Rule(), Degree: math.NaN()}
	if deg.Homogeneous {
		tr.Degree = deg.Order
	}
	if w != nil {
		tr.Scheme = w.Scheme()
	}
	return tr
}

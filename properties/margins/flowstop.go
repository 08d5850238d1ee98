package margins

import (
	"errors"

	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Stopping a flow fault control once its verdict is decided (issue 28
// item 3), the rule of cases.StopWhenViolated on a flow: the faulted flow
// is judged at its record milestones (every step is recorded: the first
// at or after step cases.FirstJudge, then at or after cases.JudgeGrowth
// times the last) and ends at the first where check is violated while the
// flow of the same case without the fault holds on its records up to the
// first where log 𝓛 reaches the faulted run's (a flow's progress is its
// loss: the two runs' step counts differ, the faulted one takes 5 000–8 000
// steps where the clean one takes 120–300 under tableau-b1-misplaced). The
// records up to there are the full faulted run's, bit for bit (Observe
// sees each as Run made it), and the verdict is recomputed from them. A
// flow never violated at a milestone runs to its end and is judged as
// before, so a control is caught as often as before or more, never less.

// errFlowDecided ends a stopped flow (stoppedFlowRun).
var errFlowDecided = errors.New("margins: the control's verdict is decided")

// stoppedFlowRun is faultyFlowRun with planted, stopped by the rule above:
// judge is the check on the faulted records so far, clean returns the
// records of the clean flow (asked once, at the first violated milestone)
// and judgeClean the check on a prefix of them. It returns the records and,
// when the run was stopped before its end, the verdict judge gave them
// (nil otherwise). A milestone before any record is separated (𝓛 < ℓ(b_f))
// is not judged: the check needs a step after separation, so its verdict
// there is inconclusive, and it would re-evaluate every record to say so.
func stoppedFlowRun(obj *train.Objective, theta []float64, target float64, steps int, tol float64, planted func(*train.Flow),
	judge func([]train.Record) theorems.Verdict, clean func() ([]train.Record, error), judgeClean func([]train.Record) theorems.Verdict) ([]train.Record, *theorems.Verdict, error) {
	fl, err := train.NewFlow(tol)
	if err != nil {
		return nil, nil, err
	}
	planted(fl)
	var recs, cleanRecs []train.Record
	var cleanErr error
	var decided theorems.Verdict
	separated := false
	judgeAt := cases.FirstJudge
	observe := func(r *train.Record, _ []float64, _ *train.Eval) error {
		recs = append(recs, *r)
		separated = separated || r.Separated
		if r.Step < judgeAt {
			return nil
		}
		judgeAt = flowJudgeGrowth * r.Step
		if !separated {
			return nil
		}
		v := judge(recs)
		if v.Status != theorems.Violated {
			return nil
		}
		if cleanRecs == nil && cleanErr == nil {
			cleanRecs, cleanErr = clean()
		}
		if cleanErr != nil || len(cleanRecs) == 0 {
			return nil
		}
		if judgeClean(reachedLoss(cleanRecs, r.LogLoss)).Status != theorems.Holds {
			return nil
		}
		decided = v
		return errFlowDecided
	}
	tr, err := train.Run(obj, fl, theta, train.Config{Steps: steps, StopLogLoss: target, KeepTheta: true, Observe: observe})
	if errors.Is(err, errFlowDecided) {
		return recs, &decided, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return tr.Records, nil, nil
}

// reachedLoss returns recs up to the first record with log 𝓛 ≤ logLoss
// (all of them when none is).
func reachedLoss(recs []train.Record, logLoss float64) []train.Record {
	for i, r := range recs {
		if r.LogLoss <= logLoss {
			return recs[:i+1]
		}
	}
	return recs
}

// flowJudgeGrowth spaces a flow's milestones: 2, not cases.JudgeGrowth's
// 4, since a faulted flow is decided soon after it separates, which
// tableau-b1-misplaced's flows do between steps 1 000 and 4 000 (a
// milestone before separation is not judged).
const flowJudgeGrowth = 2

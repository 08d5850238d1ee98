package properties

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/train"
)

// TrainGRW runs GD with step lr from θ₀ = 0 on obj under the fixed-weight
// GRW scheme w (ERM, importance weighting, static: train.Scheme.Fixed) on
// r.Engine for steps steps, recorded as section E's GRW runs record
// (classification.GRWRun: steps 1, then each step at or past the last
// threshold times growth, and the last). The weights q go on the wire; the
// engine gives θ at each record, and everything else the checks read is
// ours, never the engine's: q (w's, from its definition), ∫q dT =
// lr·q·(steps since the last record) and log T = log(lr·t) (ZD-T7, XY-P1;
// issue 31). A scheme whose weights move is ErrNoProtocol.
func (r *Runner) TrainGRW(name string, obj *train.Objective, w train.Weighting, lr float64, steps int, growth float64) (*train.Trajectory, error) {
	if !w.Scheme().Fixed() {
		return nil, fmt.Errorf("%w: the weights of %v move during the run (fixed weights only)", ErrNoProtocol, w.Scheme())
	}
	if err := w.Start(obj.Data); err != nil {
		return nil, err
	}
	q := make([]float64, obj.Data.N)
	if err := w.Update(0, make([]float64, obj.Data.N), q); err != nil { // fixed: the losses do not matter
		return nil, err
	}
	list := append([]int{0}, grwSteps(steps, growth)...)
	if list[len(list)-1] != steps {
		list = append(list, steps)
	}
	tr, err := r.TrainWeighted(name, obj, make([]float64, obj.Model.NumParams()), q, lr, steps, 0, engines.Schedule{List: list})
	if err != nil {
		return nil, err
	}
	recs := tr.Records[1:] // record 0 (θ₀) is not one of a GRW run's
	logEta, prev := math.Log(lr), 0
	for i := range recs {
		t := recs[i].Step
		recs[i].Weights = append([]float64(nil), q...)
		recs[i].WeightSum = make([]float64, len(q))
		for n, qn := range q {
			recs[i].WeightSum[n] = lr * qn * float64(t-prev)
		}
		recs[i].LogEta, recs[i].LogT = logEta, logEta+math.Log(float64(t))
		prev = t
	}
	tr.Records, tr.Scheme, tr.Weights = recs, w.Scheme(), append([]float64(nil), q...)
	return tr, nil
}

// grwSteps returns the steps before the last that a GRW run records
// (classification's grwRecorder): 1, then each step t at or past the
// threshold, which then grows by growth until it passes t.
func grwSteps(steps int, growth float64) []int {
	var list []int
	next := 1.0
	for t := range steps {
		if float64(t) >= next {
			for next <= float64(t) {
				next *= growth
			}
			list = append(list, t)
		}
	}
	return list
}

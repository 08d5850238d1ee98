package classification

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/train"
)

// Section E on another engine (issue 31, docs/engines.md): ZD-T7's and
// XY-P1's runs under fixed weights (ERM, importance weighting, static, XY's
// random importance weights) go to Runner.Engine with the weights on the
// wire. The engine returns θ at each record; everything else the checks
// read — the weights q, ∫q dT between records, log η and log T — is ours,
// recomputed from the case and the schedule, never the engine's. A scheme
// whose weights move, a loss the protocol does not name (the polynomial
// tails of the controls) and a fault planted in our engine are not
// applicable there.

// fixedScheme reports whether the case's weights stay fixed over a run.
func (c ClassCase) fixedScheme() bool {
	switch c.Scheme {
	case cases.SchemeERM, cases.SchemeIW, cases.SchemeStatic, SchemeRandomIW:
		return true
	}
	return false
}

// grwSteps returns the steps GRWRun records (growth ≥ 1: 1, then each
// step at or past the previous threshold times growth) before the last.
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

// engineRun is runWith on r.Engine: GD with η = ClassLR from 0 under the
// case's fixed weights, recorded at GRWRun's steps; the records get our
// weights, ∫q dT = η·q·(steps since the last record) and log T = log(η·t).
func (c ClassCase) engineRun(r *properties.Runner, data *dataset.Dataset, steps int) (*train.Trajectory, error) {
	switch {
	case !c.fixedScheme():
		return nil, fmt.Errorf("%w: the weights of %s move during the run (fixed weights only)", properties.ErrNoProtocol, c.schemeName())
	case c.Fault != "":
		return nil, fmt.Errorf("%w: the fault %s is planted in our engine", properties.ErrNoProtocol, c.Fault)
	}
	w, err := c.Weighting()
	if err != nil {
		return nil, err
	}
	if err := w.Start(data); err != nil {
		return nil, err
	}
	q := make([]float64, data.N)
	if err := w.Update(0, make([]float64, data.N), q); err != nil {
		return nil, err
	}
	obj, err := LinearObjective(data, 1, c.LossOf())
	if err != nil {
		return nil, err
	}
	list := append([]int{0}, grwSteps(steps, 1.5)...)
	if list[len(list)-1] != steps {
		list = append(list, steps)
	}
	theta0 := make([]float64, data.D)
	tr, err := r.TrainWeighted(fmt.Sprintf("GD %v", c), obj, theta0, q, ClassLR, steps, 0, engines.Schedule{List: list})
	if err != nil {
		return nil, err
	}
	// Record 0 (θ₀) is not one of GRWRun's.
	recs := tr.Records[1:]
	logEta, prev := math.Log(ClassLR), 0
	for i := range recs {
		t := recs[i].Step
		recs[i].Weights = append([]float64(nil), q...)
		recs[i].WeightSum = make([]float64, data.N)
		for n, qn := range q {
			recs[i].WeightSum[n] = ClassLR * qn * float64(t-prev)
		}
		recs[i].LogEta, recs[i].LogT = logEta, logEta+math.Log(float64(t))
		prev = t
	}
	tr.Records, tr.Scheme, tr.Weights = recs, w.Scheme(), append([]float64(nil), q...)
	return tr, nil
}

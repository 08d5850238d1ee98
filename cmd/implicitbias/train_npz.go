package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// initTheta reads θ₀ for train --init: the first record of a trajectory
// file (.npz, docs/check.md: a PyTorch run's initialization), or a vector
// file, one number per line.
func initTheta(path string, model models.Model) ([]float64, error) {
	var theta []float64
	if strings.HasSuffix(path, ".npz") {
		t, err := check.ReadFile(path)
		if err != nil {
			return nil, err
		}
		theta = t.Theta[0]
	} else {
		var err error
		if theta, err = readVector(path, "--init"); err != nil {
			return nil, err
		}
	}
	if len(theta) != model.NumParams() {
		return nil, fmt.Errorf("--init %s: θ has %d entries, model %s needs %d", path, len(theta), model, model.NumParams())
	}
	return theta, nil
}

// runExport trains for train --export-npz: θ is recorded in pairs of
// consecutive steps (t, t+1) every record steps (every step when record is
// 1) and at the last step, so that check can verify each recorded step is
// −η∇𝓛, and the run is written with its data and final outputs in the
// trajectory format (reduction "mean" for --reduce mean). observe (the trace and the interrupt of train) sees the
// steps of the --record grid; an interrupted run writes what it recorded.
func runExport(path string, obj *train.Objective, opt train.Optimizer, theta []float64, steps, record int, stop float64, weighting train.Weighting, red reduction,
	observe func(*train.Record, []float64, *train.Eval) error) (*train.Trajectory, error) {
	if weighting != nil {
		return nil, errors.New("--export-npz with --weights is not supported yet: the recorder of GRW runs keeps no windows")
	}
	if stop != 0 {
		return nil, errors.New("--export-npz with --stop-log-loss is not supported: give --steps")
	}
	// One continuous run (an optimizer with state — momentum, Adam, the
	// flow's step size — keeps it), θ kept at the steps of the pairs only.
	keep := func(t int) bool { return record == 1 || t%record <= 1 || t == steps }
	tr, err := train.Run(obj, opt, theta, train.Config{Steps: steps, Observe: func(r *train.Record, th []float64, ev *train.Eval) error {
		if keep(r.Step) {
			r.Theta = append([]float64(nil), th...)
		}
		if observe != nil && (r.Step%record == 0 || r.Step == steps) {
			return observe(r, th, ev)
		}
		return nil
	}})
	interrupted := errors.Is(err, errInterrupted) && tr != nil
	if err != nil && !interrupted {
		return tr, err
	}
	kept := tr.Records[:0]
	for _, r := range tr.Records {
		if r.Theta != nil {
			kept = append(kept, r)
		}
	}
	tr.Records = kept
	t, err := check.FromTrain(tr, obj.Model, obj.Data)
	if err != nil {
		return nil, err
	}
	if red.mean {
		// The objective was the mean (weights 1/n on the sum) and lr its
		// step: the file says so, as a PyTorch run with a mean loss does.
		t.Reduction = "mean"
	}
	t.Outputs = obj.Model.Forward(obj.Model.NewWorkspace(obj.Data.N), t.Theta[len(t.Theta)-1], obj.Data.X, obj.Data.N)
	if err := check.WriteFile(path, t); err != nil {
		return nil, err
	}
	if interrupted {
		return tr, errInterrupted
	}
	return tr, nil
}

package engines

import (
	"context"
	"math"

	"github.com/implicitbias/implicitbias/train"
)

// Local is our engine behind the Engine interface: train.Run with GD or
// train.LossBased. WrapOptimizer, when set, wraps the optimizer (a planted
// fault of package faults: Fault.Optimizer).
type Local struct {
	WrapOptimizer func(train.Optimizer) train.Optimizer
}

// Capabilities: every loss, both rules, convolutions, log domain, eval.
func (Local) Capabilities() Capabilities {
	return Capabilities{Protocol: Protocol, Engine: "implicitbias (Go)", Losses: []Loss{Logistic, Exponential, CrossEntropy, Squared},
		Rules: []StepKind{GD, LossBased}, Conv: true, LogDomain: true, Eval: true}
}

// Train runs the case with train.Run, recording the steps c.Record names
// with θ kept. A run that fails returns what it recorded and the error,
// as train.Run does.
func (l Local) Train(ctx context.Context, c *Case) (*train.Trajectory, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	obj, err := c.objective()
	if err != nil {
		return nil, err
	}
	var opt train.Optimizer
	if c.Rule.Kind == GD {
		opt, err = train.NewGD(c.Rule.LR)
	} else {
		opt, err = train.NewLossBased(c.Rule.Alpha0)
	}
	if err != nil {
		return nil, err
	}
	if l.WrapOptimizer != nil {
		opt = l.WrapOptimizer(opt)
	}
	theta := append([]float64(nil), c.Theta0...)
	if w := c.Record.Windows; w != nil {
		// The harness's own recording (train.RunWindows), bit for bit.
		tr, err := train.RunWindows(obj, opt, theta, *w)
		if tr != nil {
			withWeights(tr, c.Weights)
		}
		return tr, err
	}
	every := max(c.Record.Every, 1)
	sparse := c.Record.Pairs || c.Record.List != nil
	cfg := train.Config{Steps: c.Steps, Every: every, StopLogLoss: c.StopLogLoss, KeepTheta: !sparse,
		Observe: func(*train.Record, []float64, *train.Eval) error { return ctx.Err() }}
	if sparse {
		// Every step is measured, the schedule's kept (with θ).
		cfg.Every = 1
		cfg.Observe = func(r *train.Record, th []float64, _ *train.Eval) error {
			if c.Record.Records(r.Step, false) {
				r.Theta = append([]float64(nil), th...)
			}
			return ctx.Err()
		}
	}
	tr, err := train.Run(obj, opt, theta, cfg)
	if tr != nil && sparse {
		kept := tr.Records[:0]
		for i, r := range tr.Records {
			if r.Theta != nil || i == len(tr.Records)-1 {
				if r.Theta == nil {
					r.Theta = append([]float64(nil), theta...)
				}
				kept = append(kept, r)
			}
		}
		tr.Records = kept
	}
	if tr != nil {
		withWeights(tr, c.Weights)
	}
	return tr, err
}

// withWeights records fixed weights in every record.
func withWeights(tr *train.Trajectory, w []float64) {
	if w == nil {
		return
	}
	for i := range tr.Records {
		tr.Records[i].Weights = w
	}
	tr.Weights = w
}

// Eval computes Φ and ∇_θΦ sample by sample with the model's backward
// pass, and the loss with the objective.
func (Local) Eval(ctx context.Context, c *EvalCase) (*Evaluation, error) {
	m, err := checkInputs(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Theta)
	if err != nil {
		return nil, err
	}
	k, p := m.Out(), m.NumParams()
	e := &Evaluation{Phi: make([]float64, 0, c.N*k), Grad: make([]float64, c.N*k*p), LogLoss: math.NaN()}
	ws := m.NewWorkspace(1)
	g := make([]float64, k)
	for n := range c.N {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x := c.X[n*c.In : (n+1)*c.In]
		for j := range k {
			out := m.Forward(ws, c.Theta, x, 1)
			if j == 0 {
				e.Phi = append(e.Phi, out...)
			}
			clear(g)
			g[j] = 1
			m.Backward(ws, c.Theta, g, e.Grad[(n*k+j)*p:(n*k+j+1)*p])
		}
	}
	if c.Loss != 0 {
		obj, err := objectiveOf(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Loss, c.Weights)
		if err != nil {
			return nil, err
		}
		ev, err := obj.Evaluate(c.Theta, true)
		if err != nil {
			return nil, err
		}
		e.LogLoss, e.Dir = ev.LogLoss, append([]float64(nil), ev.Dir...)
	}
	return e, nil
}

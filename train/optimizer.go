package train

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// Optimizer advances θ by one step of the objective.
type Optimizer interface {
	// Name is the optimizer's short name, as the CLI spells it.
	Name() string
	// Step moves theta in place from θ_t to θ_{t+1}, given the evaluation
	// ev of the objective (with gradient) at θ_t, and returns log η_t, the
	// log of the step's time increment (T = Σ η_t, LL §4).
	Step(obj *Objective, theta []float64, ev *Eval) (logEta float64, err error)
}

// GD is gradient descent with a constant step size, θ ← θ − η∇𝓛.
type GD struct {
	LR float64
}

// NewGD returns GD with step size lr > 0.
func NewGD(lr float64) (*GD, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("train: learning rate must be a finite number > 0, got %v", lr)
	}
	return &GD{LR: lr}, nil
}

// Name returns "gd".
func (*GD) Name() string { return "gd" }

// Step sets θ ← θ − e^{log η + log 𝓛}·Dir.
func (g *GD) Step(_ *Objective, theta []float64, ev *Eval) (float64, error) {
	logEta := math.Log(g.LR)
	floats.AddScaled(theta, -math.Exp(logEta+ev.LogObjective), ev.Dir)
	return logEta, nil
}

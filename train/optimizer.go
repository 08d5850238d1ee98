package train

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
)

// Optimizer advances θ by one step of the objective.
type Optimizer interface {
	// Rule declares the step rule and its parameters (what the run's
	// Trajectory.Step says ran).
	Rule() StepRule
	// Step moves theta in place from θ_t to θ_{t+1}, given the evaluation
	// ev of the objective (with gradient) at θ_t, and returns log η_t, the
	// log of the step's time increment (T = Σ η_t, LL §4).
	Step(obj *Objective, theta []float64, ev *Eval) (logEta float64, err error)
}

// OptimizerOptions are the hyperparameters optimizers read; a zero field
// means the optimizer's documented default.
type OptimizerOptions struct {
	// LR is the step size η (constant GD, momentum, Adam) or the initial α
	// of a loss-based schedule.
	LR float64
	// Momentum is the heavy-ball coefficient β.
	Momentum float64
	// Beta1, Beta2, Epsilon are Adam's.
	Beta1, Beta2, Epsilon float64
	// Tol is the local error tolerance of an adaptive integrator.
	Tol float64
}

var optimizers = map[string]func(OptimizerOptions) (Optimizer, error){
	"gd": func(o OptimizerOptions) (Optimizer, error) { return NewGD(o.LR) },
}

// RegisterOptimizer makes an optimizer available to NewOptimizer (and so to
// the CLI's --opt) under name. It panics on a duplicate name.
func RegisterOptimizer(name string, f func(OptimizerOptions) (Optimizer, error)) {
	if _, dup := optimizers[name]; dup {
		panic("train: optimizer " + name + " registered twice")
	}
	optimizers[name] = f
}

// NewOptimizer returns the optimizer registered as name.
func NewOptimizer(name string, o OptimizerOptions) (Optimizer, error) {
	f, ok := optimizers[name]
	if !ok {
		return nil, fmt.Errorf("unknown optimizer %q (want one of %s)", name, strings.Join(OptimizerNames(), ", "))
	}
	return f(o)
}

// OptimizerNames lists the registered optimizers, sorted.
func OptimizerNames() []string {
	names := make([]string, 0, len(optimizers))
	for n := range optimizers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// GD is gradient descent with a constant step size, θ ← θ − η∇𝓛.
type GD struct {
	LR float64
	// logLR is log LR as NewGD computed it for the LR lrOf: the same bits
	// as a call per step, without the call. Step only reads it (a GD may
	// step several runs at once), and calls math.Log when LR has changed
	// or the GD was built as a literal.
	logLR, lrOf float64
}

// NewGD returns GD with step size lr > 0.
func NewGD(lr float64) (*GD, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("train: learning rate must be a finite number > 0, got %v", lr)
	}
	return &GD{LR: lr, logLR: math.Log(lr), lrOf: lr}, nil
}

// Rule returns GD with η.
func (g *GD) Rule() StepRule { return StepRule{Kind: GDStep, LR: g.LR} }

// Step sets θ ← θ − e^{log η + log 𝓛}·Dir.
func (g *GD) Step(_ *Objective, theta []float64, ev *Eval) (float64, error) {
	logEta := g.logLR
	if math.Float64bits(g.lrOf) != math.Float64bits(g.LR) {
		logEta = math.Log(g.LR)
	}
	floats.AddScaled(theta, -math.Exp(logEta+ev.LogObjective), ev.Dir)
	return logEta, nil
}

package train

import (
	"fmt"
	"math"
)

// StepKind is the kind of step rule a run took: what a check needs to know
// to decide which dynamics the records are steps of (an explicit gradient
// step −η∇𝓛 whose identity can be checked, an integrated flow, or
// something else).
type StepKind int

const (
	// UnknownStep is a run that does not say how it stepped (the zero
	// value: a test double, or a trajectory built without an optimizer's
	// declaration).
	UnknownStep StepKind = iota
	// GDStep is gradient descent θ ← θ − η∇𝓛 (constant η, or the step
	// sizes a run recorded).
	GDStep
	// LossBasedStep is LL App. K.1's loss-based schedule η = α/𝓛.
	LossBasedStep
	// FlowStep is the gradient flow, integrated (Flow).
	FlowStep
	// HeavyBallStep is GD with heavy-ball momentum β (Momentum).
	HeavyBallStep
	// AdamStep is Adam.
	AdamStep
	// ProjectedGDStep is GD projected on a ball (ProjectedGD).
	ProjectedGDStep
	// SGDStep is mini-batch SGD (SGD).
	SGDStep
	// FixedDirectionStep is no optimizer: records placed along a fixed
	// direction by their builder.
	FixedDirectionStep
)

// stepKindNames are the kinds as the CLI spells them (--opt, the train
// command's JSON).
var stepKindNames = [...]string{
	UnknownStep:        "unknown step rule",
	GDStep:             "gd",
	LossBasedStep:      "lossbased",
	FlowStep:           "flow",
	HeavyBallStep:      "momentum",
	AdamStep:           "adam",
	ProjectedGDStep:    "pgd",
	SGDStep:            "sgd",
	FixedDirectionStep: "none (fixed direction)",
}

// String returns the kind as the CLI spells it.
func (k StepKind) String() string {
	if k < 0 || int(k) >= len(stepKindNames) {
		return fmt.Sprintf("StepKind(%d)", int(k))
	}
	return stepKindNames[k]
}

// StepRule is what a run declares about its steps: the kind and its
// parameters (zero where the kind has none).
type StepRule struct {
	Kind StepKind
	// LR is η (GD, heavy ball, Adam, projected GD, SGD) or α(0) of the
	// loss-based schedule; NaN when only the records carry the step sizes
	// (Record.LogEta; a run recorded outside the engine).
	LR float64
	// Momentum is the heavy-ball β.
	Momentum float64
	// Tol is the flow integrator's local error tolerance.
	Tol float64
	// Batch is SGD's batch size.
	Batch int
}

// String describes the rule with its parameters, e.g. "gd η = 0.5" or
// "gd (the recorded η)".
func (r StepRule) String() string {
	s := r.Kind.String()
	switch r.Kind {
	case GDStep, HeavyBallStep, AdamStep, ProjectedGDStep, SGDStep, LossBasedStep:
		name := "η"
		if r.Kind == LossBasedStep {
			name = "α(0)"
		}
		if math.IsNaN(r.LR) {
			s += " (the recorded " + name + ")"
		} else {
			s += fmt.Sprintf(" %s = %g", name, r.LR)
		}
	}
	switch {
	case r.Kind == HeavyBallStep:
		s += fmt.Sprintf(", β = %g", r.Momentum)
	case r.Kind == FlowStep && r.Tol > 0:
		s += fmt.Sprintf(" (tolerance %g)", r.Tol)
	case r.Kind == SGDStep:
		s += fmt.Sprintf(", batch %d", r.Batch)
	}
	return s
}

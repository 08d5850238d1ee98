package engines

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// Loss is the training loss of a case, 𝓛 = Σ_n w_n ℓ(Φ(θ; x_n); y_n)
// summed over the samples (a mean-reduced engine's step is then lr = η·n).
type Loss int

// The losses the protocol names.
const (
	Logistic     Loss = iota + 1 // log(1 + e^{−yΦ}), y ∈ {−1, +1}
	Exponential                  // e^{−yΦ}
	CrossEntropy                 // softmax cross-entropy, y a class index
	Squared                      // (Φ − y)²/2
)

// lossNames are losses.ByName's names, also the protocol's.
var lossNames = [...]string{"", "logistic", "exp", "ce", "squared"}

// String is the loss's name (losses.ByName's).
func (l Loss) String() string { return enumName(lossNames[:], int(l), "Loss") }

// MarshalText writes the protocol's name.
func (v Loss) MarshalText() ([]byte, error) { return enumText(lossNames[:], int(v), "loss") }

// UnmarshalText reads a protocol name.
func (v *Loss) UnmarshalText(b []byte) error { return enumParse(lossNames[:], b, "loss", (*int)(v)) }

// LossOf returns the protocol's loss for one of the engine's, or
// ErrNotExpressible (the polynomial tail, a loss from a formula).
func LossOf(l losses.Loss) (Loss, error) {
	var p Loss
	if err := p.UnmarshalText([]byte(l.Name())); err != nil {
		return 0, fmt.Errorf("%w: loss %s", ErrNotExpressible, l.Name())
	}
	return p, nil
}

// StepKind is the step rule of a case.
type StepKind int

const (
	// GD is θ ← θ − η∇𝓛 with a constant η on the summed loss.
	GD StepKind = iota + 1
	// LossBased is LL App. K.1's schedule: η(t) = α(t)/𝓛̄(t−1) on the mean
	// loss, α(0) = 0.1, α ← α·2^{1/5} after a step that decreases 𝓛, else
	// α ← α/2^{1/10} and the step is retried (train.LossBased).
	LossBased
)

var stepNames = [...]string{"", "gd", "lossbased"}

// String is the rule's name (train.NewOptimizer's).
func (k StepKind) String() string { return enumName(stepNames[:], int(k), "StepKind") }

// MarshalText writes the protocol's name.
func (v StepKind) MarshalText() ([]byte, error) { return enumText(stepNames[:], int(v), "step rule") }

// UnmarshalText reads a protocol name.
func (v *StepKind) UnmarshalText(b []byte) error {
	return enumParse(stepNames[:], b, "step rule", (*int)(v))
}

// StepRule is how θ moves.
type StepRule struct {
	Kind StepKind `json:"kind"`
	// LR is GD's η on the summed loss.
	LR float64 `json:"lr,omitempty"`
	// Alpha0 is the loss-based α(0) (0: LL's 0.1).
	Alpha0 float64 `json:"alpha0,omitempty"`
}

// trainRule is the rule as train.Trajectory.Step declares it.
func (r StepRule) trainRule() train.StepRule {
	if r.Kind == LossBased {
		a := r.Alpha0
		if a == 0 {
			a = 0.1
		}
		return train.StepRule{Kind: train.LossBasedStep, LR: a}
	}
	return train.StepRule{Kind: train.GDStep, LR: r.LR}
}

// Schedule says which steps are recorded, always with the first and the
// last: every Every-th (0 means 1), with Pairs the step after each too (t
// and t+1: the pairs on which theorems.DescentSteps checks that a step was
// −η∇𝓛); or the steps of List; or the windows of train.RunWindows
// (Windows, from WindowSchedule: section C's trajectory checks read them),
// which go on the wire as their List.
type Schedule struct {
	Every int  `json:"every,omitempty"`
	Pairs bool `json:"pairs,omitempty"`
	// List is the recorded steps, strictly increasing from 0.
	List []int `json:"steps,omitempty"`
	// Windows is the plan List was computed from; Local runs
	// train.RunWindows with it, so that its records are the harness's bit
	// for bit.
	Windows *train.WindowPlan `json:"-"`
}

// Records reports whether step t is recorded (last: the run ends at t).
func (s Schedule) Records(t int, last bool) bool {
	if s.List != nil {
		_, found := slices.BinarySearch(s.List, t)
		return last || found
	}
	e := max(s.Every, 1)
	return last || t%e == 0 || (s.Pairs && t%e == 1)
}

// WindowSchedule returns the schedule of train.RunWindows(…, plan) and the
// steps that run takes (plan.Steps, or up to Burst − 1 more to finish the
// last window). The steps are RunWindows' own: it runs the plan on a
// one-parameter objective with an optimizer that stands still (one
// evaluation of a 1×1 model per step), so the list cannot drift from the
// harness's recording.
func WindowSchedule(plan train.WindowPlan) (Schedule, int, error) {
	m, err := models.Parse("linear", 1)
	if err != nil {
		return Schedule{}, 0, err
	}
	l, _ := losses.ByName("exp")
	obj, err := train.NewObjective(m, l, &dataset.Dataset{N: 1, D: 1, X: []float64{1}, Y: []float64{1}})
	if err != nil {
		return Schedule{}, 0, err
	}
	tr, err := train.RunWindows(obj, still{}, []float64{0}, plan)
	if err != nil {
		return Schedule{}, 0, fmt.Errorf("%w: window plan %+v: %v", ErrBadCase, plan, err)
	}
	list := make([]int, len(tr.Records))
	for i, r := range tr.Records {
		list[i] = r.Step
	}
	p := plan
	return Schedule{List: list, Windows: &p}, tr.Steps, nil
}

// still is an optimizer that leaves θ where it is (WindowSchedule).
type still struct{}

func (still) Rule() train.StepRule { return train.StepRule{Kind: train.GDStep} }

func (still) Step(*train.Objective, []float64, *train.Eval) (float64, error) { return 0, nil }

// Case is one training run the suite asks an engine for: data and θ₀ in
// the engine's own layout (the client permutes them into the other
// engine's), the loss, fixed sample weights, the step rule, the length and
// the records.
type Case struct {
	// Name names the case in every error ("LL-4.4 case 7").
	Name string
	// Model is the model spec (models.Parse) on In inputs.
	Model string
	In    int
	// X is N×In, row-major; Y the labels (±1 for a binary loss, a class
	// index for CrossEntropy, a target for Squared).
	X    []float64
	N    int
	Y    []float64
	Loss Loss
	// Weights are fixed sample weights w_n ≥ 0 (nil: all 1).
	Weights []float64
	Theta0  []float64
	Rule    StepRule
	// Steps is the step budget; the run stops earlier once log 𝓛 ≤
	// StopLogLoss (0: never).
	Steps       int
	StopLogLoss float64
	Record      Schedule
	// LogDomain asks an engine to carry log 𝓛 (LL App. K.2): a run past
	// float64's e^{−745} needs it (LL-K2).
	LogDomain bool
}

// ErrBadCase reports a case that is malformed (shapes, values): a bug of
// the caller, not of an engine.
var ErrBadCase = errors.New("engines: bad case")

// Validate checks the case's shapes and values against its model.
func (c *Case) Validate() error {
	_, err := c.model()
	if err != nil {
		return err
	}
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%w %s: %s", ErrBadCase, c.Name, fmt.Sprintf(f, a...))
	}
	switch {
	case c.Steps < 0:
		return bad("steps %d < 0", c.Steps)
	case c.Rule.Kind == GD && !(c.Rule.LR > 0 && !math.IsInf(c.Rule.LR, 0)):
		return bad("GD needs a finite η > 0, got %v", c.Rule.LR)
	case c.Rule.Kind != GD && c.Rule.Kind != LossBased:
		return bad("unknown step rule %v", c.Rule.Kind)
	case c.Record.Every < 0:
		return bad("record every %d", c.Record.Every)
	case c.Weights != nil && len(c.Weights) != c.N:
		return bad("%d weights for %d samples", len(c.Weights), c.N)
	case c.Record.Windows != nil && c.StopLogLoss != 0:
		return bad("a windows schedule runs its steps: no stop at a loss")
	}
	for i, t := range c.Record.List {
		if t < 0 || t > c.Steps || (i > 0 && t <= c.Record.List[i-1]) {
			return bad("recorded steps %v: want strictly increasing steps in [0, %d]", c.Record.List, c.Steps)
		}
	}
	for i, w := range c.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return bad("weight %d is %v", i, w)
		}
	}
	return nil
}

// model parses the case's model and checks θ₀ and the data against it.
func (c *Case) model() (models.Model, error) {
	return checkInputs(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Theta0)
}

func checkInputs(name, spec string, in int, x []float64, n int, y, theta []float64) (models.Model, error) {
	m, err := models.Parse(spec, in)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadCase, name, err)
	}
	switch {
	case n < 1 || len(x) != n*in:
		return nil, fmt.Errorf("%w %s: X has %d values for %d samples of %d features", ErrBadCase, name, len(x), n, in)
	case y != nil && len(y) != n:
		return nil, fmt.Errorf("%w %s: %d labels for %d samples", ErrBadCase, name, len(y), n)
	case len(theta) != m.NumParams():
		return nil, fmt.Errorf("%w %s: θ has %d entries, %s needs %d", ErrBadCase, name, len(theta), m, m.NumParams())
	}
	for _, v := range [][]float64{x, y, theta} {
		for i, e := range v {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil, fmt.Errorf("%w %s: entry %d is %v", ErrBadCase, name, i, e)
			}
		}
	}
	return m, nil
}

// objective builds the engine's objective of the case (weights set).
func (c *Case) objective() (*train.Objective, error) {
	return objectiveOf(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Loss, c.Weights)
}

func objectiveOf(name, spec string, in int, x []float64, n int, y []float64, loss Loss, w []float64) (*train.Objective, error) {
	m, err := models.Parse(spec, in)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadCase, name, err)
	}
	l, err := losses.ByName(loss.String())
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadCase, name, err)
	}
	obj, err := train.NewObjective(m, l, &dataset.Dataset{N: n, D: in, X: x, Y: y})
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadCase, name, err)
	}
	if err := obj.SetWeights(w); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadCase, name, err)
	}
	return obj, nil
}

// CaseOf writes a case from an objective the property harness built (its
// case builders return obj and θ₀): the model, data, loss and fixed
// weights of obj. An objective the protocol cannot carry (a regularizer, a
// planted fault, a loss without a protocol name) is ErrNotExpressible.
func CaseOf(name string, obj *train.Objective, theta0 []float64, rule StepRule, steps int, stop float64, rec Schedule) (*Case, error) {
	if obj.Reg != nil {
		return nil, fmt.Errorf("%w: case %s has a regularizer", ErrNotExpressible, name)
	}
	if obj.Faulted() {
		return nil, fmt.Errorf("%w: case %s has a weight fault planted in our engine", ErrNotExpressible, name)
	}
	l, err := LossOf(obj.Loss)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", name, err)
	}
	c := &Case{Name: name, Model: obj.Model.String(), In: obj.Model.In(), X: obj.Data.X, N: obj.Data.N, Y: obj.Data.Y,
		Loss: l, Theta0: append([]float64(nil), theta0...), Rule: rule, Steps: steps, StopLogLoss: stop, Record: rec}
	for n := range obj.Data.N {
		if lw := obj.LogWeight(n); lw != 0 {
			if c.Weights == nil {
				c.Weights = make([]float64, obj.Data.N)
				for i := range c.Weights {
					c.Weights[i] = 1
				}
			}
			c.Weights[n] = math.Exp(lw)
		}
	}
	if _, err := models.Parse(c.Model, c.In); err != nil {
		return nil, fmt.Errorf("%w: case %s: %v", ErrNotExpressible, name, err)
	}
	return c, c.Validate()
}

// EvalCase asks an engine for Φ(θ; x_n) and ∇_θΦ(θ; x_n) on every sample
// (section A's identities), and, with a Loss, log 𝓛 and ∇log 𝓛.
type EvalCase struct {
	Name  string
	Model string
	In    int
	X     []float64
	N     int
	Theta []float64
	// Loss (0: none), Y and Weights (nil: all 1) ask for the loss too.
	Loss    Loss
	Y       []float64
	Weights []float64
}

// Evaluation is an engine's answer to an EvalCase, in the engine's layout.
type Evaluation struct {
	// Phi is N×K (K = the model's outputs), Grad N×K×P: ∇_θΦ_k(θ; x_n).
	Phi, Grad []float64
	// LogLoss is log 𝓛 and Dir = ∇log 𝓛 = ∇𝓛/𝓛, when the case has a Loss.
	LogLoss float64
	Dir     []float64
}

// enumText writes names[v], the protocol's name of an enumerated value.
func enumText(names []string, v int, what string) ([]byte, error) {
	if v < 1 || v >= len(names) {
		return nil, fmt.Errorf("engines: unknown %s %d", what, v)
	}
	return []byte(names[v]), nil
}

// enumParse sets *v to the index of b in names.
func enumParse(names []string, b []byte, what string, v *int) error {
	for i, n := range names[1:] {
		if n == string(b) {
			*v = i + 1
			return nil
		}
	}
	return fmt.Errorf("engines: unknown %s %q", what, b)
}

// enumName returns names[v], or TYPE(v) for a value without a name.
func enumName(names []string, v int, typ string) string {
	if v < 1 || v >= len(names) {
		return fmt.Sprintf("%s(%d)", typ, v)
	}
	return names[v]
}

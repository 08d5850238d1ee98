package engines

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/train"
)

// answerError is an answer the client refuses, with its kind.
type answerError struct {
	kind ErrorKind
	err  error
}

func (e *answerError) Error() string { return e.err.Error() }
func (e *answerError) Unwrap() error { return e.err }

func malformed(f string, a ...any) error {
	return &answerError{Malformed, fmt.Errorf(f, a...)}
}

func wrongShape(f string, a ...any) error {
	return &answerError{WrongShape, fmt.Errorf(f, a...)}
}

// readTrajectory turns a trajectory answer into the run's records: the
// file (or inline arrays) read by check's reader, its modules mapped back
// by check.MapModel to the case's model (or the spec with check.MapSpec
// when the file has no modules), permuted into our layout, checked against
// the case (record 0 is θ₀ bit for bit, the records the schedule names, X
// as sent when the file has it), and every record measured by our
// objective (train.Measure): the engine's θ, our measurements, as check
// does with a recorded run.
func readTrajectory(c *Case, a *Answer) (*train.Trajectory, error) {
	want, err := c.model()
	if err != nil {
		return nil, err
	}
	seq, err := SequentialOf(want)
	if err != nil {
		return nil, err
	}
	var ct *check.Trajectory
	switch {
	case a.NPZ != "":
		if ct, err = check.ReadFile(a.NPZ); err != nil {
			return nil, malformed("%v", err)
		}
	case a.Inline != nil:
		if ct, err = inlineTrajectory(a.Inline, seq, c); err != nil {
			return nil, err
		}
	default:
		return nil, malformed("a trajectory answer with neither npz nor inline")
	}
	if ct.Flow() {
		return nil, wrongShape("the answer is a flow (time), the case asks for %v", c.Rule.Kind)
	}
	var m check.Mapping
	if ct.Modules != nil {
		m, err = check.MapModel(ct)
	} else {
		m, err = check.MapSpec(ct, c.Model, c.In)
	}
	if err != nil {
		return nil, wrongShape("the answer's network does not map back: %v", err)
	}
	got, err := models.Parse(m.Spec, m.In)
	if err != nil || !SameModel(got, want) {
		return nil, wrongShape("the answer's network is %s on %d inputs, the case's %s on %d", m.Spec, m.In, want, c.In)
	}
	ct = m.Apply(ct)
	if _, err := check.CompareOutputs(ct, want); err != nil {
		return nil, wrongShape("%v", err)
	}
	if ct.X != nil && (ct.N != c.N || !slices.Equal(ct.X, c.X)) {
		return nil, wrongShape("the answer's X is not the case's (%d×%d samples)", ct.N, ct.D)
	}
	if ct.Y != nil && !slices.Equal(ct.Y, c.Y) && !binaryEqual(ct.Y, c.Y) {
		return nil, wrongShape("the answer's y is not the case's")
	}
	if ct.Steps[0] != 0 || !slices.Equal(ct.Theta[0], c.Theta0) {
		return nil, wrongShape("record 0 (step %d) is not θ₀ as sent", ct.Steps[0])
	}
	T := len(ct.Steps)
	for i, s := range ct.Steps {
		if s > c.Steps || !c.Record.Records(s, i == T-1) {
			return nil, wrongShape("step %d is recorded, the schedule (every %d, pairs %v, %d steps) does not name it", s, c.Record.Every, c.Record.Pairs, c.Steps)
		}
	}
	for _, v := range [][]float64{a.LogEta, a.LogTime} {
		if v != nil && len(v) != T {
			return nil, wrongShape("log_eta/log_time have %d entries for %d records", len(v), T)
		}
	}
	obj, err := c.objective()
	if err != nil {
		return nil, err
	}
	tr := &train.Trajectory{Model: want.String(), Loss: obj.Loss, Step: c.Rule.trainRule(), Degree: math.NaN(), Stalled: a.Stalled}
	if d := want.Degree(); d.Homogeneous {
		tr.Degree = d.Order
	}
	scale := 1.0 // lr on the summed loss
	if ct.Reduction == "mean" {
		scale = 1 / float64(c.N)
	}
	logT, logEta := math.Inf(-1), math.Inf(-1)
	for i, th := range ct.Theta {
		if i > 0 {
			gap := float64(ct.Steps[i] - ct.Steps[i-1])
			logEta = math.Log(ct.LR[i-1] * scale)
			if a.LogEta != nil {
				logEta = a.LogEta[i]
			}
			logT = numerics.LogAddExp(logT, logEta+math.Log(gap))
			if a.LogTime != nil {
				logT = a.LogTime[i]
			}
		}
		ev, err := obj.Evaluate(th, true)
		if err != nil {
			// A θ our objective cannot evaluate: the run diverged there.
			return tr, &answerError{RunFailed, fmt.Errorf("record %d (step %d): %v", i, ct.Steps[i], err)}
		}
		r := train.Measure(obj, th, ev, ct.Steps[i], logT)
		r.LogEta, r.Theta = logEta, th
		tr.Records = append(tr.Records, r)
	}
	tr.Theta = ct.Theta[T-1]
	tr.Steps = ct.Steps[T-1]
	withWeights(tr, c.Weights)
	if a.RunError != "" {
		return tr, &answerError{RunFailed, errors.New(a.RunError)}
	}
	return tr, nil
}

// binaryEqual reports labels equal up to 0/1 read as −1/+1 (check's
// reading of a binary y).
func binaryEqual(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		if g == 0 {
			g = -1
		}
		if g != want[i] {
			return false
		}
	}
	return true
}

// inlineTrajectory builds check's trajectory from inline arrays (engine
// layout, reduction sum).
func inlineTrajectory(in *Inline, seq *Sequential, c *Case) (*check.Trajectory, error) {
	P := 0
	for _, p := range seq.Params {
		P += p.Size()
	}
	for i, th := range in.Theta {
		if len(th) != P {
			return nil, wrongShape("inline θ of record %d has %d entries, the model %d", i, len(th), P)
		}
	}
	ct := &check.Trajectory{Steps: in.Step, LR: in.LR, Reduction: "sum", Params: seq.Params, Theta: in.Theta,
		Modules: in.Modules, InputShape: seq.InputShape}
	if err := ct.Validate(); err != nil {
		return nil, malformed("inline trajectory: %v", err)
	}
	if in.Modules == nil && seq.InputShape != nil {
		// check.MapSpec needs the modules of a CNN to permute it.
		for _, m := range seq.Modules {
			ct.Modules = append(ct.Modules, m.Text)
		}
	}
	return ct, nil
}

// readEvaluation checks an eval answer's shapes and values and permutes
// ∇Φ and ∇log 𝓛 into our layout.
func readEvaluation(c *EvalCase, a *Answer) (*Evaluation, error) {
	m, err := checkInputs(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Theta)
	if err != nil {
		return nil, err
	}
	seq, err := SequentialOf(m)
	if err != nil {
		return nil, err
	}
	k, p := m.Out(), m.NumParams()
	switch {
	case len(a.Phi) != c.N*k:
		return nil, wrongShape("phi has %d values, want n·K = %d", len(a.Phi), c.N*k)
	case len(a.Grad) != c.N*k*p:
		return nil, wrongShape("grad has %d values, want n·K·P = %d", len(a.Grad), c.N*k*p)
	case c.Loss != 0 && (a.LogLoss == nil || len(a.Dir) != p):
		return nil, wrongShape("the case asks for the loss: want logloss and dir of %d values", p)
	}
	for name, v := range map[string][]float64{"phi": a.Phi, "grad": a.Grad, "dir": a.Dir} {
		if i := finite(v); i >= 0 {
			return nil, malformed("%s[%d] is %v", name, i, v[i])
		}
	}
	e := &Evaluation{Phi: a.Phi, Grad: make([]float64, 0, len(a.Grad)), LogLoss: math.NaN()}
	for r := range c.N * k {
		e.Grad = append(e.Grad, seq.ThetaIn(a.Grad[r*p:(r+1)*p])...)
	}
	if c.Loss != 0 {
		e.LogLoss, e.Dir = *a.LogLoss, seq.ThetaIn(a.Dir)
	}
	return e, nil
}

// TrajectoryAnswer writes a run of our layout as an answer in seq's
// layout: the NPZ file out (check's format, reduction sum, modules and
// input shape as a PyTorch script saves them), or inline when out is "".
// A Go adapter (and the fake engine of the tests) answers with it.
func TrajectoryAnswer(id int, tr *train.Trajectory, c *Case, seq *Sequential, out string) (*Answer, error) {
	a := &Answer{Type: TypeTrajectory, ID: id, Stalled: tr.Stalled}
	T := len(tr.Records)
	if T == 0 {
		return nil, errors.New("engines: the run recorded nothing")
	}
	steps, lr, thetas := make([]int, T), make([]float64, T), make([][]float64, T)
	a.LogEta, a.LogTime = make([]float64, T), make([]float64, T)
	for i, r := range tr.Records {
		steps[i], thetas[i] = r.Step, seq.ThetaOut(r.Theta)
		if i > 0 {
			a.LogEta[i], a.LogTime[i] = r.LogEta, r.LogT
		}
	}
	for i := range lr {
		// lr is the step from each record to the next; for a rule whose η
		// overflows it is only a placeholder (log_eta carries η).
		j := min(i+1, T-1)
		lr[i] = math.Exp(tr.Records[j].LogEta)
		if !(lr[i] > 0) || math.IsInf(lr[i], 0) {
			lr[i] = 1
		}
	}
	if c.Rule.Kind == GD {
		// η as the case gives it (a PyTorch script saves its lr).
		a.LogEta, a.LogTime = nil, nil
		for i := range lr {
			lr[i] = c.Rule.LR
		}
	}
	modules := make([]string, len(seq.Modules))
	for i, m := range seq.Modules {
		modules[i] = m.Text
	}
	if out == "" {
		a.Inline = &Inline{Step: steps, LR: lr, Theta: thetas, Modules: modules}
		return a, nil
	}
	ct := &check.Trajectory{Steps: steps, LR: lr, Reduction: "sum", Params: seq.Params, Theta: thetas,
		X: seq.InputOut(c.X, c.N), N: c.N, D: c.In, Y: c.Y, InputShape: seq.InputShape, Modules: modules}
	if err := check.WriteFile(out, ct); err != nil {
		return nil, err
	}
	a.NPZ = out
	return a, nil
}

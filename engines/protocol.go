package engines

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/models"
)

// The wire messages: one JSON object per line (docs/engines.md). The
// suite writes Hello, then Requests; the engine answers Hello, then one
// Answer per Request, with the Request's ID.

// Message types.
const (
	TypeHello      = "hello"
	TypeTrain      = "train"
	TypeEval       = "eval"
	TypeBye        = "bye"
	TypeTrajectory = "trajectory"
	TypeError      = "error"
)

// Hello opens the link: the suite's protocol version, and, from the
// engine, its capabilities.
type Hello struct {
	Type string `json:"type"`
	Capabilities
}

// WireModel is a model on the wire: our spec and the nn.Sequential it
// maps to (Sequential), in the engine's layout.
type WireModel struct {
	Spec    string   `json:"spec"`
	In      int      `json:"in"`
	Out     int      `json:"out"`
	Modules []Module `json:"modules"`
	// Params are the state_dict tensors θ is the concatenation of.
	Params []WireParam `json:"params"`
	// InputShape is (C, H, W) or (C, W) of a CNN's inputs, channels first.
	InputShape []int `json:"input_shape,omitempty"`
}

// WireParam is one state_dict tensor: its key and shape.
type WireParam struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
}

// Array is an n-dimensional float64 array, C order.
type Array struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Request is one case (Type train or eval).
type Request struct {
	Type  string    `json:"type"`
	ID    int       `json:"id"`
	Case  string    `json:"case"`
	Model WireModel `json:"model"`
	// X is (n, d), or (n, C, H, W) / (n, C, W) for a CNN; Y (n,).
	X       Array     `json:"x"`
	Y       []float64 `json:"y,omitempty"`
	Loss    Loss      `json:"loss,omitempty"`
	Weights []float64 `json:"weights,omitempty"`
	// Theta is θ₀ (train) or θ (eval), flat in the engine's layout: the
	// Params concatenated, each C order.
	Theta       []float64 `json:"theta"`
	Rule        StepRule  `json:"rule,omitzero"`
	Steps       int       `json:"steps,omitempty"`
	StopLogLoss float64   `json:"stop_logloss,omitempty"`
	Record      Schedule  `json:"record,omitzero"`
	LogDomain   bool      `json:"logdomain,omitempty"`
	// Out is the NPZ file the trajectory goes to ("": answer inline).
	Out string `json:"out,omitempty"`
}

// Inline is a trajectory in the answer itself (small cases): the recorded
// steps, the step size from each record to the next on the summed loss
// (lr, reduction "sum"), θ of every record flat in the engine's layout,
// and str(m) of the modules.
type Inline struct {
	Step    []int       `json:"step"`
	LR      []float64   `json:"lr"`
	Theta   [][]float64 `json:"theta"`
	Modules []string    `json:"modules,omitempty"`
}

// Answer is the engine's reply to a Request.
type Answer struct {
	Type string `json:"type"`
	ID   int    `json:"id"`
	// A trajectory: in the NPZ file the request named (check's format,
	// docs/check.md), or inline.
	NPZ    string  `json:"npz,omitempty"`
	Inline *Inline `json:"inline,omitempty"`
	// LogEta is log η of the step that led to each record (entry 0
	// unused), and LogTime log T, T = Σ η, at each record (entry 0 unused:
	// T = 0), both on the summed loss: for a rule whose η and T overflow
	// float64 (the loss-based schedule, η = α/𝓛̄). Without LogTime, T is
	// summed from LogEta (η constant between records), without either from
	// the file's lr.
	LogEta  []float64 `json:"log_eta,omitempty"`
	LogTime []float64 `json:"log_time,omitempty"`
	// Stalled: the loss-based schedule found no step that decreases 𝓛.
	Stalled bool `json:"stalled,omitempty"`
	// RunError: the run failed (a non-finite value) after what it recorded.
	RunError string `json:"run_error,omitempty"`
	// An evaluation: Φ (n×K), ∇Φ (n×K×P, θ in the engine's layout), and
	// with a loss log 𝓛 and ∇log 𝓛.
	Phi     []float64 `json:"phi,omitempty"`
	Grad    []float64 `json:"grad,omitempty"`
	LogLoss *float64  `json:"logloss,omitempty"`
	Dir     []float64 `json:"dir,omitempty"`
	// An error: Kind is "unsupported" (the engine cannot run the case),
	// "bad-request" or "failed"; Message says what, in one line.
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
}

// TrainRequest encodes a case for an engine whose layout is seq's.
func TrainRequest(id int, c *Case, seq *Sequential, out string) *Request {
	r := &Request{Type: TypeTrain, ID: id, Case: c.Name, Model: wireModel(c.Model, c.In, seq),
		X: wireX(c.X, c.N, c.In, seq), Y: c.Y, Loss: c.Loss, Weights: c.Weights, Theta: seq.ThetaOut(c.Theta0),
		Rule: c.Rule, Steps: c.Steps, StopLogLoss: c.StopLogLoss, Record: c.Record, LogDomain: c.LogDomain, Out: out}
	return r
}

// EvalRequest encodes an evaluation.
func EvalRequest(id int, c *EvalCase, seq *Sequential) *Request {
	return &Request{Type: TypeEval, ID: id, Case: c.Name, Model: wireModel(c.Model, c.In, seq),
		X: wireX(c.X, c.N, c.In, seq), Y: c.Y, Loss: c.Loss, Weights: c.Weights, Theta: seq.ThetaOut(c.Theta)}
}

func wireModel(spec string, in int, seq *Sequential) WireModel {
	out := 1
	if n := len(seq.Modules); n > 0 {
		out = seq.Modules[n-1].Out
	}
	ps := make([]WireParam, len(seq.Params))
	for i, p := range seq.Params {
		ps[i] = WireParam{Name: p.Name, Shape: p.Shape}
	}
	return WireModel{Spec: spec, In: in, Out: out, Modules: seq.Modules, Params: ps, InputShape: seq.InputShape}
}

func wireX(x []float64, n, in int, seq *Sequential) Array {
	return Array{Shape: append([]int{n}, shapeOr(seq.InputShape, in)...), Data: seq.InputOut(x, n)}
}

func shapeOr(s []int, in int) []int {
	if s == nil {
		return []int{in}
	}
	return s
}

// TrainCase decodes a train request into a case in our layout, with the
// mapping of its model.
func (r *Request) TrainCase() (*Case, *Sequential, error) {
	seq, n, x, theta, err := r.decode()
	if err != nil {
		return nil, nil, err
	}
	c := &Case{Name: r.Case, Model: r.Model.Spec, In: r.Model.In, X: x, N: n, Y: r.Y, Loss: r.Loss,
		Weights: r.Weights, Theta0: theta, Rule: r.Rule, Steps: r.Steps, StopLogLoss: r.StopLogLoss,
		Record: r.Record, LogDomain: r.LogDomain}
	return c, seq, c.Validate()
}

// EvalCase decodes an eval request into our layout.
func (r *Request) EvalCase() (*EvalCase, *Sequential, error) {
	seq, n, x, theta, err := r.decode()
	if err != nil {
		return nil, nil, err
	}
	c := &EvalCase{Name: r.Case, Model: r.Model.Spec, In: r.Model.In, X: x, N: n, Theta: theta, Loss: r.Loss, Y: r.Y, Weights: r.Weights}
	_, err = checkInputs(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Theta)
	return c, seq, err
}

// decode checks the request's shapes and returns its model's mapping and
// X and θ in our layout.
func (r *Request) decode() (seq *Sequential, n int, x, theta []float64, err error) {
	m, err := models.Parse(r.Model.Spec, r.Model.In)
	if err != nil {
		return nil, 0, nil, nil, fmt.Errorf("%w %s: %v", ErrBadCase, r.Case, err)
	}
	if seq, err = SequentialOf(m); err != nil {
		return nil, 0, nil, nil, err
	}
	size := 1
	for _, s := range r.X.Shape {
		size *= s
	}
	if len(r.X.Shape) < 2 || size != len(r.X.Data) || r.X.Shape[0]*r.Model.In != size {
		return nil, 0, nil, nil, fmt.Errorf("%w %s: X of shape %v with %d values on %d inputs", ErrBadCase, r.Case, r.X.Shape, len(r.X.Data), r.Model.In)
	}
	if len(r.Theta) != m.NumParams() {
		return nil, 0, nil, nil, fmt.Errorf("%w %s: θ has %d entries, %s needs %d", ErrBadCase, r.Case, len(r.Theta), m, m.NumParams())
	}
	n = r.X.Shape[0]
	return seq, n, seq.InputIn(r.X.Data, n), seq.ThetaIn(r.Theta), nil
}

// finite reports the first non-finite entry of v, or -1.
func finite(v []float64) int {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}

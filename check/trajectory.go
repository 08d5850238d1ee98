package check

import (
	"fmt"
	"math"
	"strings"
)

// Param is one parameter tensor of a recorded run: its state_dict key and
// its shape (without the leading record axis).
type Param struct {
	Name  string
	Shape []int
}

// Size returns the number of entries of the tensor.
func (p Param) Size() int {
	n := 1
	for _, s := range p.Shape {
		n *= s
	}
	return n
}

// Trajectory is a training run recorded outside the engine (or exported by
// it): the trajectory format of docs/check.md. Theta[t] is the flat θ of
// record t: the tensors of Params in order, each flattened row-major (the
// engine's layout, see doc.go).
type Trajectory struct {
	// Steps are the recorded step indices, strictly increasing.
	Steps []int
	// LR[t] is the step size used from record t to the next (a discrete
	// run); Time[t] is the flow time of record t (a gradient flow). Exactly
	// one of them is set.
	LR, Time []float64
	// Reduction says which loss LR is a step on: "mean" (𝓛/n, PyTorch's
	// default) or "sum" (𝓛 = Σ_n ℓ_n, the engine's).
	Reduction string
	Params    []Param
	Theta     [][]float64
	// X (N×D, row-major) and Y are the training data, when the file has them.
	X    []float64
	N, D int
	// InputShape is (C, H, W) of image inputs, PyTorch's order, when the
	// file has X of shape (n, C, H, W) or an input_shape array; X is then
	// flattened in PyTorch's order until the Conv2d mapping permutes it.
	InputShape []int
	Y          []float64
	// Weights are the GRW weights of every record (T×N), when recorded; a
	// file with one weight vector (n,) gives the same row at every record.
	Weights [][]float64
	// WeightSum is the GRW weights' integral from each record's predecessor
	// to it (T×N), Σ_t lr_t·q^{(t)} over the steps between them in lr's
	// units (train.Record.WeightSum), when recorded; row 0 is not used.
	// With it ZD-T7 bounds the steps' coefficients of weights that move
	// between records (theorems/limits/gdstep.go); without it, only GD's cone.
	WeightSum [][]float64
	// Scheme names the GRW scheme of Weights when the file states it
	// ("erm", "iw"; schemewitness.go): ZD-T7 then recomputes the weights
	// from its definition first. "" when not stated.
	Scheme string
	// Modules are the str() of the nn.Sequential's modules in order, when
	// recorded; they name the activations, which the state_dict does not
	// carry.
	Modules []string
	// Outputs are the network's outputs on X at the last record (N×K,
	// row-major), when recorded: Check compares the mapped model's with
	// them (MappingTolerance).
	Outputs []float64
	// LocalError[t] is an integrator's summed local error estimate ‖e‖₂
	// of the steps that led to record t (flows only; optional).
	LocalError []float64
	// Scalars are per-step numbers logged beside the snapshots (nil: none;
	// scalars.go).
	Scalars *Scalars
}

// NumParams returns the length of the flat θ.
func (t *Trajectory) NumParams() int {
	n := 0
	for _, p := range t.Params {
		n += p.Size()
	}
	return n
}

// Flow reports whether the run is a gradient flow (Time recorded).
func (t *Trajectory) Flow() bool { return t.Time != nil }

// Validate checks the trajectory's shapes and values; the error names the
// array at fault.
func (t *Trajectory) Validate() error {
	T := len(t.Steps)
	if T < 1 {
		return fmt.Errorf("step: no records")
	}
	for i := 1; i < T; i++ {
		if t.Steps[i] <= t.Steps[i-1] {
			return fmt.Errorf("step: not strictly increasing at record %d (%d after %d)", i, t.Steps[i], t.Steps[i-1])
		}
	}
	if t.Steps[0] < 0 {
		return fmt.Errorf("step: negative step %d", t.Steps[0])
	}
	switch {
	case t.LR == nil && t.Time == nil:
		return fmt.Errorf("missing array lr (or time for a flow)")
	case t.LR != nil && t.Time != nil:
		return fmt.Errorf("both lr and time: a run is either discrete (lr) or a flow (time)")
	}
	if t.LR != nil {
		if len(t.LR) != T {
			return fmt.Errorf("lr: %d values for %d records", len(t.LR), T)
		}
		for i, v := range t.LR {
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("lr: record %d has %v, want a finite number > 0", i, v)
			}
		}
	}
	if t.Time != nil {
		if len(t.Time) != T {
			return fmt.Errorf("time: %d values for %d records", len(t.Time), T)
		}
		for i, v := range t.Time {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (i > 0 && !(v > t.Time[i-1])) {
				return fmt.Errorf("time: record %d has %v, want finite, ≥ 0 and strictly increasing", i, v)
			}
		}
	}
	if t.Scalars != nil {
		if err := t.Scalars.validate(); err != nil {
			return err
		}
	}
	if t.LocalError != nil {
		if len(t.LocalError) != T {
			return fmt.Errorf("local_error: %d values for %d records", len(t.LocalError), T)
		}
		for i, v := range t.LocalError {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("local_error: record %d has %v, want a finite number ≥ 0", i, v)
			}
		}
	}
	switch t.Reduction {
	case "mean", "sum":
	default:
		return fmt.Errorf("reduction %q: want mean or sum", t.Reduction)
	}
	if len(t.Params) == 0 {
		return fmt.Errorf("no parameter arrays theta/<key>")
	}
	P := t.NumParams()
	if len(t.Theta) != T {
		return fmt.Errorf("theta: %d snapshots for %d records", len(t.Theta), T)
	}
	for i, th := range t.Theta {
		if len(th) != P {
			return fmt.Errorf("theta: record %d has %d entries, the parameters %d", i, len(th), P)
		}
		for j, v := range th {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				name, at := t.locate(j)
				return fmt.Errorf("theta/%s: record %d (step %d) has %v at entry %d", name, i, t.Steps[i], v, at)
			}
		}
	}
	if t.X != nil || t.Y != nil {
		if t.X == nil || t.Y == nil {
			return fmt.Errorf("X and y go together: the file has only one of them")
		}
		if t.N < 1 || t.D < 1 || len(t.X) != t.N*t.D || len(t.Y) != t.N {
			return fmt.Errorf("X is %d×%d and y has %d values: want X (n, d) and y (n,)", t.N, t.D, len(t.Y))
		}
		for i, v := range t.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("X: sample %d feature %d is %v", i/t.D, i%t.D, v)
			}
		}
		for i, v := range t.Y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("y: sample %d is %v", i, v)
			}
		}
	}
	if t.Weights != nil {
		if len(t.Weights) != T {
			return fmt.Errorf("weights: %d rows for %d records", len(t.Weights), T)
		}
		for i, w := range t.Weights {
			if t.N > 0 && len(w) != t.N {
				return fmt.Errorf("weights: record %d has %d weights for %d samples", i, len(w), t.N)
			}
			for j, v := range w {
				if !(v >= 0) || math.IsInf(v, 0) {
					return fmt.Errorf("weights: record %d sample %d is %v, want a finite number ≥ 0", i, j, v)
				}
			}
		}
	}
	if t.WeightSum != nil {
		if t.Weights == nil {
			return fmt.Errorf("weight_sum: without weights")
		}
		if len(t.WeightSum) != T {
			return fmt.Errorf("weight_sum: %d rows for %d records", len(t.WeightSum), T)
		}
		for i, w := range t.WeightSum {
			if len(w) != len(t.Weights[i]) {
				return fmt.Errorf("weight_sum: record %d has %d sums for %d weights", i, len(w), len(t.Weights[i]))
			}
			for j, v := range w {
				if !(v >= 0) || math.IsInf(v, 0) {
					return fmt.Errorf("weight_sum: record %d sample %d is %v, want a finite number ≥ 0", i, j, v)
				}
			}
		}
	}
	if t.Outputs != nil {
		if t.X == nil || len(t.Outputs)%t.N != 0 {
			return fmt.Errorf("outputs: %d values, not a multiple of the %d samples of X", len(t.Outputs), t.N)
		}
		for i, v := range t.Outputs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("outputs: entry %d is %v", i, v)
			}
		}
	}
	for i, m := range t.Modules {
		if strings.TrimSpace(m) == "" {
			return fmt.Errorf("modules: entry %d is empty", i)
		}
	}
	return nil
}

// locate returns the tensor and the index inside it of flat entry j.
func (t *Trajectory) locate(j int) (string, int) {
	for _, p := range t.Params {
		if j < p.Size() {
			return p.Name, j
		}
		j -= p.Size()
	}
	return "?", j
}

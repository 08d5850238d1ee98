package check

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// FromTrain converts a run of the engine (records that kept θ) into the
// trajectory format, so that it can be exported (WriteNPZ) and checked like
// any other run: the parameters as one tensor per block of the model
// (models.Block, in θ's order: a dense layer's weight (out, in) and bias
// (out,)), lr[i] the step from record i to the next (the step that led to
// record i+1: exact for a constant step or consecutive records), on the
// summed loss (reduction "sum"),
// or the flow time and local errors for a flow; the data and the recorded
// GRW weights.
func FromTrain(tr *train.Trajectory, model models.Model, data *dataset.Dataset) (*Trajectory, error) {
	t := &Trajectory{Reduction: "sum", N: data.N, D: data.D, X: data.X, Y: data.Y}
	for _, r := range tr.Records {
		if r.Theta == nil {
			return nil, errors.New("check: the run did not keep θ (train.Config.KeepTheta)")
		}
	}
	if len(tr.Records) == 0 {
		return nil, errors.New("check: the run has no records")
	}
	t.Params = paramsOf(model)
	t.Modules = modulesOf(model.String(), t.Params)
	flow := tr.Step.Kind == train.FlowStep
	for i, r := range tr.Records {
		t.Steps = append(t.Steps, r.Step)
		t.Theta = append(t.Theta, r.Theta)
		if r.Weights != nil {
			t.Weights = append(t.Weights, r.Weights)
		}
		if flow {
			t.Time = append(t.Time, math.Exp(r.LogT))
			t.LocalError = append(t.LocalError, r.LocalError)
			continue
		}
		// The step that led to the next record is the last of the gap to it:
		// the step from record i for a constant step size. A record that
		// starts a window of train.RunWindows carries none (−Inf).
		t.LR = append(t.LR, math.NaN())
		if i+1 < len(tr.Records) && !math.IsInf(tr.Records[i+1].LogEta, -1) {
			t.LR[i] = math.Exp(tr.Records[i+1].LogEta)
		}
	}
	if !flow {
		// Between windows (train.RunWindows) the step is not recorded: the
		// nearest recorded one stands for it (exact for a constant step).
		if err := fillSteps(t.LR); err != nil {
			return nil, err
		}
	}
	if t.Weights != nil && len(t.Weights) != len(t.Steps) {
		return nil, errors.New("check: some records kept the GRW weights and some did not")
	}
	t.WeightSum = weightSumsOf(tr)
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return t, nil
}

// modulesOf writes the str() of the nn.Sequential modules of an MLP spec
// (MapModel reads them back): a Linear per weight tensor and the activation
// between them. nil for other models.
func modulesOf(spec string, ps []Param) []string {
	base := spec
	if i := strings.IndexAny(spec, "/+"); i >= 0 {
		base = spec[:i]
	}
	act := ""
	switch f := strings.Split(base, ":"); {
	case base == "linear":
	case len(f) == 3 && f[0] == "mlp":
		switch a := f[1]; {
		case a == "relu":
			act = "ReLU()"
		case a == "quad":
			act = "Square()"
		case a == "tanh":
			act = "Tanh()"
		case a == "id":
			// paramsOf numbers layer k's tensors 2k (a module between
			// each two Linears): an Identity, which maps to nothing.
			act = "Identity()"
		case strings.HasPrefix(a, "lrelu"):
			act = "LeakyReLU(negative_slope=" + strings.TrimPrefix(a, "lrelu") + ")"
			if a == "lrelu" {
				return nil // the engine's default slope is not PyTorch's
			}
		case strings.HasPrefix(a, "relu"):
			act = "ReLUPow(k=" + strings.TrimPrefix(a, "relu") + ")"
		default:
			return nil
		}
	default:
		return nil
	}
	var ms []string
	for i, p := range ps {
		if len(p.Shape) != 2 {
			if len(p.Shape) == 1 && strings.HasSuffix(p.Name, ".bias") {
				continue
			}
			return nil
		}
		if len(ms) > 0 && act != "" {
			ms = append(ms, act)
		}
		bias := i+1 < len(ps) && strings.HasSuffix(ps[i+1].Name, ".bias")
		ms = append(ms, fmt.Sprintf("Linear(in_features=%d, out_features=%d, bias=%s)", p.Shape[1], p.Shape[0], map[bool]string{true: "True", false: "False"}[bias]))
	}
	return ms
}

// fillSteps replaces every NaN step size by the previous recorded one (the
// next for leading NaNs).
func fillSteps(lr []float64) error {
	last := math.NaN()
	for i, v := range lr {
		if !math.IsNaN(v) {
			last = v
		} else {
			lr[i] = last
		}
	}
	for i := len(lr) - 1; i >= 0; i-- {
		if !math.IsNaN(lr[i]) {
			last = lr[i]
		} else {
			lr[i] = last
		}
	}
	if math.IsNaN(last) {
		return errors.New("check: the run recorded no step (no two consecutive records)")
	}
	return nil
}

// paramsOf names the model's parameter blocks as a PyTorch nn.Sequential
// of the same network would: for an MLP, layer i's weight is "<2i>.weight"
// (the Linears sit at even module indices, the activations between them),
// shape (out, in), and its bias "<2i>.bias"; a block that is not a dense
// layer (a convolution) is one flat tensor "<k>.param".
func paramsOf(model models.Model) []Param {
	type blocker interface{ Blocks() []models.Block }
	b, ok := model.(blocker)
	if !ok {
		return []Param{{Name: "0.param", Shape: []int{model.NumParams()}}}
	}
	var ps []Param
	for k, bl := range b.Blocks() {
		var in, out int
		_, desc, _ := strings.Cut(bl.Name, " ")
		if n, _ := fmt.Sscanf(desc, "dense(%d→%d", &in, &out); n == 2 && (in*out == bl.Len || in*out+out == bl.Len) {
			ps = append(ps, Param{Name: fmt.Sprintf("%d.weight", 2*k), Shape: []int{out, in}})
			if in*out+out == bl.Len {
				ps = append(ps, Param{Name: fmt.Sprintf("%d.bias", 2*k), Shape: []int{out}})
			}
			continue
		}
		ps = append(ps, Param{Name: fmt.Sprintf("%d.param", k), Shape: []int{bl.Len}})
	}
	return ps
}

// weightSumsOf returns the weights' integrals between records
// (train.Record.WeightSum) as the file's weight_sum rows, row 0 zeros (the
// first record has none: nothing precedes it), or nil unless every later
// record has one (a run without weights, or one of train.RunWindows, whose
// windows restart the sum: a zero row there would claim that no weight
// moved the step, and ZD-T7 would then read a correct run as violated).
func weightSumsOf(tr *train.Trajectory) [][]float64 {
	recs := tr.Records
	if len(recs) < 2 || len(recs[0].Weights) == 0 {
		return nil
	}
	n := len(recs[0].Weights)
	out := [][]float64{make([]float64, n)}
	for _, r := range recs[1:] {
		if len(r.WeightSum) != n {
			return nil
		}
		out = append(out, r.WeightSum)
	}
	return out
}

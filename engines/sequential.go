package engines

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/models"
)

// ModuleKind is the class of one module of an nn.Sequential.
type ModuleKind int

// The modules a model spec maps to (docs/check.md's table, read from the
// engine's side).
const (
	Linear ModuleKind = iota + 1
	Conv1d
	Conv2d
	MaxPool1d
	AvgPool1d
	MaxPool2d
	AvgPool2d
	Flatten
	ReLU
	LeakyReLU
	ReLUPow // max(x, 0)^K, the module of examples/pytorch/train_digits.py
	Square  // x², the module of examples/pytorch/mapping_cases.py
	Tanh
)

var moduleNames = [...]string{"", "Linear", "Conv1d", "Conv2d", "MaxPool1d", "AvgPool1d", "MaxPool2d", "AvgPool2d", "Flatten", "ReLU", "LeakyReLU", "ReLUPow", "Square", "Tanh"}

// String is the PyTorch class name.
func (k ModuleKind) String() string { return enumName(moduleNames[:], int(k), "ModuleKind") }

// MarshalText writes the class name (the protocol's "kind").
func (k ModuleKind) MarshalText() ([]byte, error) {
	return enumText(moduleNames[:], int(k), "module kind")
}

// UnmarshalText reads a class name.
func (k *ModuleKind) UnmarshalText(b []byte) error {
	return enumParse(moduleNames[:], b, "module kind", (*int)(k))
}

// Module is one module of the nn.Sequential a spec maps to, with the
// arguments an adapter needs to build it and Text, str(m) as PyTorch
// prints it (what check.MapModel reads back).
type Module struct {
	Kind ModuleKind `json:"kind"`
	// In and Out are features (Linear) or channels (convolutions).
	In  int `json:"in,omitempty"`
	Out int `json:"out,omitempty"`
	// Kernel and Stride of a convolution; Kernel is the window of a pool
	// (whose stride is the window).
	Kernel int `json:"kernel,omitempty"`
	Stride int `json:"stride,omitempty"`
	// Same is padding="same" of a Conv2d (the engine puts an even kernel's
	// odd pixel after, as PyTorch does); otherwise no padding.
	Same bool `json:"same,omitempty"`
	Bias bool `json:"bias,omitempty"`
	// Slope is LeakyReLU's negative_slope, Power ReLUPow's k.
	Slope float64 `json:"slope,omitempty"`
	Power int     `json:"power,omitempty"`
	Text  string  `json:"text"`
}

// Sequential is the nn.Sequential a model spec maps to: the inverse of
// check.MapModel (docs/check.md, "The flat θ and the mapping of an
// nn.Sequential"), tested by the round trip through it.
type Sequential struct {
	Spec    string
	Modules []Module
	// Params are the state_dict tensors in order, keyed by module index
	// ("0.weight", "0.bias", "2.weight", …).
	Params []check.Param
	// InputShape is (C, H, W) of a Conv2d net's images or (C, W) of a
	// Conv1d net's sequences, PyTorch's order; nil for an MLP.
	InputShape []int
	// theta[j] is the index in PyTorch's flat θ (the Params concatenated,
	// each C order) of the engine's θ[j]; input[j] that of the engine's
	// feature j. nil: the layouts agree (an MLP).
	theta, input []int
}

// ErrNotExpressible reports a case the protocol cannot send: a model with
// no nn.Sequential that check maps back, a regularizer, a GRW scheme.
// The claim is not applicable on that engine, never a pass.
var ErrNotExpressible = fmt.Errorf("engines: not expressible in the engine protocol")

var (
	denseRE  = regexp.MustCompile(`dense\((\d+)→(\d+)(, bias)?\)`)
	conv1RE  = regexp.MustCompile(`conv\((\d+)x(\d+)→(\d+), k=(\d+), s=(\d+)(, bias)?\)`)
	conv2RE  = regexp.MustCompile(`conv2d\((\d+)x(\d+)x(\d+)→(\d+)x(\d+)x(\d+), k=(\d+), s=(\d+), (same|valid)(, bias)?\)`)
	poolRE   = regexp.MustCompile(`-(max|avg)(\d+)$`)
	atoiMust = func(s string) int { n, _ := strconv.Atoi(s); return n }
)

// SequentialOf maps a model to its nn.Sequential: Linear (and Conv1d or
// Conv2d stages, each an activation and an optional pool, then Flatten)
// with one activation between layers. A model check cannot map back
// (softplus, gelu, a CNN without activation, deeplinear's id between
// Linears is mapped: no module) is ErrNotExpressible, naming why.
func SequentialOf(m models.Model) (*Sequential, error) {
	spec := m.String()
	fields := strings.Split(baseOf(spec), ":")
	act, stages := "id", []string(nil)
	switch fields[0] {
	case "linear", "deeplinear":
	case "mlp":
		act = fields[1]
	case "cnn":
		conv, _, _ := strings.Cut(fields[2], "@") // cnn:ACT:CONV,…@C
		act, stages = fields[1], strings.Split(conv, ",")
	case "cnn2d":
		act, stages = fields[2], strings.Split(fields[3], ",")
	default:
		return nil, fmt.Errorf("%w: model %s", ErrNotExpressible, spec)
	}
	actMod, err := activationModule(act)
	if err != nil {
		return nil, fmt.Errorf("%w: model %s: %v", ErrNotExpressible, spec, err)
	}
	s := &Sequential{Spec: spec}
	w := walk{s: s, act: actMod, n: m.NumParams()}
	for i, b := range m.Blocks() {
		if err := w.block(b, stages, i); err != nil {
			return nil, fmt.Errorf("%w: model %s: %v", ErrNotExpressible, spec, err)
		}
	}
	if w.permuted {
		s.theta = w.perm
	}
	return s, nil
}

// SameModel reports whether two models are one network: the same
// parameter blocks, activation and outputs (mlp:relu:2x4+bias and
// mlp:relu:2x4+bias@1+bias@2 are).
func SameModel(a, b models.Model) bool {
	return a.In() == b.In() && a.Out() == b.Out() && baseOf(a.String()) == baseOf(b.String()) &&
		slices.Equal(a.Blocks(), b.Blocks())
}

// baseOf strips the options /K and +bias… from a spec.
func baseOf(spec string) string {
	if i := strings.IndexAny(spec, "/+"); i >= 0 {
		return spec[:i]
	}
	return spec
}

// activationModule returns the module of an engine activation (nil for
// id: Linears follow each other directly, a deep linear net).
func activationModule(act string) (*Module, error) {
	switch {
	case act == "id":
		return nil, nil
	case act == "relu":
		return &Module{Kind: ReLU, Text: "ReLU()"}, nil
	case act == "quad":
		return &Module{Kind: Square, Text: "Square()"}, nil
	case act == "tanh":
		return &Module{Kind: Tanh, Text: "Tanh()"}, nil
	case strings.HasPrefix(act, "lrelu"):
		a, err := strconv.ParseFloat(strings.TrimPrefix(act, "lrelu"), 64)
		if err != nil {
			return nil, fmt.Errorf("activation %s has no explicit slope", act)
		}
		return &Module{Kind: LeakyReLU, Slope: a, Text: "LeakyReLU(negative_slope=" + pyFloat(a) + ")"}, nil
	case strings.HasPrefix(act, "relu"):
		k, err := strconv.Atoi(strings.TrimPrefix(act, "relu"))
		if err != nil {
			return nil, fmt.Errorf("activation %s", act)
		}
		return &Module{Kind: ReLUPow, Power: k, Text: fmt.Sprintf("ReLUPow(k=%d)", k)}, nil
	}
	return nil, fmt.Errorf("activation %s has no module check maps back (relu, lrelu<α>, relu<k>, quad, tanh, id)", act)
}

// pyFloat formats a float as Python's repr does for the values a slope
// takes (0.2, 0.01, 1e-05).
func pyFloat(a float64) string {
	s := strconv.FormatFloat(a, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// walk builds a Sequential block by block.
type walk struct {
	s        *Sequential
	act      *Module
	n        int   // parameters
	perm     []int // theta permutation, engine index → PyTorch index
	permuted bool
	off      int // offset of the next block
	conv     int // conv stages read
	flat     bool
	c, h, w  int // shape after the last conv stage, channels first
	layers   int // Linear and conv layers added
}

func (w *walk) add(m Module) int {
	w.s.Modules = append(w.s.Modules, m)
	return len(w.s.Modules) - 1
}

func (w *walk) addAct() {
	if w.act != nil {
		w.add(*w.act)
	}
}

// params adds the state_dict tensors of module idx and the identity
// permutation of a block of len entries; it returns the block's offset.
func (w *walk) params(idx int, shape []int, bias bool) int {
	if w.perm == nil {
		w.perm = make([]int, w.n)
		for j := range w.perm {
			w.perm[j] = j
		}
	}
	w.s.Params = append(w.s.Params, check.Param{Name: fmt.Sprintf("%d.weight", idx), Shape: shape})
	size := 1
	for _, v := range shape {
		size *= v
	}
	off := w.off
	w.off += size
	if bias {
		w.s.Params = append(w.s.Params, check.Param{Name: fmt.Sprintf("%d.bias", idx), Shape: []int{shape[0]}})
		w.off += shape[0]
	}
	return off
}

func (w *walk) block(b models.Block, stages []string, i int) error {
	if b.Offset != w.off {
		return fmt.Errorf("block %s at offset %d, expected %d", b.Name, b.Offset, w.off)
	}
	switch {
	case denseRE.MatchString(b.Name):
		g := denseRE.FindStringSubmatch(b.Name)
		in, out, bias := atoiMust(g[1]), atoiMust(g[2]), g[3] != ""
		if w.layers > 0 {
			if w.conv > 0 && !w.flat {
				w.add(Module{Kind: Flatten, Text: "Flatten(start_dim=1, end_dim=-1)"})
				w.flat = true
				if in != w.c*w.h*w.w {
					return fmt.Errorf("dense block %s after %d×%d×%d features", b.Name, w.c, w.h, w.w)
				}
			} else {
				w.addAct()
			}
		}
		idx := w.add(Module{Kind: Linear, In: in, Out: out, Bias: bias,
			Text: fmt.Sprintf("Linear(in_features=%d, out_features=%d, bias=%s)", in, out, pyBool(bias))})
		off := w.params(idx, []int{out, in}, bias)
		if w.conv > 0 && w.layers == w.conv {
			// The first Linear after Flatten: the engine's column
			// (r·W + c)·C + k is PyTorch's k·H·W + r·W + c.
			cols := hwcToCHW(w.c, w.h, w.w)
			for o := range out {
				for j, to := range cols {
					w.perm[off+o*in+j] = off + o*in + to
				}
			}
			w.permuted = true
		}
	case conv2RE.MatchString(b.Name):
		g := conv2RE.FindStringSubmatch(b.Name)
		h, wd, cin := atoiMust(g[1]), atoiMust(g[2]), atoiMust(g[3])
		ho, wo, cout := atoiMust(g[4]), atoiMust(g[5]), atoiMust(g[6])
		k, st, same, bias := atoiMust(g[7]), atoiMust(g[8]), g[9] == "same", g[10] != ""
		if w.conv == 0 {
			w.s.InputShape = []int{cin, h, wd}
			w.s.input = hwcToCHW(cin, h, wd)
		}
		text := fmt.Sprintf("Conv2d(%d, %d, kernel_size=(%d, %d), stride=(%d, %d)", cin, cout, k, k, st, st)
		if same {
			text += ", padding=same"
		}
		if !bias {
			text += ", bias=False"
		}
		idx := w.add(Module{Kind: Conv2d, In: cin, Out: cout, Kernel: k, Stride: st, Same: same, Bias: bias, Text: text + ")"})
		off := w.params(idx, []int{cout, cin, k, k}, bias)
		for o := range cout {
			for a := range k {
				for bb := range k {
					for c := range cin {
						w.perm[off+o*k*k*cin+(a*k+bb)*cin+c] = off + ((o*cin+c)*k+a)*k + bb
					}
				}
			}
		}
		w.permuted = true
		w.c, w.h, w.w = cout, ho, wo
		if err := w.pool(stages, 2); err != nil {
			return err
		}
	case conv1RE.MatchString(b.Name):
		g := conv1RE.FindStringSubmatch(b.Name)
		length, cin, cout := atoiMust(g[1]), atoiMust(g[2]), atoiMust(g[3])
		k, st, bias := atoiMust(g[4]), atoiMust(g[5]), g[6] != ""
		if w.conv == 0 {
			w.s.InputShape = []int{cin, length}
			w.s.input = hwcToCHW(cin, 1, length)
		}
		text := fmt.Sprintf("Conv1d(%d, %d, kernel_size=(%d,), stride=(%d,)", cin, cout, k, st)
		if !bias {
			text += ", bias=False"
		}
		idx := w.add(Module{Kind: Conv1d, In: cin, Out: cout, Kernel: k, Stride: st, Bias: bias, Text: text + ")"})
		off := w.params(idx, []int{cout, cin, k}, bias)
		for o := range cout {
			for j := range k {
				for c := range cin {
					w.perm[off+o*k*cin+j*cin+c] = off + (o*cin+c)*k + j
				}
			}
		}
		w.permuted = true
		w.c, w.h, w.w = cout, 1, (length-k)/st+1
		if err := w.pool(stages, 1); err != nil {
			return err
		}
	default:
		return fmt.Errorf("block %d (%s) is neither a dense layer nor a convolution", i+1, b.Name)
	}
	w.layers++
	return nil
}

// pool adds the activation of the conv stage just read and its pool.
func (w *walk) pool(stages []string, dims int) error {
	if w.act == nil {
		return fmt.Errorf("a CNN without an activation (id) has no nn.Sequential check maps back")
	}
	if w.conv >= len(stages) {
		return fmt.Errorf("more conv blocks than stages in the spec")
	}
	w.add(*w.act)
	g := poolRE.FindStringSubmatch(stages[w.conv])
	w.conv++
	if g == nil {
		return nil
	}
	p := atoiMust(g[2])
	var m Module
	switch {
	case g[1] == "max" && dims == 2:
		m = Module{Kind: MaxPool2d, Kernel: p, Text: fmt.Sprintf("MaxPool2d(kernel_size=%d, stride=%d, padding=0, dilation=1, ceil_mode=False)", p, p)}
	case g[1] == "avg" && dims == 2:
		m = Module{Kind: AvgPool2d, Kernel: p, Text: fmt.Sprintf("AvgPool2d(kernel_size=%d, stride=%d, padding=0)", p, p)}
	case g[1] == "max":
		m = Module{Kind: MaxPool1d, Kernel: p, Text: fmt.Sprintf("MaxPool1d(kernel_size=%d, stride=%d, padding=0, dilation=1, ceil_mode=False)", p, p)}
	default:
		m = Module{Kind: AvgPool1d, Kernel: p, Text: fmt.Sprintf("AvgPool1d(kernel_size=(%d,), stride=(%d,), padding=(0,))", p, p)}
	}
	w.add(m)
	w.h, w.w = w.h/p, w.w/p
	if dims == 1 {
		w.h = 1
	}
	return nil
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// hwcToCHW returns, for every index (r·W + c)·C + k of the channels-last
// layout, its index k·H·W + r·W + c in the channels-first one.
func hwcToCHW(ch, h, w int) []int {
	p := make([]int, ch*h*w)
	for r := range h {
		for c := range w {
			for k := range ch {
				p[(r*w+c)*ch+k] = k*h*w + r*w + c
			}
		}
	}
	return p
}

// ThetaOut returns the engine's θ in PyTorch's layout (the Params
// concatenated, each C order).
func (s *Sequential) ThetaOut(theta []float64) []float64 { return scatter(theta, s.theta) }

// ThetaIn returns PyTorch's flat θ in the engine's layout.
func (s *Sequential) ThetaIn(theta []float64) []float64 { return gather(theta, s.theta) }

// InputOut returns the engine's n×d inputs in PyTorch's layout (channels
// first); an MLP's are the same.
func (s *Sequential) InputOut(x []float64, n int) []float64 { return rows(x, n, s.input, scatter) }

// InputIn returns PyTorch's n×d inputs in the engine's layout.
func (s *Sequential) InputIn(x []float64, n int) []float64 { return rows(x, n, s.input, gather) }

// scatter returns out with out[idx[j]] = v[j] (a copy of v when idx is nil).
func scatter(v []float64, idx []int) []float64 {
	if idx == nil {
		return append([]float64(nil), v...)
	}
	out := make([]float64, len(v))
	for j, i := range idx {
		out[i] = v[j]
	}
	return out
}

// gather returns out with out[j] = v[idx[j]] (a copy of v when idx is nil).
func gather(v []float64, idx []int) []float64 {
	if idx == nil {
		return append([]float64(nil), v...)
	}
	out := make([]float64, len(v))
	for j, i := range idx {
		out[j] = v[i]
	}
	return out
}

// rows applies f with idx to each of the n rows of x.
func rows(x []float64, n int, idx []int, f func([]float64, []int) []float64) []float64 {
	if idx == nil || n == 0 {
		return append([]float64(nil), x...)
	}
	d := len(x) / n
	out := make([]float64, 0, len(x))
	for i := range n {
		out = append(out, f(x[i*d:(i+1)*d], idx)...)
	}
	return out
}

// sequentialOf parses spec on in inputs and maps it.
func sequentialOf(spec string, in int) (*Sequential, error) {
	m, err := models.Parse(spec, in)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCase, err)
	}
	return SequentialOf(m)
}

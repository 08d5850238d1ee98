package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/models"
)

// Mapping is the model spec a recorded run's tensors map to (doc.go has the
// table), and how it was found.
type Mapping struct {
	// Spec is the engine's model spec (models.Parse), In its input dimension.
	Spec string
	In   int
	// Note says what was assumed, when something was (the activation of a
	// run saved without its modules).
	Note string
	// layout permutes a PyTorch CNN's θ and X into the engine's layout
	// (nil: the run is in it already); Apply uses it.
	layout *convLayout
}

// Apply returns the run in the engine's layout: t itself for an MLP, whose
// layout is PyTorch's, and for a Conv2d network a copy with every record of
// θ and every sample of X permuted (doc.go, "Conv2d"). Check the copy.
func (m Mapping) Apply(t *Trajectory) *Trajectory {
	if m.layout == nil {
		return t
	}
	return m.layout.permuted(t)
}

// Move is Apply for a caller that drops t: a Conv2d network's records of θ
// are permuted in place (one record's worth of scratch, instead of a second
// copy of every θ: 26 MB a record on LL's CNN), so t's Theta is the
// returned run's and t must not be read after.
func (m Mapping) Move(t *Trajectory) *Trajectory {
	if m.layout == nil {
		return t
	}
	th := t.Theta
	t.Theta = nil // permuted copies nothing of θ
	c := m.layout.permuted(t)
	var scratch []float64
	for _, v := range th {
		scratch = gatherTo(scratch[:0], v, m.layout.theta)
		copy(v, scratch)
	}
	c.Theta = th
	return c
}

// layer is one Linear of the network, as found in the parameter tensors.
type layer struct {
	in, out int
	bias    bool
	key     string // state_dict prefix ("0", "fc1")
}

// layersOf reads the Linear layers from the parameter tensors: each a
// weight (out, in) — PyTorch's layout, which is the engine's (W row-major,
// then b) — optionally followed by its bias (out,), with in equal to the
// previous layer's out.
func layersOf(params []Param) ([]layer, error) {
	var ls []layer
	for i := 0; i < len(params); i++ {
		p := params[i]
		prefix, kind, ok := cutLast(p.Name)
		if !ok || kind != "weight" {
			return nil, fmt.Errorf("theta/%s: expected a weight tensor <module>.weight here (state_dict order: each Linear's weight, then its bias)", p.Name)
		}
		if len(p.Shape) != 2 {
			return nil, fmt.Errorf("theta/%s has shape %v per record, want (out_features, in_features) of a Linear (Conv1d and Conv2d weights are 3-D and 4-D; no other tensor is mapped)", p.Name, p.Shape)
		}
		l := layer{out: p.Shape[0], in: p.Shape[1], key: prefix}
		if l.out < 1 || l.in < 1 {
			return nil, fmt.Errorf("theta/%s has an empty shape %v", p.Name, p.Shape)
		}
		if len(ls) > 0 && ls[len(ls)-1].out != l.in {
			return nil, fmt.Errorf("theta/%s takes %d inputs, the layer before it gives %d", p.Name, l.in, ls[len(ls)-1].out)
		}
		if i+1 < len(params) {
			if bp, bk, ok := cutLast(params[i+1].Name); ok && bk == "bias" {
				if bp != prefix {
					return nil, fmt.Errorf("theta/%s follows theta/%s: a bias must follow its own weight", params[i+1].Name, p.Name)
				}
				if len(params[i+1].Shape) != 1 || params[i+1].Shape[0] != l.out {
					return nil, fmt.Errorf("theta/%s has shape %v, want (%d,)", params[i+1].Name, params[i+1].Shape, l.out)
				}
				l.bias = true
				i++
			}
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// cutLast splits "0.weight" into "0" and "weight".
func cutLast(name string) (prefix, last string, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

// module is one entry of the modules array, parsed from str(m).
type module struct {
	index int
	text  string
	name  string            // class name: Linear, ReLU, …
	args  map[string]string // keyword arguments (positional ones as "0", "1", …)
}

func parseModule(i int, s string) (module, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return module{}, fmt.Errorf("modules[%d] = %q: want str(m) of a module, Name(args)", i, s)
	}
	m := module{index: i, text: s, name: s[:open], args: map[string]string{}}
	inner := strings.TrimSpace(s[open+1 : len(s)-1])
	if inner == "" {
		return m, nil
	}
	for k, part := range strings.Split(inner, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if key, val, ok := strings.Cut(part, "="); ok {
			m.args[strings.TrimSpace(key)] = strings.TrimSpace(val)
		} else {
			m.args[strconv.Itoa(k)] = part
		}
	}
	return m, nil
}

// activation returns the engine's activation name for an activation module
// (relu, lrelu<α>, relu<k>, quad, id, tanh), or "" for a module that is not
// an activation.
func (m module) activation() (string, error) {
	switch m.name {
	case "ReLU":
		return "relu", nil
	case "LeakyReLU":
		a := "0.01" // PyTorch's default negative_slope
		if v, ok := m.args["negative_slope"]; ok {
			a = v
		} else if v, ok := m.args["0"]; ok {
			a = v
		}
		f, err := strconv.ParseFloat(a, 64)
		if err != nil || !(f > 0 && f < 1) {
			return "", fmt.Errorf("modules[%d] = %s: negative slope %q must be a number in (0, 1)", m.index, m.text, a)
		}
		return "lrelu" + strconv.FormatFloat(f, 'g', -1, 64), nil
	case "ReLUPow":
		k := m.args["k"]
		if k == "" {
			k = m.args["0"]
		}
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > 8 {
			return "", fmt.Errorf("modules[%d] = %s: power k=%q must be an integer in [1, 8]", m.index, m.text, k)
		}
		if n == 1 {
			return "relu", nil
		}
		return "relu" + k, nil
	case "Square":
		return "quad", nil
	case "Tanh":
		return "tanh", nil
	}
	return "", nil
}

// supportedModules lists what MapModel maps, for error messages.
const supportedModules = "Linear, ReLU, LeakyReLU, ReLUPow(k=K), Square, Tanh, Identity, Flatten"

// MapModel maps the run's tensors (and its modules, when recorded) to the
// engine's model spec. With modules, every module must be one of
// supportedModules: a Linear per weight tensor (in order; its bias=… must
// agree with the state_dict), one activation kind between the Linears, and a
// Linear last. Without modules the architecture is read from the shapes
// alone and the activation between Linears is taken to be ReLU, which Note
// says. A normalization layer, a Conv1d, dropout or any other module is
// refused by name. A run with a Conv2d (a 4-D weight or a Conv2d module)
// maps to a cnn2d spec (conv.go, doc.go "Conv2d"), one with a Conv1d to a
// cnn spec (conv1d.go); their θ and X are in PyTorch's layout until
// Mapping.Apply permutes them.
func MapModel(t *Trajectory) (Mapping, error) {
	if hasConv2d(t) {
		m, l, err := mapConv2d(t)
		m.layout = l
		return m, err
	}
	if hasConv1d(t) {
		m, l, err := mapConv1d(t)
		m.layout = l
		return m, err
	}
	ls, err := layersOf(t.Params)
	if err != nil {
		return Mapping{}, err
	}
	act, note := "relu", ""
	if t.Modules == nil {
		if len(ls) > 1 {
			note = "the file has no modules array: the activation between the Linear layers is taken to be ReLU (save modules, or pass the model spec)"
		}
	} else if act, err = mapModules(t.Modules, ls); err != nil {
		return Mapping{}, err
	}
	if len(ls) == 1 {
		act = "id"
	}
	// The engine's own name for the spec (mlp:relu:8 is mlp:relu:2x8).
	net, err := models.Parse(specOf(ls, act), ls[0].in)
	if err != nil {
		return Mapping{}, err
	}
	return Mapping{Spec: net.String(), In: ls[0].in, Note: note}, nil
}

// mapModules checks the modules against the layers and returns the
// activation.
func mapModules(texts []string, ls []layer) (string, error) {
	act := ""
	li := 0
	lastLinear, adjacent := false, -1
	for i, s := range texts {
		m, err := parseModule(i, s)
		if err != nil {
			return "", err
		}
		switch m.name {
		case "Linear":
			if li >= len(ls) {
				return "", fmt.Errorf("modules[%d] = %s: more Linear modules than weight tensors (%d)", i, s, len(ls))
			}
			l := ls[li]
			in, out := m.args["in_features"], m.args["out_features"]
			if in != strconv.Itoa(l.in) || out != strconv.Itoa(l.out) {
				return "", fmt.Errorf("modules[%d] = %s does not match theta/%s.weight of shape (%d, %d)", i, s, l.key, l.out, l.in)
			}
			if b := m.args["bias"]; (b == "True") != l.bias {
				return "", fmt.Errorf("modules[%d] = %s: bias=%s, but the state_dict %s a bias for %s", i, s, b, map[bool]string{true: "has", false: "has no"}[l.bias], l.key)
			}
			if k, err := strconv.Atoi(l.key); err == nil && k != i {
				return "", fmt.Errorf("modules[%d] = %s, but its weight is theta/%s.weight (module %d)", i, s, l.key, k)
			}
			if lastLinear && adjacent < 0 {
				adjacent = i
			}
			li++
			lastLinear = true
			continue
		case "Flatten", "Identity", "Dropout":
			// Flatten of (n, d) inputs is the identity; Dropout is the
			// identity in eval mode but not in training: refused.
			if m.name == "Dropout" {
				return "", fmt.Errorf("modules[%d] = %s is not supported: dropout trains a random sub-network at every step (no gradient-descent trajectory of one objective)", i, s)
			}
			continue
		}
		a, err := m.activation()
		if err != nil {
			return "", err
		}
		if a == "" {
			what := "is not supported"
			switch {
			case strings.Contains(m.name, "Norm"):
				what = "is a normalization layer: not homogeneous in θ and not mapped"
			case strings.HasPrefix(m.name, "Conv"):
				what = "is a convolution the engine has no model for (Conv1d and Conv2d are mapped)"
			}
			return "", fmt.Errorf("modules[%d] = %s %s (supported: %s)", i, s, what, supportedModules)
		}
		if li == 0 {
			return "", fmt.Errorf("modules[%d] = %s comes before the first Linear", i, s)
		}
		if act != "" && a != act {
			return "", fmt.Errorf("modules[%d] = %s: the engine's MLP has one activation, the network already uses %s", i, s, act)
		}
		if !lastLinear {
			return "", fmt.Errorf("modules[%d] = %s: two activations in a row", i, s)
		}
		act = a
		lastLinear = false
	}
	if li != len(ls) {
		return "", fmt.Errorf("modules has %d Linear modules, the state_dict %d weight tensors", li, len(ls))
	}
	if !lastLinear {
		return "", fmt.Errorf("modules: the network must end with a Linear (its output is the score Φ)")
	}
	if act == "" {
		act = "id"
	}
	if adjacent >= 0 && act != "id" {
		// Linears with no activation between them are deep linear (mlp:id)
		// only when no layer has an activation.
		return "", fmt.Errorf("modules[%d] = %s follows a Linear directly, while other layers use %s: the engine's MLP has one activation between every two Linears", adjacent, texts[adjacent], act)
	}
	return act, nil
}

// specOf writes the model spec: linear[/K] for one layer, mlp:ACT:W1-…[/K]
// otherwise, with +bias@i for every layer that has a bias.
func specOf(ls []layer, act string) string {
	var b strings.Builder
	if len(ls) == 1 {
		b.WriteString("linear")
	} else {
		widths := make([]string, len(ls)-1)
		for i, l := range ls[:len(ls)-1] {
			widths[i] = strconv.Itoa(l.out)
		}
		fmt.Fprintf(&b, "mlp:%s:%s", act, strings.Join(widths, "-"))
	}
	if k := ls[len(ls)-1].out; k > 1 {
		fmt.Fprintf(&b, "/%d", k)
	}
	for i, l := range ls {
		if l.bias {
			fmt.Fprintf(&b, "+bias@%d", i+1)
		}
	}
	return b.String()
}

package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/models"
)

// convLayout is the permutation that takes a PyTorch CNN's θ and images to
// the engine's cnn2d layout (doc.go, "Conv2d"): engine θ[j] is PyTorch
// θ[theta[j]], and engine x[j] of a sample is PyTorch x[input[j]].
type convLayout struct {
	theta, input []int
}

// convModule is a Conv2d as str(m) prints it:
// Conv2d(in, out, kernel_size=(k, k), stride=(s, s)[, padding=…][, dilation=…][, groups=…][, bias=False][, padding_mode=…]).
type convModule struct {
	in, out, k, stride int
	same, bias         bool
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

// argsOf reads the arguments of str(m), tuples kept whole: positional ones
// as "0", "1", ….
func argsOf(text string) map[string]string {
	open := strings.IndexByte(text, '(')
	args := map[string]string{}
	for k, part := range splitTop(text[open+1 : len(text)-1]) {
		if key, val, ok := strings.Cut(part, "="); ok {
			args[strings.TrimSpace(key)] = strings.TrimSpace(val)
		} else if part != "" {
			args[strconv.Itoa(k)] = part
		}
	}
	return args
}

// square reads "3", "(3, 3)" or "(3,)"-free pairs as one side; a pair of
// unequal sides is an error.
func square(v string) (int, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
		a, b, ok := strings.Cut(v[1:len(v)-1], ",")
		if !ok || strings.TrimSpace(a) != strings.TrimSpace(b) {
			return 0, fmt.Errorf("%s is not square", v)
		}
		v = strings.TrimSpace(a)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size", v)
	}
	return n, nil
}

// parseConv2d reads a Conv2d module, refusing what the engine's conv2d
// (models/conv2d.go: square kernel, square stride, "same" at stride 1 or
// "valid", no dilation, no groups, zero padding) cannot compute.
func parseConv2d(m module) (convModule, error) {
	bad := func(why string) (convModule, error) {
		return convModule{}, fmt.Errorf("modules[%d] = %s: %s (the engine's cnn2d has square kernels and strides, padding \"valid\" or \"same\" at stride 1, no dilation or groups)", m.index, m.text, why)
	}
	args := argsOf(m.text)
	var c convModule
	var err error
	if c.in, err = strconv.Atoi(args["0"]); err != nil {
		return bad("no in_channels")
	}
	if c.out, err = strconv.Atoi(args["1"]); err != nil {
		return bad("no out_channels")
	}
	if c.k, err = square(args["kernel_size"]); err != nil || c.k < 1 {
		return bad(fmt.Sprintf("kernel_size %s", args["kernel_size"]))
	}
	c.stride = 1
	if v, ok := args["stride"]; ok {
		if c.stride, err = square(v); err != nil || c.stride < 1 {
			return bad(fmt.Sprintf("stride %s is not supported", v))
		}
	}
	if v, ok := args["dilation"]; ok && v != "(1, 1)" && v != "1" {
		return bad(fmt.Sprintf("dilation %s is not supported", v))
	}
	if v, ok := args["groups"]; ok && v != "1" {
		return bad(fmt.Sprintf("groups=%s is not supported", v))
	}
	if v, ok := args["padding_mode"]; ok && v != "zeros" {
		return bad(fmt.Sprintf("padding_mode=%s is not supported", v))
	}
	switch p := args["padding"]; p {
	case "", "valid", "0", "(0, 0)":
	case "same":
		c.same = true
	default:
		n, err := square(p)
		if err != nil || c.stride != 1 || 2*n != c.k-1 {
			// PyTorch pads n on every side; that is the engine's "same"
			// only at stride 1 with an odd kernel k = 2n + 1.
			return bad(fmt.Sprintf("padding %s is neither valid nor same", p))
		}
		c.same = true
	}
	if c.same && c.stride != 1 {
		return bad("padding same with a stride")
	}
	c.bias = args["bias"] != "False"
	return c, nil
}

// parsePool2d reads MaxPool2d or AvgPool2d and returns its window side:
// the engine pools non-overlapping P×P windows (stride P, no padding,
// floor of the size).
func parsePool2d(m module) (int, error) {
	args := argsOf(m.text)
	p, err := square(args["kernel_size"])
	if err == nil && p >= 1 {
		s, serr := square(args["stride"])
		switch {
		case args["stride"] != "" && args["stride"] != "None" && (serr != nil || s != p):
			err = fmt.Errorf("stride %s differs from kernel_size %d", args["stride"], p)
		case args["padding"] != "" && args["padding"] != "0" && args["padding"] != "(0, 0)":
			err = fmt.Errorf("padding %s", args["padding"])
		case args["dilation"] != "" && args["dilation"] != "1" && args["dilation"] != "(1, 1)":
			err = fmt.Errorf("dilation %s", args["dilation"])
		case args["ceil_mode"] == "True":
			err = fmt.Errorf("ceil_mode=True")
		case args["divisor_override"] != "" && args["divisor_override"] != "None":
			err = fmt.Errorf("divisor_override=%s", args["divisor_override"])
		}
	} else if err == nil {
		err = fmt.Errorf("kernel_size %s", args["kernel_size"])
	}
	if err != nil {
		return 0, fmt.Errorf("modules[%d] = %s: %v is not supported (the engine pools non-overlapping P×P windows: stride = kernel_size, no padding, no dilation, floor mode)", m.index, m.text, err)
	}
	return p, nil
}

// maxImage bounds C·H·W: the permutation of X is one int per feature, and a
// bogus input_shape of a file without X must not allocate terabytes.
const maxImage = 1 << 26

// hasConv2d reports whether the run is a 2-D CNN: a 4-D weight or a Conv2d
// module.
func hasConv2d(t *Trajectory) bool {
	for _, p := range t.Params {
		if len(p.Shape) == 4 {
			return true
		}
	}
	for _, s := range t.Modules {
		if strings.HasPrefix(strings.TrimSpace(s), "Conv2d(") {
			return true
		}
	}
	return false
}

// cnnWalk is the state of mapConv2d as it reads the modules.
type cnnWalk struct {
	t            *Trajectory
	pi, off      int // next parameter tensor and its offset in θ
	layer        int // conv and Linear layers read so far
	biasLayers   []string
	c, h, w      int // the current image shape, channels first
	act          string
	theta        []int
	stages       []string
	dense        []int
	flat         bool // Flatten seen: Linear layers from here
	firstLinear  bool // the next Linear is the first after Flatten
	out          int  // outputs of the last Linear
	stage        int  // 0: expect conv; 1: after conv, expect activation; 2: after activation, pool allowed
	lastIsLinear bool
	oneD         bool // a Conv1d network (conv1d.go): h = 1
}

// convName names the convolution the walk maps.
func (s *cnnWalk) convName() string {
	if s.oneD {
		return "Conv1d"
	}
	return "Conv2d"
}

// family names the engine's model family the walk maps to.
func (s *cnnWalk) family() string {
	if s.oneD {
		return "cnn"
	}
	return "cnn2d"
}

// weight takes the next parameter tensor, which must be <key>.weight of the
// given shape, and its bias when the module has one.
func (s *cnnWalk) weight(m module, shape []int, bias bool) (int, error) {
	if s.pi >= len(s.t.Params) {
		return 0, fmt.Errorf("modules[%d] = %s has no weight tensor left in the state_dict", m.index, m.text)
	}
	p := s.t.Params[s.pi]
	prefix, kind, ok := cutLast(p.Name)
	if !ok || kind != "weight" || fmt.Sprint(p.Shape) != fmt.Sprint(shape) {
		return 0, fmt.Errorf("modules[%d] = %s does not match theta/%s of shape %v (want <key>.weight of shape %v)", m.index, m.text, p.Name, p.Shape, shape)
	}
	if k, err := strconv.Atoi(prefix); err == nil && k != m.index {
		return 0, fmt.Errorf("modules[%d] = %s, but its weight is theta/%s (module %d)", m.index, m.text, p.Name, k)
	}
	off := s.off
	s.off += p.Size()
	s.pi++
	s.layer++
	if bias {
		if s.pi >= len(s.t.Params) || s.t.Params[s.pi].Name != prefix+".bias" || fmt.Sprint(s.t.Params[s.pi].Shape) != fmt.Sprint([]int{shape[0]}) {
			return 0, fmt.Errorf("modules[%d] = %s has a bias, the state_dict no theta/%s.bias of shape (%d,) after its weight", m.index, m.text, prefix, shape[0])
		}
		s.biasLayers = append(s.biasLayers, fmt.Sprintf("+bias@%d", s.layer))
		s.off += shape[0]
		s.pi++
	} else if s.pi < len(s.t.Params) && s.t.Params[s.pi].Name == prefix+".bias" {
		return 0, fmt.Errorf("modules[%d] = %s has bias=False, but the state_dict has theta/%s.bias", m.index, m.text, prefix)
	}
	return off, nil
}

// mapConv2d maps an nn.Sequential of Conv2d, activations, pooling, Flatten
// and Linear to a cnn2d spec and the permutation into its layout.
func mapConv2d(t *Trajectory) (Mapping, *convLayout, error) {
	if t.Modules == nil {
		return Mapping{}, nil, fmt.Errorf("a Conv2d network needs its modules array: its pooling and activations are not in the state_dict")
	}
	if len(t.InputShape) != 3 {
		return Mapping{}, nil, fmt.Errorf("a Conv2d network needs the input shape (C, H, W): save X as (n, C, H, W) or an array input_shape")
	}
	c0, h0, w0 := t.InputShape[0], t.InputShape[1], t.InputShape[2]
	s, err := walkCNN(t, c0, h0, w0, false)
	if err != nil {
		return Mapping{}, nil, err
	}
	spec := fmt.Sprintf("cnn2d:%dx%dx%d:%s:%s", h0, w0, c0, s.act, strings.Join(s.stages, ","))
	hidden := s.hidden()
	switch {
	case s.out > 1:
		spec += ":" + hidden + ":" + strconv.Itoa(s.out)
	case hidden != "":
		spec += ":" + hidden
	}
	return s.mapping(spec+strings.Join(s.biasLayers, ""), c0*h0*w0)
}

// walkCNN reads the modules of a CNN on C×H×W inputs (H = 1 for a Conv1d
// network on C×W sequences): the stages, the dense layers and the
// permutation of θ.
func walkCNN(t *Trajectory, c, h, w int, oneD bool) (*cnnWalk, error) {
	if d := c * h * w; (t.X != nil && d != t.D) || d > maxImage {
		return nil, fmt.Errorf("input shape %v: %d values per input, X has %d features (at most %d)", t.InputShape, d, t.D, maxImage)
	}
	s := &cnnWalk{t: t, c: c, h: h, w: w, oneD: oneD}
	s.theta = make([]int, t.NumParams())
	for j := range s.theta {
		s.theta[j] = j
	}
	for i, text := range t.Modules {
		m, err := parseModule(i, text)
		if err != nil {
			return nil, err
		}
		if err := s.module(m); err != nil {
			return nil, err
		}
	}
	switch {
	case s.pi != len(t.Params):
		return nil, fmt.Errorf("theta/%s belongs to no module", t.Params[s.pi].Name)
	case !s.flat || !s.lastIsLinear:
		return nil, fmt.Errorf("modules: a %s network must end with Flatten, then Linear layers (the last gives the score Φ)", s.convName())
	}
	return s, nil
}

// hidden returns the widths of the hidden dense layers, "W1-W2-…".
func (s *cnnWalk) hidden() string {
	ws := make([]string, len(s.dense)-1)
	for i, d := range s.dense[:len(s.dense)-1] {
		ws[i] = strconv.Itoa(d)
	}
	return strings.Join(ws, "-")
}

// mapping parses the spec the walk found for d inputs and returns it with
// the walk's permutation of θ and of the inputs (channels first to last).
func (s *cnnWalk) mapping(spec string, d int) (Mapping, *convLayout, error) {
	net, err := models.Parse(spec, d)
	if err != nil {
		return Mapping{}, nil, fmt.Errorf("the network maps to %s, which the engine refuses: %v", spec, err)
	}
	if net.NumParams() != len(s.theta) {
		return Mapping{}, nil, fmt.Errorf("the network maps to %s with %d parameters, the state_dict has %d", spec, net.NumParams(), len(s.theta))
	}
	c, h, w := s.t.InputShape[0], 1, s.t.InputShape[len(s.t.InputShape)-1]
	if !s.oneD {
		h = s.t.InputShape[1]
	}
	return Mapping{Spec: net.String(), In: d}, &convLayout{theta: s.theta, input: chwToHWC(c, h, w)}, nil
}

// module reads one module.
func (s *cnnWalk) module(m module) error {
	switch m.name {
	case "Identity":
		return nil
	case "Conv1d":
		return s.conv1d(m)
	case "MaxPool1d", "AvgPool1d":
		return s.pool1d(m)
	case "Conv2d":
		if s.oneD {
			return fmt.Errorf("modules[%d] = %s in a Conv1d network", m.index, m.text)
		}
		if s.flat || s.stage == 1 {
			return fmt.Errorf("modules[%d] = %s: the engine's cnn2d has an activation after every conv and all convs before Flatten", m.index, m.text)
		}
		c, err := parseConv2d(m)
		if err != nil {
			return err
		}
		if c.in != s.c {
			return fmt.Errorf("modules[%d] = %s takes %d channels, the layer before gives %d", m.index, m.text, c.in, s.c)
		}
		h, w := s.h, s.w
		if !c.same {
			h, w = (s.h-c.k)/c.stride+1, (s.w-c.k)/c.stride+1
		}
		if h < 1 || w < 1 || s.h < c.k && !c.same {
			return fmt.Errorf("modules[%d] = %s: kernel %d larger than its %dx%d input", m.index, m.text, c.k, s.h, s.w)
		}
		off, err := s.weight(m, []int{c.out, c.in, c.k, c.k}, c.bias)
		if err != nil {
			return err
		}
		// PyTorch's (out, in, kh, kw) to the engine's (out, (kh·K + kw)·in + in).
		kk := c.k * c.k
		for o := range c.out {
			for a := range c.k {
				for b := range c.k {
					for ch := range c.in {
						s.theta[off+o*kk*c.in+(a*c.k+b)*c.in+ch] = off + ((o*c.in+ch)*c.k+a)*c.k + b
					}
				}
			}
		}
		stage := fmt.Sprintf("%dc%d", c.out, c.k)
		if c.stride > 1 {
			stage += fmt.Sprintf("s%d", c.stride)
		}
		if !c.same {
			stage += "-valid"
		}
		s.stages = append(s.stages, stage)
		s.c, s.h, s.w, s.stage = c.out, h, w, 1
		return nil
	case "MaxPool2d", "AvgPool2d":
		if s.oneD {
			return fmt.Errorf("modules[%d] = %s in a Conv1d network", m.index, m.text)
		}
		if s.stage != 2 {
			return fmt.Errorf("modules[%d] = %s: the engine pools only right after a conv's activation", m.index, m.text)
		}
		p, err := parsePool2d(m)
		if err != nil {
			return err
		}
		if s.h < p || s.w < p {
			return fmt.Errorf("modules[%d] = %s: window %d larger than its %dx%d input", m.index, m.text, p, s.h, s.w)
		}
		s.stages[len(s.stages)-1] += fmt.Sprintf("-%s%d", strings.ToLower(m.name[:3]), p)
		s.h, s.w, s.stage = s.h/p, s.w/p, 0
		return nil
	case "Flatten":
		a := argsOf(m.text)
		if s.flat || len(s.stages) == 0 || s.stage == 1 || (a["start_dim"] != "" && a["start_dim"] != "1") || (a["end_dim"] != "" && a["end_dim"] != "-1") {
			return fmt.Errorf("modules[%d] = %s: want one Flatten(start_dim=1, end_dim=-1) after the conv stages", m.index, m.text)
		}
		s.flat, s.firstLinear = true, true
		return nil
	case "Linear":
		if !s.flat {
			return fmt.Errorf("modules[%d] = %s before Flatten: the engine's %s has its dense layers after the conv stages", m.index, m.text, s.family())
		}
		a := argsOf(m.text)
		in, err1 := strconv.Atoi(a["in_features"])
		out, err2 := strconv.Atoi(a["out_features"])
		if err1 != nil || err2 != nil || out < 1 {
			return fmt.Errorf("modules[%d] = %s: want Linear(in_features=…, out_features=…)", m.index, m.text)
		}
		if s.lastIsLinear {
			return fmt.Errorf("modules[%d] = %s follows a Linear directly: the engine's %s has an activation between its dense layers", m.index, m.text, s.family())
		}
		if want := s.c * s.h * s.w; s.firstLinear && in != want {
			return fmt.Errorf("modules[%d] = %s takes %d features, Flatten gives %d×%d×%d = %d", m.index, m.text, in, s.c, s.h, s.w, want)
		} else if !s.firstLinear && in != s.out {
			return fmt.Errorf("modules[%d] = %s takes %d features, the Linear before gives %d", m.index, m.text, in, s.out)
		}
		off, err := s.weight(m, []int{out, in}, a["bias"] == "True")
		if err != nil {
			return err
		}
		if s.firstLinear {
			// Flatten's (C, H, W) order to the engine's (H, W, C):
			// column (r·W + c)·C + k of the engine is PyTorch's k·H·W + r·W + c.
			cols := chwToHWC(s.c, s.h, s.w)
			for i := range out {
				for j, from := range cols {
					s.theta[off+i*in+j] = off + i*in + from
				}
			}
		}
		s.dense = append(s.dense, out)
		s.out, s.firstLinear, s.lastIsLinear = out, false, true
		return nil
	}
	a, err := m.activation()
	if err != nil {
		return err
	}
	if a == "" {
		what := "is not supported"
		if strings.Contains(m.name, "Norm") {
			what = "is a normalization layer: not homogeneous in θ and not mapped"
		}
		return fmt.Errorf("modules[%d] = %s %s (supported in a CNN: Conv2d, MaxPool2d, AvgPool2d or Conv1d, MaxPool1d, AvgPool1d, then Flatten, Linear, Identity and one activation)", m.index, m.text, what)
	}
	if s.act != "" && a != s.act {
		return fmt.Errorf("modules[%d] = %s: the engine's %s has one activation, the network already uses %s", m.index, m.text, s.family(), s.act)
	}
	switch {
	case !s.flat && s.stage == 1:
		s.stage = 2
	case s.flat && s.lastIsLinear:
		s.lastIsLinear = false
	default:
		return fmt.Errorf("modules[%d] = %s: the engine's %s has one activation right after every conv and hidden Linear", m.index, m.text, s.family())
	}
	s.act = a
	return nil
}

// chwToHWC returns, for every index (r·W + c)·C + k of the channels-last
// layout, its index k·H·W + r·W + c in the channels-first one.
func chwToHWC(ch, h, w int) []int {
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

// permuted returns a copy of t in the engine's layout: every record of θ
// and every sample of X permuted by l.
func (l *convLayout) permuted(t *Trajectory) *Trajectory {
	c := *t
	c.Theta = make([][]float64, len(t.Theta))
	for i, th := range t.Theta {
		c.Theta[i] = gather(th, l.theta)
	}
	if t.X != nil {
		c.X = make([]float64, 0, len(t.X))
		for n := range t.N {
			c.X = append(c.X, gather(t.X[n*t.D:(n+1)*t.D], l.input)...)
		}
	}
	c.InputShape = nil
	return &c
}

// gather returns v[idx[0]], v[idx[1]], ….
func gather(v []float64, idx []int) []float64 {
	return gatherTo(make([]float64, 0, len(idx)), v, idx)
}

// gatherTo appends v[idx[0]], v[idx[1]], … to dst.
func gatherTo(dst, v []float64, idx []int) []float64 {
	for _, i := range idx {
		dst = append(dst, v[i])
	}
	return dst
}

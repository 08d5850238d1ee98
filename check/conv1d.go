package check

import (
	"fmt"
	"strconv"
	"strings"
)

// The Conv1d mapping: an nn.Sequential of Conv1d → activation → optional
// MaxPool1d/AvgPool1d stages, Flatten, then Linear layers, on sequences of
// C channels and length W, maps to the engine's 1-D CNN (models.NewCNN,
// spec cnn:ACT:CONV,…[:W1-…][@C][/K]), whose layout differs from PyTorch's
// the way cnn2d's does, with one spatial axis (H = 1):
//
//   - inputs: PyTorch's x[k·W + t] (channels first, (C, W)) is the engine's
//     x[t·C + k] (channels last);
//   - each conv weight: PyTorch's (out, in, k), W[(o·Cin + c)·K + j], is the
//     engine's (out, k, in), W[o·K·Cin + j·Cin + c] (models/conv.go:
//     out[t][o] = Σ_j Σ_c W[o][j·Cin + c]·in[t·S + j][c]); biases unchanged;
//   - the first Linear after Flatten: PyTorch flattens (C, W), so its column
//     k·W + t is the engine's column t·C + k.
//
// The engine's 1-D convolutions are valid (unpadded) with a stride, and its
// pools non-overlapping (stride = size, floor), as PyTorch's defaults.

// hasConv1d reports whether the run is a 1-D CNN: a 3-D weight or a Conv1d
// module.
func hasConv1d(t *Trajectory) bool {
	for _, p := range t.Params {
		if len(p.Shape) == 3 {
			return true
		}
	}
	for _, s := range t.Modules {
		if strings.HasPrefix(strings.TrimSpace(s), "Conv1d(") {
			return true
		}
	}
	return false
}

// mapConv1d maps a Conv1d network to a cnn spec and the permutation into
// its layout.
func mapConv1d(t *Trajectory) (Mapping, *convLayout, error) {
	if t.Modules == nil {
		return Mapping{}, nil, fmt.Errorf("a Conv1d network needs its modules array: its pooling and activations are not in the state_dict")
	}
	if len(t.InputShape) != 2 {
		return Mapping{}, nil, fmt.Errorf("a Conv1d network needs the input shape (C, W): save X as (n, C, W) or an array input_shape (C, W)")
	}
	c0, w0 := t.InputShape[0], t.InputShape[1]
	s, err := walkCNN(t, c0, 1, w0, true)
	if err != nil {
		return Mapping{}, nil, err
	}
	spec := fmt.Sprintf("cnn:%s:%s", s.act, strings.Join(s.stages, ","))
	if hidden := s.hidden(); hidden != "" {
		spec += ":" + hidden
	}
	if c0 != 1 {
		spec += "@" + strconv.Itoa(c0)
	}
	if s.out > 1 {
		spec += "/" + strconv.Itoa(s.out)
	}
	return s.mapping(spec+strings.Join(s.biasLayers, ""), c0*w0)
}

// side reads a 1-D size as str(m) prints it: "3" or "(3,)".
func side(v string) (int, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "(") && strings.HasSuffix(v, ",)") {
		v = strings.TrimSpace(v[1 : len(v)-2])
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size", v)
	}
	return n, nil
}

// isOne1d reports a 1-D argument that is absent or equal to want.
func isOne1d(v string, want int) bool {
	if v == "" {
		return true
	}
	n, err := side(v)
	return err == nil && n == want
}

// conv1d reads a Conv1d module: Conv1d(in, out, kernel_size=(k,),
// stride=(s,)[, padding=…][, dilation=…][, groups=…][, bias=False]
// [, padding_mode=…]), refusing what the engine's valid, undilated,
// ungrouped conv1d cannot compute.
func (s *cnnWalk) conv1d(m module) error {
	bad := func(why string) error {
		return fmt.Errorf("modules[%d] = %s: %s (the engine's cnn has valid (unpadded) 1-D convolutions with a stride, no dilation or groups)", m.index, m.text, why)
	}
	if !s.oneD {
		return fmt.Errorf("modules[%d] = %s in a Conv2d network", m.index, m.text)
	}
	if s.flat || s.stage == 1 {
		return fmt.Errorf("modules[%d] = %s: the engine's cnn has an activation after every conv and all convs before Flatten", m.index, m.text)
	}
	args := argsOf(m.text)
	in, err1 := strconv.Atoi(args["0"])
	out, err2 := strconv.Atoi(args["1"])
	k, err3 := side(args["kernel_size"])
	if err1 != nil || err2 != nil || err3 != nil || k < 1 || out < 1 {
		return bad("want Conv1d(in, out, kernel_size=(k,), …)")
	}
	stride := 1
	if v, ok := args["stride"]; ok {
		var err error
		if stride, err = side(v); err != nil || stride < 1 {
			return bad(fmt.Sprintf("stride %s", v))
		}
	}
	switch p := args["padding"]; {
	case p == "valid" || isOne1d(p, 0):
	default:
		return bad(fmt.Sprintf("padding %s is not supported", p))
	}
	if v := args["dilation"]; !isOne1d(v, 1) {
		return bad(fmt.Sprintf("dilation %s is not supported", v))
	}
	if v, ok := args["groups"]; ok && v != "1" {
		return bad(fmt.Sprintf("groups=%s is not supported", v))
	}
	if v, ok := args["padding_mode"]; ok && v != "zeros" {
		return bad(fmt.Sprintf("padding_mode=%s is not supported", v))
	}
	if in != s.c {
		return fmt.Errorf("modules[%d] = %s takes %d channels, the layer before gives %d", m.index, m.text, in, s.c)
	}
	if k > s.w {
		return fmt.Errorf("modules[%d] = %s: kernel %d longer than its input of length %d", m.index, m.text, k, s.w)
	}
	off, err := s.weight(m, []int{out, in, k}, args["bias"] != "False")
	if err != nil {
		return err
	}
	// PyTorch's (out, in, k) to the engine's (out, k, in).
	for o := range out {
		for j := range k {
			for c := range in {
				s.theta[off+o*k*in+j*in+c] = off + (o*in+c)*k + j
			}
		}
	}
	stage := fmt.Sprintf("%dc%d", out, k)
	if stride > 1 {
		stage += fmt.Sprintf("s%d", stride)
	}
	s.stages = append(s.stages, stage)
	s.c, s.w, s.stage = out, (s.w-k)/stride+1, 1
	return nil
}

// pool1d reads MaxPool1d or AvgPool1d: the engine pools non-overlapping
// windows of P positions (stride P, no padding, floor of the length).
func (s *cnnWalk) pool1d(m module) error {
	if !s.oneD {
		return fmt.Errorf("modules[%d] = %s in a Conv2d network", m.index, m.text)
	}
	if s.stage != 2 {
		return fmt.Errorf("modules[%d] = %s: the engine pools only right after a conv's activation", m.index, m.text)
	}
	args := argsOf(m.text)
	p, err := side(args["kernel_size"])
	switch {
	case err != nil || p < 1:
		err = fmt.Errorf("kernel_size %s", args["kernel_size"])
	case args["stride"] != "" && args["stride"] != "None" && !isOne1d(args["stride"], p):
		err = fmt.Errorf("stride %s differs from kernel_size %d", args["stride"], p)
	case !isOne1d(args["padding"], 0):
		err = fmt.Errorf("padding %s", args["padding"])
	case !isOne1d(args["dilation"], 1):
		err = fmt.Errorf("dilation %s", args["dilation"])
	case args["ceil_mode"] == "True":
		err = fmt.Errorf("ceil_mode=True")
	case p > s.w:
		err = fmt.Errorf("window %d longer than its input of length %d", p, s.w)
	}
	if err != nil {
		return fmt.Errorf("modules[%d] = %s: %v is not supported (the engine pools non-overlapping windows: stride = kernel_size, no padding, no dilation, floor mode)", m.index, m.text, err)
	}
	s.stages[len(s.stages)-1] += fmt.Sprintf("-%s%d", strings.ToLower(m.name[:3]), p)
	s.w, s.stage = s.w/p, 0
	return nil
}

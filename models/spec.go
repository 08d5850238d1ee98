package models

import (
	"fmt"
	"strconv"
	"strings"
)

// SpecGrammar documents the model spec strings that Parse reads.
const SpecGrammar = `SPEC   = BASE { OPTION }
OPTION = "/" K            K ≥ 2 outputs (multi-class scores)
       | "+bias"          a bias term in every layer (negative control)
       | "+bias@" I       a bias term in layer I only (1-based)
BASE   = "linear"                         Φ = ⟨θ, x⟩, L = 1
       | "deeplinear:" H [ "x" W ]        H linear layers, width W (default: input dim), L = H
       | "mlp:" ACT ":" H "x" W           H layers (H−1 hidden of width W), L = #layers for degree-1 ACT
       | "mlp:" ACT ":" W1 "-" W2 …       hidden widths listed
       | "cnn:" ACT ":" CONV {"," CONV} [ ":" W1 {"-" W2} ] [ "@" C ]
                                          conv stages, dense hidden widths, C input channels
       | "cnn2d:" H "x" W "x" C ":" ACT ":" CONV2 {"," CONV2} [ ":" [ W1 {"-" W2} ] [ ":" K ] ]
                                          2-D CNN on H×W×C images (channels last), dense
                                          hidden widths, K outputs (same as /K); He-normal init
CONV   = CH "c" K [ "s" S ] [ "-max" P | "-avg" P ]
                                          CH filters of width K, stride S, then pooling over P
CONV2  = CH "c" K [ "s" S ] [ "-same" | "-valid" ] [ "-max" P | "-avg" P ]
                                          CH K×K filters, stride S, padding (default same),
                                          then P×P pooling with stride P
ACT    = relu | lrelu | lrelu<α> | relu<k> | quad | id | tanh | softplus | gelu
Examples: linear, linear/3, deeplinear:3, mlp:relu:2x16, mlp:relu2:3x8, mlp:quad:2x8,
          mlp:relu:3x8+bias, cnn:relu:4c3-max2,4c3-avg2:8, mlp:tanh:2x8,
          cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1 (LL's MNIST CNN without bias)`

// Parse builds the model a spec string names for inputs of dimension in.
// See SpecGrammar.
func Parse(spec string, in int) (*Network, error) {
	net, err := parse(spec, in)
	if err != nil {
		// One prefix naming the spec, whichever layer found the problem.
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("model %q: ", spec))
		msg = strings.TrimPrefix(msg, "models: ")
		msg = strings.TrimPrefix(msg, spec+": ")
		return nil, fmt.Errorf("model %q: %s", spec, msg)
	}
	return net, nil
}

func parse(spec string, in int) (*Network, error) {
	if in < 1 {
		return nil, fmt.Errorf("model %q: input dimension must be ≥ 1, got %d", spec, in)
	}
	base, out, bias, biasLayers, err := parseOptions(spec)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(base, ":")
	fail := func(format string, a ...any) (*Network, error) {
		return nil, fmt.Errorf("model %q: "+format, append([]any{spec}, a...)...)
	}
	switch fields[0] {
	case "linear":
		if len(fields) != 1 {
			return fail("linear takes no arguments")
		}
		return NewMLP(MLPConfig{In: in, Out: out, Act: ActIdentity, Bias: bias, BiasLayers: biasLayers})
	case "deeplinear":
		if len(fields) != 2 {
			return fail("want deeplinear:H or deeplinear:HxW")
		}
		h, w := 0, in
		if a, b, ok := strings.Cut(fields[1], "x"); ok {
			h, err = atoiMin(a, 1, "depth")
			if err == nil {
				w, err = atoiMin(b, 1, "width")
			}
		} else {
			h, err = atoiMin(fields[1], 1, "depth")
		}
		if err != nil {
			return fail("%v", err)
		}
		return NewMLP(MLPConfig{In: in, Hidden: repeat(w, h-1), Out: out, Act: ActIdentity, Bias: bias, BiasLayers: biasLayers})
	case "mlp":
		if len(fields) != 3 {
			return fail("want mlp:ACT:HxW or mlp:ACT:W1-W2-…")
		}
		act, err := ParseActivation(fields[1])
		if err != nil {
			return fail("%v", err)
		}
		hidden, err := parseWidths(fields[2])
		if err != nil {
			return fail("%v", err)
		}
		return NewMLP(MLPConfig{In: in, Hidden: hidden, Out: out, Act: act, Bias: bias, BiasLayers: biasLayers})
	case "cnn":
		if len(fields) < 3 || len(fields) > 4 {
			return fail("want cnn:ACT:CONV,…[:W1-…][@C]")
		}
		act, err := ParseActivation(fields[1])
		if err != nil {
			return fail("%v", err)
		}
		last := &fields[len(fields)-1]
		cin := 1
		if a, b, ok := strings.Cut(*last, "@"); ok {
			if cin, err = atoiMin(b, 1, "input channels"); err != nil {
				return fail("%v", err)
			}
			*last = a
		}
		if in%cin != 0 {
			return fail("input dimension %d is not a multiple of %d channels", in, cin)
		}
		var convs []ConvSpec
		for _, c := range strings.Split(fields[2], ",") {
			cs, err := parseConv(c)
			if err != nil {
				return fail("%v", err)
			}
			convs = append(convs, cs)
		}
		var dense []int
		if len(fields) == 4 {
			for _, w := range strings.Split(fields[3], "-") {
				v, err := atoiMin(w, 1, "dense width")
				if err != nil {
					return fail("%v", err)
				}
				dense = append(dense, v)
			}
		}
		net, err := NewCNN(CNNConfig{In: in / cin, InChannels: cin, Convs: convs, Dense: dense, Out: out, Act: act, Bias: bias, BiasLayers: biasLayers})
		if err != nil {
			return fail("%v", err)
		}
		return net, nil
	case "cnn2d":
		net, err := parseCNN2D(fields[1:], in, out, bias, biasLayers)
		if err != nil {
			return fail("%v", err)
		}
		return net, nil
	}
	return fail("unknown model family %q (want linear, deeplinear, mlp, cnn, cnn2d)", fields[0])
}

func parseOptions(spec string) (base string, out int, bias bool, biasLayers []int, err error) {
	out = 1
	i := strings.IndexAny(spec, "/+")
	if i < 0 {
		return spec, out, false, nil, nil
	}
	base, rest := spec[:i], spec[i:]
	for rest != "" {
		j := strings.IndexAny(rest[1:], "/+")
		tok := rest
		if j >= 0 {
			tok, rest = rest[:j+1], rest[j+1:]
		} else {
			rest = ""
		}
		switch {
		case tok[0] == '/':
			k, e := atoiMin(tok[1:], 2, "number of outputs")
			if e != nil {
				return "", 0, false, nil, fmt.Errorf("model %q: %v", spec, e)
			}
			out = k
		case tok == "+bias":
			bias = true
		case strings.HasPrefix(tok, "+bias@"):
			l, e := atoiMin(tok[len("+bias@"):], 1, "bias layer")
			if e != nil {
				return "", 0, false, nil, fmt.Errorf("model %q: %v", spec, e)
			}
			biasLayers = append(biasLayers, l)
		default:
			return "", 0, false, nil, fmt.Errorf("model %q: unknown option %q (want /K, +bias, +bias@I)", spec, tok)
		}
	}
	return base, out, bias, biasLayers, nil
}

func parseWidths(s string) ([]int, error) {
	if a, b, ok := strings.Cut(s, "x"); ok {
		h, err := atoiMin(a, 1, "depth")
		if err != nil {
			return nil, err
		}
		w, err := atoiMin(b, 1, "width")
		if err != nil {
			return nil, err
		}
		return repeat(w, h-1), nil
	}
	var ws []int
	for _, f := range strings.Split(s, "-") {
		w, err := atoiMin(f, 1, "width")
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

func parseConv(s string) (ConvSpec, error) {
	var cs ConvSpec
	body, pool, hasPool := strings.Cut(s, "-")
	var err error
	if cs.Channels, cs.Kernel, cs.Stride, err = parseFilters(body); err != nil {
		return cs, fmt.Errorf("conv stage %q: %v (want CHcK[sS][-maxP|-avgP])", s, err)
	}
	if hasPool {
		switch {
		case strings.HasPrefix(pool, "max"):
			cs.Pool = MaxPool
			pool = pool[3:]
		case strings.HasPrefix(pool, "avg"):
			cs.Pool = AvgPool
			pool = pool[3:]
		default:
			return cs, fmt.Errorf("conv stage %q: pooling must be maxP or avgP", s)
		}
		if cs.PoolSize, err = atoiMin(pool, 1, "pool size"); err != nil {
			return cs, err
		}
	}
	return cs, nil
}

// parseFilters reads CH "c" K [ "s" S ], the filters of a conv stage
// (stride 1 when not given).
func parseFilters(s string) (channels, kernel, stride int, err error) {
	chs, rest, ok := strings.Cut(s, "c")
	if !ok {
		return 0, 0, 0, fmt.Errorf("no \"c\" in %q", s)
	}
	if channels, err = atoiMin(chs, 1, "channels"); err != nil {
		return 0, 0, 0, err
	}
	k, st, hasStride := strings.Cut(rest, "s")
	if kernel, err = atoiMin(k, 1, "kernel"); err != nil {
		return 0, 0, 0, err
	}
	stride = 1
	if hasStride {
		if stride, err = atoiMin(st, 1, "stride"); err != nil {
			return 0, 0, 0, err
		}
	}
	return channels, kernel, stride, nil
}

func atoiMin(s string, lo int, what string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not an integer", what, s)
	}
	if v < lo {
		return 0, fmt.Errorf("%s must be ≥ %d, got %d", what, lo, v)
	}
	if v > 1<<20 {
		return 0, fmt.Errorf("%s %d is too large", what, v)
	}
	return v, nil
}

func repeat(w, n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = w
	}
	return r
}

package models

import (
	"fmt"
	"strings"
)

// Conv2DSpec is one stage of a 2-D CNN: Channels square filters of side
// Kernel with stride Stride (default 1) and "same" padding (Valid: none),
// the activation, then optional PoolSize×PoolSize pooling.
type Conv2DSpec struct {
	Channels, Kernel, Stride int
	Valid                    bool
	Pool                     PoolKind
	PoolSize                 int
}

// CNN2DConfig describes a 2-D CNN on Height×Width×Channels images stored
// channels last (x[(r·Width + c)·Channels + k]): conv stages, the flatten
// (the identity on that layout), dense hidden layers, then a dense output
// layer; the activation follows every conv and hidden dense layer. LL's
// MNIST CNN (App. J) is Convs {32c5-max2, 64c3-max2}, Dense {1024}, Out 10,
// ReLU, with a bias in layer 1 only.
//
// Weights are He-normal, N(0, 2/fan_in), and biases zero (LL App. J).
type CNN2DConfig struct {
	Height, Width, Channels int
	Convs                   []Conv2DSpec
	Dense                   []int
	Out                     int
	Act                     Activation
	Bias                    bool
	BiasLayers              []int // 1-based, counting conv and dense layers
}

// NewCNN2D builds the network of cfg.
func NewCNN2D(cfg CNN2DConfig) (*Network, error) {
	if cfg.Height < 1 || cfg.Width < 1 || cfg.Channels < 1 || cfg.Out < 1 || len(cfg.Convs) == 0 {
		return nil, fmt.Errorf("models: 2-D CNN needs Height, Width, Channels, Out ≥ 1 and a conv stage")
	}
	if err := cfg.Act.validate(); err != nil {
		return nil, fmt.Errorf("models: %v", err)
	}
	nLayers := len(cfg.Convs) + len(cfg.Dense) + 1
	for _, l := range cfg.BiasLayers {
		if l < 1 || l > nLayers {
			return nil, fmt.Errorf("models: bias layer %d outside 1..%d", l, nLayers)
		}
	}
	var layers []layer
	h, w, ch := cfg.Height, cfg.Width, cfg.Channels
	parts := make([]string, len(cfg.Convs))
	for i, c := range cfg.Convs {
		cv, err := newConv2d(h, w, ch, c.Channels, c.Kernel, max(c.Stride, 1), !c.Valid, hasBias(cfg.Bias, cfg.BiasLayers, i+1))
		if err != nil {
			return nil, fmt.Errorf("models: conv stage %d: %v", i+1, err)
		}
		_, out := cv.dims()
		layers = append(layers, cv, &actLayer{dim: out, act: cfg.Act})
		parts[i] = conv2DSpecString(c)
		h, w, ch = cv.ho, cv.wo, c.Channels
		if c.Pool == NoPool {
			continue
		}
		if c.PoolSize < 1 || c.PoolSize > min(h, w) || c.PoolSize > maxPool2dSize {
			return nil, fmt.Errorf("models: conv stage %d: pool size must be in 1..%d", i+1, min(h, w, maxPool2dSize))
		}
		p := &pool2d{h: h, w: w, ch: ch, size: c.PoolSize, kind: c.Pool}
		layers = append(layers, p)
		h, w = p.ho(), p.wo()
	}
	prev := h * w * ch
	ds := make([]string, len(cfg.Dense))
	for i, width := range cfg.Dense {
		if width < 1 {
			return nil, fmt.Errorf("models: dense width %d must be ≥ 1", width)
		}
		li := len(cfg.Convs) + i + 1
		layers = append(layers, &dense{in: prev, out: width, bias: hasBias(cfg.Bias, cfg.BiasLayers, li), he: true}, &actLayer{dim: width, act: cfg.Act})
		prev = width
		ds[i] = fmt.Sprint(width)
	}
	layers = append(layers, &dense{in: prev, out: cfg.Out, bias: hasBias(cfg.Bias, cfg.BiasLayers, nLayers), he: true})
	spec := fmt.Sprintf("cnn2d:%dx%dx%d:%s:%s", cfg.Height, cfg.Width, cfg.Channels, cfg.Act, strings.Join(parts, ","))
	switch {
	case cfg.Out != 1:
		spec += ":" + strings.Join(ds, "-") + fmt.Sprintf(":%d", cfg.Out)
	case len(ds) > 0:
		spec += ":" + strings.Join(ds, "-")
	}
	return newNetwork(spec+specBias(cfg.Bias, cfg.BiasLayers), layers)
}

// conv2DSpecString is the stage's CONV2 token of SpecGrammar.
func conv2DSpecString(c Conv2DSpec) string {
	s := fmt.Sprintf("%dc%d", c.Channels, c.Kernel)
	if c.Stride > 1 {
		s += fmt.Sprintf("s%d", c.Stride)
	}
	if c.Valid {
		s += "-valid"
	}
	switch c.Pool {
	case MaxPool:
		s += fmt.Sprintf("-max%d", c.PoolSize)
	case AvgPool:
		s += fmt.Sprintf("-avg%d", c.PoolSize)
	}
	return s
}

// parseCNN2D reads the fields after "cnn2d:" (see SpecGrammar): the image
// shape, the activation, the conv stages, then optionally the dense hidden
// widths (possibly empty) and the number of outputs.
func parseCNN2D(fields []string, in, out int, bias bool, biasLayers []int) (*Network, error) {
	if len(fields) < 3 || len(fields) > 5 {
		return nil, fmt.Errorf("want cnn2d:HxWxC:ACT:CONV,…[:W1-…[:K]]")
	}
	shape := strings.Split(fields[0], "x")
	if len(shape) != 3 {
		return nil, fmt.Errorf("image shape %q: want HxWxC", fields[0])
	}
	var hwc [3]int
	for i, what := range []string{"height", "width", "channels"} {
		v, err := atoiMin(shape[i], 1, what)
		if err != nil {
			return nil, err
		}
		hwc[i] = v
	}
	if hwc[0]*hwc[1]*hwc[2] != in {
		return nil, fmt.Errorf("image %dx%dx%d has %d values, the data have %d features", hwc[0], hwc[1], hwc[2], hwc[0]*hwc[1]*hwc[2], in)
	}
	act, err := ParseActivation(fields[1])
	if err != nil {
		return nil, err
	}
	var convs []Conv2DSpec
	for _, c := range strings.Split(fields[2], ",") {
		cs, err := parseConv2D(c)
		if err != nil {
			return nil, err
		}
		convs = append(convs, cs)
	}
	var dense []int
	if len(fields) >= 4 && fields[3] != "" {
		for _, w := range strings.Split(fields[3], "-") {
			v, err := atoiMin(w, 1, "dense width")
			if err != nil {
				return nil, err
			}
			dense = append(dense, v)
		}
	}
	if len(fields) == 5 {
		k, err := atoiMin(fields[4], 2, "number of outputs")
		if err != nil {
			return nil, err
		}
		if out != 1 && out != k {
			return nil, fmt.Errorf("%d outputs in the spec but /%d", k, out)
		}
		out = k
	}
	return NewCNN2D(CNN2DConfig{Height: hwc[0], Width: hwc[1], Channels: hwc[2], Convs: convs, Dense: dense,
		Out: out, Act: act, Bias: bias, BiasLayers: biasLayers})
}

// parseConv2D reads CH "c" K ["s" S] {"-" ("same" | "valid" | "max" P | "avg" P)}.
func parseConv2D(s string) (Conv2DSpec, error) {
	var cs Conv2DSpec
	mods := strings.Split(s, "-")
	var err error
	if cs.Channels, cs.Kernel, cs.Stride, err = parseFilters(mods[0]); err != nil {
		return cs, fmt.Errorf("conv stage %q: %v (want CHcK[sS][-same|-valid][-maxP|-avgP])", s, err)
	}
	for _, m := range mods[1:] {
		switch {
		case m == "same":
			cs.Valid = false
		case m == "valid":
			cs.Valid = true
		case cs.Pool == NoPool && (strings.HasPrefix(m, "max") || strings.HasPrefix(m, "avg")):
			cs.Pool = MaxPool
			if m[:3] == "avg" {
				cs.Pool = AvgPool
			}
			if cs.PoolSize, err = atoiMin(m[3:], 1, "pool size"); err != nil {
				return cs, err
			}
		default:
			return cs, fmt.Errorf("conv stage %q: %q is not same, valid, maxP or avgP (one pooling per stage)", s, m)
		}
	}
	return cs, nil
}

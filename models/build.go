package models

import (
	"fmt"
	"strings"
)

// MLPConfig describes a fully connected network
//
//	Φ(x) = W_H σ(W_{H−1} σ(… σ(W_1 x))),
//
// with len(Hidden) hidden layers (depth H = len(Hidden) + 1).
type MLPConfig struct {
	In     int
	Hidden []int // widths of the hidden layers
	Out    int   // number of outputs (1 for binary scores)
	Act    Activation
	// Bias puts a bias term in every layer; BiasLayers (1-based) in the listed
	// layers only. Either makes a deep network non-homogeneous, except for a
	// bias in the first layer alone.
	Bias       bool
	BiasLayers []int
}

func hasBias(all bool, which []int, layer int) bool {
	if all {
		return true
	}
	for _, l := range which {
		if l == layer {
			return true
		}
	}
	return false
}

func specBias(all bool, which []int) string {
	if all {
		return "+bias"
	}
	s := ""
	for _, l := range which {
		s += fmt.Sprintf("+bias@%d", l)
	}
	return s
}

// NewMLP builds the network of cfg.
func NewMLP(cfg MLPConfig) (*Network, error) {
	if cfg.In < 1 || cfg.Out < 1 {
		return nil, fmt.Errorf("models: MLP needs In ≥ 1 and Out ≥ 1 (got %d, %d)", cfg.In, cfg.Out)
	}
	if err := cfg.Act.validate(); err != nil {
		return nil, fmt.Errorf("models: %v", err)
	}
	depth := len(cfg.Hidden) + 1
	for _, l := range cfg.BiasLayers {
		if l < 1 || l > depth {
			return nil, fmt.Errorf("models: bias layer %d outside 1..%d", l, depth)
		}
	}
	var layers []layer
	prev := cfg.In
	for i, w := range cfg.Hidden {
		if w < 1 {
			return nil, fmt.Errorf("models: hidden width %d must be ≥ 1", w)
		}
		layers = append(layers,
			&dense{in: prev, out: w, bias: hasBias(cfg.Bias, cfg.BiasLayers, i+1)},
			&actLayer{dim: w, act: cfg.Act})
		prev = w
	}
	layers = append(layers, &dense{in: prev, out: cfg.Out, bias: hasBias(cfg.Bias, cfg.BiasLayers, depth)})
	return newNetwork(mlpSpec(cfg), layers)
}

func mlpSpec(cfg MLPConfig) string {
	var s string
	switch {
	case len(cfg.Hidden) == 0:
		s = "linear"
	case cfg.Act.Kind == Identity && uniform(cfg.Hidden) && cfg.Hidden[0] == cfg.In:
		s = fmt.Sprintf("deeplinear:%d", len(cfg.Hidden)+1)
	case uniform(cfg.Hidden):
		s = fmt.Sprintf("mlp:%s:%dx%d", cfg.Act, len(cfg.Hidden)+1, cfg.Hidden[0])
	default:
		ws := make([]string, len(cfg.Hidden))
		for i, w := range cfg.Hidden {
			ws[i] = fmt.Sprint(w)
		}
		s = fmt.Sprintf("mlp:%s:%s", cfg.Act, strings.Join(ws, "-"))
	}
	if cfg.Out != 1 {
		s += fmt.Sprintf("/%d", cfg.Out)
	}
	return s + specBias(cfg.Bias, cfg.BiasLayers)
}

func uniform(w []int) bool {
	for _, v := range w {
		if v != w[0] {
			return false
		}
	}
	return true
}

// NewLinear returns Φ(θ; x) = ⟨θ, x⟩ (out = 1) or Θx (out classes): L = 1.
func NewLinear(in, out int) (*Network, error) {
	return NewMLP(MLPConfig{In: in, Out: out, Act: ActIdentity})
}

// ConvSpec is one convolution stage of a CNN: a valid convolution with
// Channels filters of width Kernel and stride Stride (default 1), the
// activation, then optional pooling over windows of PoolSize.
type ConvSpec struct {
	Channels, Kernel, Stride int
	Pool                     PoolKind
	PoolSize                 int
}

// CNNConfig describes a 1-D CNN: conv stages, then dense hidden layers,
// then a dense output layer; the activation follows every conv and hidden
// dense layer.
type CNNConfig struct {
	In         int // input positions (one channel unless InChannels is set)
	InChannels int
	Convs      []ConvSpec
	Dense      []int
	Out        int
	Act        Activation
	Bias       bool
	BiasLayers []int // 1-based, counting conv and dense layers
}

// NewCNN builds the network of cfg.
func NewCNN(cfg CNNConfig) (*Network, error) {
	cin := cfg.InChannels
	if cin == 0 {
		cin = 1
	}
	if cfg.In < 1 || cfg.Out < 1 || cin < 1 || len(cfg.Convs) == 0 {
		return nil, fmt.Errorf("models: CNN needs In ≥ 1, Out ≥ 1, InChannels ≥ 0 and a conv stage")
	}
	if err := cfg.Act.validate(); err != nil {
		return nil, fmt.Errorf("models: %v", err)
	}
	var layers []layer
	length, ch, li := cfg.In, cin, 0
	parts := make([]string, len(cfg.Convs))
	for _, c := range cfg.Convs {
		li++
		stride := max(c.Stride, 1)
		if c.Channels < 1 || c.Kernel < 1 || c.Kernel > length {
			return nil, fmt.Errorf("models: conv stage %d: need channels ≥ 1 and 1 ≤ kernel ≤ %d positions", li, length)
		}
		cv := &conv1d{length: length, cin: ch, cout: c.Channels, k: c.Kernel, stride: stride, bias: hasBias(cfg.Bias, cfg.BiasLayers, li)}
		lo := cv.lout()
		layers = append(layers, cv, &actLayer{dim: lo * c.Channels, act: cfg.Act})
		parts[li-1] = fmt.Sprintf("%dc%d", c.Channels, c.Kernel)
		if stride > 1 {
			parts[li-1] += fmt.Sprintf("s%d", stride)
		}
		length, ch = lo, c.Channels
		if c.Pool != NoPool {
			if c.PoolSize < 1 || c.PoolSize > length {
				return nil, fmt.Errorf("models: conv stage %d: pool size must be in 1..%d", li, length)
			}
			layers = append(layers, &pool1d{length: length, ch: ch, size: c.PoolSize, kind: c.Pool})
			if c.Pool == MaxPool {
				parts[li-1] += fmt.Sprintf("-max%d", c.PoolSize)
			} else {
				parts[li-1] += fmt.Sprintf("-avg%d", c.PoolSize)
			}
			length /= c.PoolSize
		}
	}
	prev := length * ch
	ds := make([]string, len(cfg.Dense))
	for i, w := range cfg.Dense {
		li++
		if w < 1 {
			return nil, fmt.Errorf("models: dense width %d must be ≥ 1", w)
		}
		layers = append(layers, &dense{in: prev, out: w, bias: hasBias(cfg.Bias, cfg.BiasLayers, li)}, &actLayer{dim: w, act: cfg.Act})
		prev = w
		ds[i] = fmt.Sprint(w)
	}
	li++
	for _, l := range cfg.BiasLayers {
		if l < 1 || l > li {
			return nil, fmt.Errorf("models: bias layer %d outside 1..%d", l, li)
		}
	}
	layers = append(layers, &dense{in: prev, out: cfg.Out, bias: hasBias(cfg.Bias, cfg.BiasLayers, li)})
	spec := fmt.Sprintf("cnn:%s:%s", cfg.Act, strings.Join(parts, ","))
	if len(ds) > 0 {
		spec += ":" + strings.Join(ds, "-")
	}
	if cin != 1 {
		spec += fmt.Sprintf("@%d", cin)
	}
	if cfg.Out != 1 {
		spec += fmt.Sprintf("/%d", cfg.Out)
	}
	return newNetwork(spec+specBias(cfg.Bias, cfg.BiasLayers), layers)
}

package models

import (
	"fmt"
	"math/rand/v2"
)

// maxParams bounds the size of a network, so that a mistyped spec gives an
// error instead of exhausting memory.
const maxParams = 1 << 27

// Network is a sequence of layers: dense and convolutional layers (with or
// without bias), elementwise activations and pooling.
type Network struct {
	in, out int
	layers  []layer
	offsets []int // parameter offset of each layer
	blockOf []int // block index of each layer, −1 without parameters
	blocks  []Block
	nParams int
	degree  Degree
	spec    string
	kinked  bool
	// fused[i]: layer i is a dense layer without bias or a 2-D conv layer,
	// followed by a ReLU layer; Forward computes both in one pass into the
	// ReLU's output, which is also layer i's (the workspace shares the
	// buffer).
	fused []bool
	// fusedBack[i]: layer i is a dense layer without bias or a 2×2 max
	// pooling of even sides (pool2d.fusesReLU) whose input is a ReLU's
	// output (layer i−1 ≥ 1); Backward computes both layers' input
	// gradients in one pass.
	fusedBack []bool
	// fusedPool[i]: layer i is a 2-D conv layer, layer i+1 a ReLU and
	// layer i+2 a 2×2 max pooling of even sides; Forward and Backward run
	// the three block of samples by block (see poolOut).
	fusedPool []bool
}

func isDenseNoBias(l layer) bool {
	d, ok := l.(*dense)
	return ok && !d.bias
}

func isReLU(l layer) bool {
	a, ok := l.(*actLayer)
	return ok && a.isReLU()
}

// newNetwork assembles layers whose dimensions must chain and derives the
// degree symbolically.
func newNetwork(spec string, layers []layer) (*Network, error) {
	if len(layers) == 0 {
		return nil, fmt.Errorf("models: %s: no layers", spec)
	}
	net := &Network{spec: spec, layers: layers}
	net.in, _ = layers[0].dims()
	prev := net.in
	for i, l := range layers {
		in, out := l.dims()
		if in != prev {
			return nil, fmt.Errorf("models: %s: layer %d (%s) expects %d inputs, gets %d", spec, i+1, l, in, prev)
		}
		if out <= 0 {
			return nil, fmt.Errorf("models: %s: layer %d (%s) has no outputs", spec, i+1, l)
		}
		prev = out
		if net.nParams+l.numParams() > maxParams || out > maxParams {
			return nil, fmt.Errorf("models: %s: more than %d parameters or units", spec, maxParams)
		}
		net.offsets = append(net.offsets, net.nParams)
		if p := l.numParams(); p > 0 {
			net.blockOf = append(net.blockOf, len(net.blocks))
			net.blocks = append(net.blocks, Block{Name: fmt.Sprintf("layer%d %s", len(net.blocks)+1, l), Offset: net.nParams, Len: p})
			net.nParams += p
		} else {
			net.blockOf = append(net.blockOf, -1)
		}
		if a, ok := l.(*actLayer); ok && a.act.kinked() {
			net.kinked = true
		}
		if p, ok := l.(*pool1d); ok && p.kind == MaxPool {
			net.kinked = true
		}
		if p, ok := l.(*pool2d); ok && p.kind == MaxPool {
			net.kinked = true
		}
	}
	net.out = prev
	for i, l := range layers {
		_, conv := l.(*conv2d)
		net.fused = append(net.fused, (isDenseNoBias(l) || conv) && i+1 < len(layers) && isReLU(layers[i+1]))
		p, pool := l.(*pool2d)
		net.fusedBack = append(net.fusedBack, (isDenseNoBias(l) || pool && p.fusesReLU()) && i > 1 && isReLU(layers[i-1]))
		net.fusedPool = append(net.fusedPool, conv && i+2 < len(layers) && isReLU(layers[i+1]) && isMaxPool2(layers[i+2]))
	}
	d := multiDegree{k: make([]float64, len(net.blocks))}
	for i, l := range layers {
		d = l.degree(d, net.blockOf[i])
	}
	if d.homogeneous() {
		net.degree = Degree{Homogeneous: true, Order: d.total(), Blocks: d.k}
	} else {
		net.degree = Degree{Reason: d.reason}
	}
	return net, nil
}

// In returns the input dimension.
func (net *Network) In() int { return net.in }

// Out returns the number of outputs.
func (net *Network) Out() int { return net.out }

// NumParams returns the length of θ.
func (net *Network) NumParams() int { return net.nParams }

// Degree returns the symbolic degree (a copy: callers may modify it).
func (net *Network) Degree() Degree {
	d := net.degree
	d.Blocks = append([]float64(nil), d.Blocks...)
	return d
}

// Blocks returns the parameter blocks, one per layer with parameters (a
// copy).
func (net *Network) Blocks() []Block { return append([]Block(nil), net.blocks...) }

// String returns the spec the network was built from.
func (net *Network) String() string { return net.spec }

// Describe lists the layers.
func (net *Network) Describe() string {
	s := ""
	for i, l := range net.layers {
		if i > 0 {
			s += " → "
		}
		s += l.String()
	}
	return s
}

// netWorkspace is the Workspace of a Network.
type netWorkspace struct {
	net     *Network // the network that made it
	cap     int
	outs    [][]float64 // output of each layer, cap×out
	aux     [][]float64 // what each layer keeps for backward
	scratch []float64
	kinks   [][]byte  // a fused stage's ReLU pattern, by layer (see poolOut)
	ga, gb  []float64 // ping-pong gradient buffers, cap×maxDim
	x       []float64 // input of the last Forward
	n       int       // batch size of the last Forward
}

func (ws *netWorkspace) Cap() int { return ws.cap }

// NewWorkspace returns buffers for batches of up to n samples.
func (net *Network) NewWorkspace(n int) Workspace {
	if n < 1 {
		n = 1
	}
	ws := &netWorkspace{net: net, cap: n}
	maxDim, maxScratch := net.in, 0
	for i, l := range net.layers {
		_, out := l.dims()
		var kinks []byte
		switch {
		case net.fusedPool[i]:
			ws.outs = append(ws.outs, nil) // never written (see poolOut)
		case i > 0 && net.fused[i-1]:
			ws.outs = append(ws.outs, ws.outs[i-1]) // the fused pair's one buffer
			if net.fusedPool[i-1] {
				kinks = make([]byte, n*out/8+1)
			}
		default:
			ws.outs = append(ws.outs, make([]float64, n*out))
		}
		ws.kinks = append(ws.kinks, kinks)
		ws.aux = append(ws.aux, make([]float64, n*l.auxSize()))
		maxDim = max(maxDim, out)
		maxScratch = max(maxScratch, l.scratchSize())
	}
	ws.scratch = make([]float64, n*maxScratch)
	ws.ga = make([]float64, n*maxDim)
	ws.gb = make([]float64, n*maxDim)
	return ws
}

func (net *Network) workspace(w Workspace, n int) *netWorkspace {
	ws, ok := w.(*netWorkspace)
	if !ok || ws.net != net {
		panic("models: workspace was not made by this network")
	}
	if n > ws.cap {
		panic(fmt.Sprintf("models: batch of %d exceeds workspace capacity %d", n, ws.cap))
	}
	return ws
}

func (net *Network) params(theta []float64, i int) []float64 {
	return theta[net.offsets[i] : net.offsets[i]+net.layers[i].numParams()]
}

// Forward computes the outputs of the n rows of x.
func (net *Network) Forward(w Workspace, theta, x []float64, n int) []float64 {
	ws := net.workspace(w, n)
	if len(theta) != net.nParams {
		panic(fmt.Sprintf("models: θ has %d entries, %s needs %d", len(theta), net.spec, net.nParams))
	}
	ws.x, ws.n = x, n
	in := x
	for i := 0; i < len(net.layers); i++ {
		l := net.layers[i]
		if net.fusedPool[i] {
			po := poolOut{l: net.layers[i+2].(*pool2d), y: ws.outs[i+2], arg: ws.aux[i+2], kinks: ws.kinks[i+1]}
			l.(*conv2d).forwardAct(net.params(theta, i), in, ws.outs[i], ws.scratch, n, true, po)
			i += 2 // the ReLU and the pooling are done too
		} else if net.fused[i] {
			if c, ok := l.(*conv2d); ok {
				c.forwardReLU(net.params(theta, i), in, ws.outs[i], ws.scratch, n)
			} else {
				l.(*dense).forwardReLU(net.params(theta, i), in, ws.outs[i], n)
			}
			i++ // the ReLU is done; its output is ws.outs[i−1] = ws.outs[i]
		} else {
			l.forward(net.params(theta, i), in, ws.outs[i], ws.aux[i], ws.scratch, n)
		}
		in = ws.outs[i]
	}
	_, out := net.layers[len(net.layers)-1].dims()
	return in[:n*out]
}

// Backward writes Σ_i Σ_k gOut[i,k] ∇_θ Φ_k(θ; x_i) into grad.
func (net *Network) Backward(w Workspace, theta, gOut, grad []float64) {
	ws := net.workspace(w, 0)
	n := ws.n
	if n == 0 {
		clear(grad)
		return
	}
	g := gOut
	for i := len(net.layers) - 1; i >= 0; i-- {
		var po poolOut
		if i >= 2 && net.fusedPool[i-2] {
			// Layers i−2…i (conv, ReLU, pooling) in one pass, from the
			// pooling's output gradient g to the conv layer's input's.
			po = poolOut{l: net.layers[i].(*pool2d), y: ws.outs[i], arg: ws.aux[i]}
			i -= 2
		}
		l := net.layers[i]
		in := ws.x
		if i > 0 {
			in = ws.outs[i-1]
		}
		var gIn []float64
		if i > 0 {
			d, _ := l.dims()
			gIn = ws.ga[:n*d]
			if &g[0] == &ws.ga[0] {
				gIn = ws.gb[:n*d]
			}
		}
		if po.l != nil {
			l.(*conv2d).backwardPool(net.params(theta, i), in, g, gIn, net.params(grad, i), ws.scratch, n, po)
			g = gIn
			continue
		}
		gp := grad[net.offsets[i] : net.offsets[i]+l.numParams()]
		if net.fusedBack[i] {
			// gIn is the gradient with respect to the ReLU's input: the
			// ReLU (layer i−1, no parameters) is done too.
			if p, ok := l.(*pool2d); ok {
				p.backwardReLU(in, g, gIn, ws.aux[i], n, false)
			} else {
				l.(*dense).backwardReLU(net.params(theta, i), in, g, gIn, gp, n)
			}
			i--
		} else {
			l.backward(net.params(theta, i), in, g, gIn, gp, ws.aux[i], ws.scratch, n)
		}
		g = gIn
	}
}

// Init draws θ layer by layer: weights N(0, 1/fan_in), biases N(0, 1);
// in 2-D CNNs weights N(0, 2/fan_in) (He-normal) and biases 0, as LL App. J.
func (net *Network) Init(r *rand.Rand, theta []float64) {
	for i, l := range net.layers {
		l.initParams(r, net.params(theta, i))
	}
}

// Kinked reports whether Φ is only piecewise smooth (ReLU, LeakyReLU,
// ReLU², max pooling).
func (net *Network) Kinked() bool { return net.kinked }

// Pattern appends the kink sides of the last Forward on ws (see Kinked).
func (net *Network) Pattern(w Workspace, dst []byte) []byte {
	ws := net.workspace(w, 0)
	in := ws.x
	for i, l := range net.layers {
		if k := ws.kinks[i]; k != nil {
			// A fused stage's ReLU: its input was never stored.
			dst = append(dst, k[:ws.n*l.(*actLayer).dim/8+1]...)
			in = ws.outs[i]
			continue
		}
		dst = l.pattern(in, ws.aux[i], ws.n, dst)
		in = ws.outs[i]
	}
	return dst
}

package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// NTK is the fully connected network in the NTK parameterization of ZD
// eq. (8), with L ≥ 1 hidden layers of widths d_1 … d_L on inputs of
// dimension d_0:
//
//	h^{l+1} = W^l x^l/√d_l + β b^l,   x^{l+1} = σ(h^{l+1})   (l = 0 … L−1),
//	f(x) = h^{L+1} = W^L x^L/√d_L + β b^L,                     x^0 = x,
//
// with W^l ∈ ℝ^{d_{l+1}×d_l}, W^L ∈ ℝ^{1×d_L}, b^L ∈ ℝ. θ is the
// concatenation W^0, b^0, W^1, b^1, …, W^L, b^L (each W row-major). Init
// draws ZD eq. (9): W^l, b^l ~ N(0, 1) for l < L, **W^L = 0**, b^L ~ N(0, 1)
// — or, for the negative control of ZD App. E, the Gaussian last layer of
// Jacot et al. (2018) and Lee et al. (2019), W^L ~ N(0, 1).
//
// With W^L = 0 the gradient of f with respect to every layer below the last
// vanishes (ZD eq. 43), so the NTK at initialization is that of the last
// layer alone (eq. 44):
//
//	Θ^{(0)}(x, x') = ⟨x^L(x), x^L(x')⟩/d_L + β².
//
// The output scaling 1/√d_L is the NTK one; MeanField replaces it by 1/d_L
// (the mean-field parameterization, a negative control: trained with a
// step size ∝ d_L its features move by O(1) and the network leaves the
// linearized regime at every width).
type NTK struct {
	in     int
	hidden []int
	act    Activation
	beta   float64
	last   LastLayerInit
	scale  OutputScaling
	w, b   []int // offsets of W^l and b^l, l = 0 … L
	np     int
	blocks []Block
	spec   string
}

// LastLayerInit is the initialization of the output weights W^L.
type LastLayerInit int

const (
	// ZeroLast is ZD eq. (9): W^L = 0.
	ZeroLast LastLayerInit = iota
	// GaussianLast is the standard NTK initialization W^L ~ N(0, 1) (ZD
	// App. E, the negative control).
	GaussianLast
)

// OutputScaling is the factor of the output layer.
type OutputScaling int

const (
	// NTKScaling is 1/√d_L (ZD eq. 8).
	NTKScaling OutputScaling = iota
	// MeanField is 1/d_L.
	MeanField
)

// NTKConfig describes an NTK network.
type NTKConfig struct {
	In     int   // d_0 ≥ 1
	Hidden []int // d_1 … d_L, L ≥ 1, each ≥ 1
	// Act is σ; ZD Assumption 2 asks σ and σ′ to be Lipschitz (softplus,
	// tanh, GELU). Kinked activations (ReLU) are accepted for experiments.
	Act  Activation
	Beta float64 // β > 0
	Last LastLayerInit
	Out  OutputScaling
}

// DefaultNTKBeta is the bias scale β of the NTK specs when none is given
// (Jacot et al. 2018 use β = 0.1 in their experiments).
const DefaultNTKBeta = 0.1

// NewNTK returns the network of c.
func NewNTK(c NTKConfig) (*NTK, error) {
	if c.In < 1 {
		return nil, fmt.Errorf("models: ntk: input dimension must be ≥ 1, got %d", c.In)
	}
	if len(c.Hidden) == 0 {
		return nil, fmt.Errorf("models: ntk: needs at least one hidden layer")
	}
	if err := c.Act.validate(); err != nil {
		return nil, fmt.Errorf("models: ntk: %v", err)
	}
	if !(c.Beta > 0) || math.IsInf(c.Beta, 0) {
		return nil, fmt.Errorf("models: ntk: β must be a finite number > 0, got %v (ZD eq. 8 has biases; use an mlp spec for a bias-free net)", c.Beta)
	}
	if c.Last != ZeroLast && c.Last != GaussianLast {
		return nil, fmt.Errorf("models: ntk: unknown last-layer initialization %d", c.Last)
	}
	if c.Out != NTKScaling && c.Out != MeanField {
		return nil, fmt.Errorf("models: ntk: unknown output scaling %d", c.Out)
	}
	net := &NTK{in: c.In, hidden: append([]int(nil), c.Hidden...), act: c.Act, beta: c.Beta, last: c.Last, scale: c.Out}
	prev := c.In
	widths := append(append([]int(nil), c.Hidden...), 1)
	for l, d := range widths {
		if d < 1 {
			return nil, fmt.Errorf("models: ntk: hidden width %d is %d, must be ≥ 1", l+1, d)
		}
		if net.np+prev*d+d > maxParams {
			return nil, fmt.Errorf("models: ntk: more than %d parameters", maxParams)
		}
		net.w = append(net.w, net.np)
		net.blocks = append(net.blocks, Block{Name: fmt.Sprintf("W%d (%d×%d)", l, d, prev), Offset: net.np, Len: prev * d})
		net.np += prev * d
		net.b = append(net.b, net.np)
		net.blocks = append(net.blocks, Block{Name: fmt.Sprintf("b%d (%d)", l, d), Offset: net.np, Len: d})
		net.np += d
		prev = d
	}
	net.spec = net.makeSpec()
	return net, nil
}

func (net *NTK) makeSpec() string {
	ws := make([]string, len(net.hidden))
	uniform := true
	for i, d := range net.hidden {
		ws[i] = strconv.Itoa(d)
		uniform = uniform && d == net.hidden[0]
	}
	s := "ntk:" + net.act.String() + ":"
	if uniform {
		s += fmt.Sprintf("%dx%d", len(net.hidden), net.hidden[0])
	} else {
		s += strings.Join(ws, "-")
	}
	if net.beta != DefaultNTKBeta {
		s += ":beta=" + strconv.FormatFloat(net.beta, 'g', -1, 64)
	}
	if net.last == GaussianLast {
		s += ":gauss"
	}
	if net.scale == MeanField {
		s += ":meanfield"
	}
	return s
}

// NTKGrammar documents the spec strings ParseNTK reads.
const NTKGrammar = `"ntk:" ACT ":" L "x" W | "ntk:" ACT ":" W1 "-" W2 …  { ":" OPTION }
OPTION = "beta=" B       bias scale β (default 0.1)
       | "gauss"         Gaussian last layer W^L ~ N(0,1) (ZD App. E) instead of W^L = 0
       | "meanfield"     output scaling 1/d_L instead of 1/√d_L
Example: ntk:softplus:2x256, ntk:gelu:64-128:beta=0.5`

// ParseNTK reads an NTK spec (see NTKGrammar) for inputs of dimension in.
func ParseNTK(spec string, in int) (*NTK, error) {
	fields := strings.Split(spec, ":")
	fail := func(format string, a ...any) (*NTK, error) {
		return nil, fmt.Errorf("model %q: "+format, append([]any{spec}, a...)...)
	}
	if len(fields) < 3 || fields[0] != "ntk" {
		return fail("want ntk:ACT:LxW or ntk:ACT:W1-W2-… (options :beta=B, :gauss, :meanfield)")
	}
	act, err := ParseActivation(fields[1])
	if err != nil {
		return fail("%v", err)
	}
	c := NTKConfig{In: in, Act: act, Beta: DefaultNTKBeta}
	if a, b, ok := strings.Cut(fields[2], "x"); ok {
		l, err := atoiMin(a, 1, "depth")
		if err != nil {
			return fail("%v", err)
		}
		w, err := atoiMin(b, 1, "width")
		if err != nil {
			return fail("%v", err)
		}
		c.Hidden = repeat(w, l)
	} else {
		for _, f := range strings.Split(fields[2], "-") {
			w, err := atoiMin(f, 1, "width")
			if err != nil {
				return fail("%v", err)
			}
			c.Hidden = append(c.Hidden, w)
		}
	}
	for _, o := range fields[3:] {
		switch {
		case o == "gauss":
			c.Last = GaussianLast
		case o == "meanfield":
			c.Out = MeanField
		case strings.HasPrefix(o, "beta="):
			v, err := strconv.ParseFloat(strings.TrimPrefix(o, "beta="), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return fail("β must be a finite number > 0, got %q", strings.TrimPrefix(o, "beta="))
			}
			c.Beta = v
		default:
			return fail("unknown option %q (want beta=B, gauss, meanfield)", o)
		}
	}
	net, err := NewNTK(c)
	if err != nil {
		return fail("%s", strings.TrimPrefix(err.Error(), "models: ntk: "))
	}
	return net, nil
}

// In returns d_0.
func (net *NTK) In() int { return net.in }

// Out returns 1.
func (net *NTK) Out() int { return 1 }

// NumParams returns the length of θ.
func (net *NTK) NumParams() int { return net.np }

// Depth returns L, the number of hidden layers.
func (net *NTK) Depth() int { return len(net.hidden) }

// Hidden returns the hidden widths d_1 … d_L (a copy).
func (net *NTK) Hidden() []int { return append([]int(nil), net.hidden...) }

// Beta returns β.
func (net *NTK) Beta() float64 { return net.beta }

// Activation returns σ.
func (net *NTK) Activation() Activation { return net.act }

// LastLayer returns the initialization of W^L.
func (net *NTK) LastLayer() LastLayerInit { return net.last }

// Scaling returns the output scaling.
func (net *NTK) Scaling() OutputScaling { return net.scale }

// Degree reports that the network is not homogeneous.
func (net *NTK) Degree() Degree {
	return Degree{Reason: fmt.Sprintf("NTK network: biases β·b^l in every layer (ZD eq. 8), activation %s", net.act)}
}

// Blocks lists W^0, b^0, …, W^L, b^L.
func (net *NTK) Blocks() []Block { return append([]Block(nil), net.blocks...) }

// String returns the spec (see NTKGrammar).
func (net *NTK) String() string { return net.spec }

// Layer returns views of W^l (row-major d_{l+1}×d_l) and b^l in theta,
// l = 0 … L.
func (net *NTK) Layer(theta []float64, l int) (w, b []float64) {
	next := net.np
	if l+1 < len(net.w) {
		next = net.w[l+1]
	}
	return theta[net.w[l]:net.b[l]], theta[net.b[l]:next]
}

// dim returns d_l (d_0 = In, d_{L+1} = 1).
func (net *NTK) dim(l int) int {
	switch {
	case l == 0:
		return net.in
	case l <= len(net.hidden):
		return net.hidden[l-1]
	}
	return 1
}

// factor returns the scale of layer l: 1/√d_l, or 1/d_L for the output
// layer of a mean-field network.
func (net *NTK) factor(l int) float64 {
	d := float64(net.dim(l))
	if l == len(net.hidden) && net.scale == MeanField {
		return 1 / d
	}
	return 1 / math.Sqrt(d)
}

// Init draws θ from ZD eq. (9) (or the Gaussian last layer): the normals
// are drawn layer by layer, W^l then b^l, and W^L's are drawn (and then
// zeroed for ZeroLast) in both cases, so that the two initializations share
// every other parameter for the same generator state.
func (net *NTK) Init(r *rand.Rand, theta []float64) {
	for i := range theta[:net.np] {
		theta[i] = r.NormFloat64()
	}
	if net.last == ZeroLast {
		w, _ := net.Layer(theta, len(net.hidden))
		clear(w)
	}
}

// ntkWorkspace holds the batch in feature-major layout (each quantity of
// layer l as a d_l×n matrix, one column per sample), so that every product
// of the passes reads the weights in place, without the transposed copy of
// W that a sample-major product x·Wᵀ needs (which dominated wide layers at
// small batches): the input xᵀ (d_0×n); for each hidden layer l = 1 … L,
// x^l and σ′(h^l); the raw products u^{l+1} = W^l x^l (l = 0 … L, kept for
// the linearized model); the outputs and two gradient buffers.
type ntkWorkspace struct {
	net    *NTK
	cap    int
	xT     []float64
	n      int
	act    [][]float64
	dact   [][]float64
	raw    [][]float64
	out    []float64
	ga, gb []float64
}

func (ws *ntkWorkspace) Cap() int { return ws.cap }

// NewWorkspace returns buffers for batches of up to n samples.
func (net *NTK) NewWorkspace(n int) Workspace {
	if n < 1 {
		n = 1
	}
	ws := &ntkWorkspace{net: net, cap: n, xT: make([]float64, n*net.in), out: make([]float64, n)}
	maxd := net.in
	for _, d := range net.hidden {
		ws.act = append(ws.act, make([]float64, n*d))
		ws.dact = append(ws.dact, make([]float64, n*d))
		ws.raw = append(ws.raw, make([]float64, n*d))
		maxd = max(maxd, d)
	}
	ws.raw = append(ws.raw, make([]float64, n))
	ws.ga = make([]float64, n*maxd)
	ws.gb = make([]float64, n*maxd)
	return ws
}

func (net *NTK) workspace(w Workspace, n int) *ntkWorkspace {
	ws, ok := w.(*ntkWorkspace)
	if !ok || ws.net != net {
		panic("models: workspace was not made by this NTK network")
	}
	if n > ws.cap {
		panic(fmt.Sprintf("models: batch of %d exceeds workspace capacity %d", n, ws.cap))
	}
	return ws
}

// transposeIn writes the n×d_0 rows of x as the d_0×n matrix dst.
func (net *NTK) transposeIn(dst, x []float64, n int) {
	d := net.in
	for i := 0; i < n; i++ {
		for k, v := range x[i*d : (i+1)*d] {
			dst[k*n+i] = v
		}
	}
}

// layerInput returns x^l (d_l×n) of the last Forward on ws.
func (ws *ntkWorkspace) layerInput(l int) []float64 {
	if l == 0 {
		return ws.xT[:ws.n*ws.net.in]
	}
	return ws.act[l-1][:ws.n*ws.net.dim(l)]
}

// Forward computes f(x_i) for the n rows of x.
func (net *NTK) Forward(w Workspace, theta, x []float64, n int) []float64 {
	ws := net.workspace(w, n)
	if len(theta) != net.np {
		panic(fmt.Sprintf("models: θ has %d entries, %s needs %d", len(theta), net.spec, net.np))
	}
	ws.n = n
	net.transposeIn(ws.xT, x, n)
	in := ws.xT[:n*net.in]
	L := len(net.hidden)
	for l := 0; l <= L; l++ {
		dIn, dOut := net.dim(l), net.dim(l+1)
		wl, bl := net.Layer(theta, l)
		u := ws.raw[l][:dOut*n]
		linalg.MulAB(dOut, n, dIn, wl, dIn, in, n, u, n, false)
		// h = u/√d_l + βb, written into x^{l+1} (or the output).
		h := ws.out[:n]
		if l < L {
			h = ws.act[l][:dOut*n]
		}
		s := net.factor(l)
		for j := 0; j < dOut; j++ {
			bj := net.beta * bl[j]
			hr, ur := h[j*n:(j+1)*n], u[j*n:(j+1)*n]
			for i, v := range ur {
				hr[i] = v*s + bj
			}
		}
		if l < L {
			net.act.apply(h, ws.dact[l][:dOut*n], h)
			in = h
		}
	}
	return ws.out[:n]
}

// Backward writes Σ_i gOut[i] ∇_θ f(x_i) into grad, at the θ and x of the
// last Forward on ws. With α^{l} = ∂f/∂h^{l} (α^{L+1} = gOut), column i for
// sample i:
//
//	∇_{W^l} = α^{l+1}(x^l)ᵀ/√d_l,  ∇_{b^l} = β Σ_i α_i^{l+1},
//	α^l = ((W^l)ᵀα^{l+1}/√d_l) ⊙ σ′(h^l).
func (net *NTK) Backward(w Workspace, theta, gOut, grad []float64) {
	ws := net.workspace(w, 0)
	net.backward(ws, theta, gOut, grad)
}

func (net *NTK) backward(ws *ntkWorkspace, theta, gOut, grad []float64) {
	n := ws.n
	if n == 0 {
		clear(grad)
		return
	}
	L := len(net.hidden)
	alpha := gOut[:n] // α^{l+1}, d_{l+1}×n
	for l := L; l >= 0; l-- {
		dIn, dOut := net.dim(l), net.dim(l+1)
		wl, _ := net.Layer(theta, l)
		gw, gb := net.Layer(grad, l)
		// a = α^{l+1}/√d_l (in ga), shared by ∇_{W^l} and α^l (in gb).
		s := net.factor(l)
		a := ws.ga[:dOut*n]
		for j := 0; j < dOut; j++ {
			var sum float64
			ar := alpha[j*n : (j+1)*n]
			for i, v := range ar {
				sum += v
				a[j*n+i] = v * s
			}
			gb[j] = net.beta * sum
		}
		linalg.MulABt(dOut, dIn, n, a, n, ws.layerInput(l), n, gw, dIn, false)
		if l == 0 {
			break
		}
		next := ws.gb[:dIn*n]
		linalg.MulAtB(dIn, n, dOut, wl, dIn, a, n, next, n, false)
		linalg.Mul(next, next, ws.dact[l-1][:dIn*n])
		alpha = next
	}
}

// ntkFeatures holds, for a batch of n samples at one θ, the layer inputs
// x^l (d_l×n) and the backpropagated α^{l+1} = ∂f/∂h^{l+1} (d_{l+1}×n) of
// every layer l = 0 … L: the factors of the Jacobian rows
// ∇_{W^l} f = α^{l+1}(x^l)ᵀ/√d_l, ∇_{b^l} f = β α^{l+1}.
type ntkFeatures struct {
	x, alpha [][]float64
}

func (net *NTK) features(theta, x []float64, n int) ntkFeatures {
	ws := net.workspace(net.NewWorkspace(n), n)
	net.Forward(ws, theta, x, n)
	L := len(net.hidden)
	f := ntkFeatures{x: make([][]float64, L+1), alpha: make([][]float64, L+1)}
	for l := 0; l <= L; l++ {
		f.x[l] = ws.layerInput(l)
	}
	f.alpha[L] = make([]float64, n)
	for i := range f.alpha[L] {
		f.alpha[L][i] = 1
	}
	for l := L; l >= 1; l-- {
		dIn, dOut := net.dim(l), net.dim(l+1)
		wl, _ := net.Layer(theta, l)
		a := make([]float64, dIn*n)
		linalg.MulAtB(dIn, n, dOut, wl, dIn, f.alpha[l], n, a, n, false)
		s := net.factor(l)
		for i := range a {
			a[i] *= s
		}
		linalg.Mul(a, a, ws.dact[l-1][:dIn*n])
		f.alpha[l-1] = a
	}
	return f
}

// Kernel writes into dst (na×nb, row-major) the empirical neural tangent
// kernel Θ(x, x') = ⟨∇_θ f(x), ∇_θ f(x')⟩ at θ between the rows of xa and
// those of xb, without forming the Jacobian: the gradient of each layer is
// an outer product, so
//
//	Θ(x, x') = Σ_{l=0}^{L} ⟨α^{l+1}, α'^{l+1}⟩ (⟨x^l, x'^l⟩/d_l + β²)
//
// (1/d_L² for the output layer of a mean-field network). At ZD's
// initialization α^{l+1} = 0 for l < L and this is eq. (44)'s
// ⟨x^L, x'^L⟩/d_L + β². It allocates (it is not a per-step computation).
func (net *NTK) Kernel(theta, xa []float64, na int, xb []float64, nb int, dst []float64) {
	if len(theta) != net.np {
		panic(fmt.Sprintf("models: θ has %d entries, %s needs %d", len(theta), net.spec, net.np))
	}
	fa := net.features(theta, xa, na)
	fb := net.features(theta, xb, nb)
	clear(dst[:na*nb])
	aa := make([]float64, na*nb)
	xx := make([]float64, na*nb)
	for l := 0; l <= len(net.hidden); l++ {
		dIn, dOut := net.dim(l), net.dim(l+1)
		linalg.MulAtB(na, nb, dOut, fa.alpha[l], na, fb.alpha[l], nb, aa, nb, false)
		linalg.MulAtB(na, nb, dIn, fa.x[l], na, fb.x[l], nb, xx, nb, false)
		s := net.factor(l)
		for i := range aa {
			dst[i] += aa[i] * (xx[i]*s*s + net.beta*net.beta)
		}
	}
}

// Linearized is the linearization of an NTK network at θ₀ (ZD eq. 11),
//
//	f_lin(x; θ) = f(x; θ₀) + ⟨θ − θ₀, ∇_θ f(x; θ₀)⟩,
//
// a Model on the same parameter vector, so that the same objective,
// weighting and optimizer train it. Forward computes the inner product as a
// forward-mode directional derivative along θ − θ₀ (tangents
// ḣ^{l+1} = (ẋ^l W₀^l + x₀^l (W^l − W₀^l))ᵀ/√d_l + β(b^l − b₀^l),
// ẋ^{l+1} = σ′(h₀^{l+1}) ⊙ ḣ^{l+1}), without forming θ − θ₀: the product
// x₀^l(W₀^l)ᵀ is kept from the pass at θ₀. Backward is backprop at θ₀, since
// ∇_θ f_lin = ∇_θ f(·; θ₀). When W₀^L = 0 (ZD eq. 9) every tangent below the
// output is multiplied by W₀^L and vanishes, and both passes reduce to the
// last layer on the features x₀^L (ZD eq. 43–44): the same values, exactly,
// at O(n·d_L) cost. The pass at θ₀ is cached per input batch (compared by
// value, so a changed x is recomputed).
type Linearized struct {
	net      *NTK
	theta0   []float64
	zeroLast bool
	// last: the parameters are only the output layer's (W^L, b^L), see
	// LastLayerOnly.
	last bool
}

// NewLinearized returns the linearization of net at theta0 (copied).
func NewLinearized(net *NTK, theta0 []float64) (*Linearized, error) {
	if len(theta0) != net.np {
		return nil, fmt.Errorf("models: θ₀ has %d entries, %s needs %d", len(theta0), net.spec, net.np)
	}
	for i, v := range theta0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("models: θ₀[%d] is %v", i, v)
		}
	}
	m := &Linearized{net: net, theta0: append([]float64(nil), theta0...), zeroLast: true}
	wL, _ := net.Layer(m.theta0, len(net.hidden))
	for _, v := range wL {
		if v != 0 {
			m.zeroLast = false
			break
		}
	}
	return m, nil
}

// LastLayerOnly returns, when W₀^L = 0, the same linearization on the output
// layer's parameters v = (W^L, b^L) alone (d_L + 1 of them):
//
//	f_lin(x; v) = f^{(0)}(x) + ⟨W^L, x₀^L(x)⟩/√d_L + β(b^L − b₀^L).
//
// Every other coordinate of ∇_θ f(x; θ₀) is 0 (ZD eq. 43), so GD on the full
// θ leaves them at θ₀ and moves (W^L, b^L) exactly as GD on v does (a
// regularizer centred at θ₀ adds nothing on them either): the same
// trajectory, at O(n·d_L) per step instead of O(p) for the update of the
// p − d_L − 1 coordinates that never move. Theta0 is still the full θ₀; the
// model's own start is its output layer, LastLayer0.
func (m *Linearized) LastLayerOnly() (*Linearized, error) {
	if !m.zeroLast {
		return nil, fmt.Errorf("models: %s: W₀^L ≠ 0, every layer's gradient is live", m)
	}
	return &Linearized{net: m.net, theta0: m.theta0, zeroLast: true, last: true}, nil
}

// LastLayer0 returns (W₀^L, b₀^L) (not a copy: do not modify).
func (m *Linearized) LastLayer0() []float64 { return m.theta0[m.net.w[len(m.net.hidden)]:] }

// outputLayer returns the views of W^L and b^L in theta (a full θ, or v
// for a last-layer-only model).
func (m *Linearized) outputLayer(theta []float64) (w, b []float64) {
	if m.last {
		d := m.net.dim(len(m.net.hidden))
		return theta[:d], theta[d:]
	}
	return m.net.Layer(theta, len(m.net.hidden))
}

// Net returns the network.
func (m *Linearized) Net() *NTK { return m.net }

// Theta0 returns θ₀ (not a copy: do not modify).
func (m *Linearized) Theta0() []float64 { return m.theta0 }

// In returns d_0.
func (m *Linearized) In() int { return m.net.in }

// Out returns 1.
func (m *Linearized) Out() int { return 1 }

// NumParams returns the length of θ (d_L + 1 for a last-layer-only model).
func (m *Linearized) NumParams() int {
	if m.last {
		return m.net.np - m.net.w[len(m.net.hidden)]
	}
	return m.net.np
}

// Degree reports that f_lin is not homogeneous (it is affine in θ).
func (m *Linearized) Degree() Degree {
	return Degree{Reason: "linearized network: affine in θ (ZD eq. 11)"}
}

// Blocks returns the network's blocks (W^L and b^L for a last-layer-only
// model).
func (m *Linearized) Blocks() []Block {
	bs := m.net.Blocks()
	if m.last {
		L := len(m.net.hidden)
		d := m.net.dim(L)
		return []Block{{Name: bs[2*L].Name, Offset: 0, Len: d}, {Name: bs[2*L+1].Name, Offset: d, Len: 1}}
	}
	return bs
}

// String returns "lin(SPEC)", or "lin-last(SPEC)".
func (m *Linearized) String() string {
	if m.last {
		return "lin-last(" + m.net.spec + ")"
	}
	return "lin(" + m.net.spec + ")"
}

// Init copies θ₀ (or its output layer) into theta (the generator is not
// used).
func (m *Linearized) Init(_ *rand.Rand, theta []float64) {
	if m.last {
		copy(theta, m.LastLayer0())
		return
	}
	copy(theta, m.theta0)
}

type linWorkspace struct {
	m     *Linearized
	base  *ntkWorkspace // the pass at θ₀ on xc
	xc    []float64     // the cached batch
	nc    int
	valid bool
	tan   [][]float64 // ẋ^l, l = 1 … L (d_l×n)
	th    []float64   // ḣ of a hidden layer
	out   []float64
	// xLT is (x₀^L)ᵀ (n×d_L) of the cached batch when W₀^L = 0: the
	// output layer's gradient a·(x₀^L)ᵀ as a row times a matrix (MulAB's
	// row kernel, vectorized over d_L), the chains MulABt would form (l =
	// 0 … n−1 from +0), without transposing x₀^L at every step.
	xLT []float64
}

func (ws *linWorkspace) Cap() int { return ws.base.cap }

// NewWorkspace returns buffers for batches of up to n samples.
func (m *Linearized) NewWorkspace(n int) Workspace {
	if n < 1 {
		n = 1
	}
	ws := &linWorkspace{m: m, base: m.net.workspace(m.net.NewWorkspace(n), n), xc: make([]float64, n*m.net.in), out: make([]float64, n)}
	if m.zeroLast {
		ws.xLT = make([]float64, n*m.net.dim(len(m.net.hidden)))
	} else {
		maxd := 0
		for _, d := range m.net.hidden {
			ws.tan = append(ws.tan, make([]float64, n*d))
			maxd = max(maxd, d)
		}
		ws.th = make([]float64, n*maxd)
	}
	return ws
}

func (m *Linearized) workspace(w Workspace, n int) *linWorkspace {
	ws, ok := w.(*linWorkspace)
	if !ok || ws.m != m {
		panic("models: workspace was not made by this linearized model")
	}
	if n > ws.base.cap {
		panic(fmt.Sprintf("models: batch of %d exceeds workspace capacity %d", n, ws.base.cap))
	}
	return ws
}

// at0 makes sure the pass at θ₀ on x is in ws.base.
func (m *Linearized) at0(ws *linWorkspace, x []float64, n int) {
	k := n * m.net.in
	if ws.valid && ws.nc == n {
		same := true
		for i, v := range x[:k] {
			if math.Float64bits(v) != math.Float64bits(ws.xc[i]) {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	copy(ws.xc, x[:k])
	ws.nc, ws.valid = n, true
	m.net.Forward(ws.base, m.theta0, ws.xc[:k], n)
	if m.zeroLast {
		L := len(m.net.hidden)
		dL := m.net.dim(L)
		linalg.Transpose(ws.xLT, dL, ws.base.layerInput(L), n, dL, n)
	}
}

// Forward computes f_lin(x_i; θ) for the n rows of x.
func (m *Linearized) Forward(w Workspace, theta, x []float64, n int) []float64 {
	ws := m.workspace(w, n)
	net := m.net
	if len(theta) != m.NumParams() {
		panic(fmt.Sprintf("models: θ has %d entries, %s needs %d", len(theta), m, m.NumParams()))
	}
	m.at0(ws, x, n)
	f0 := ws.base.out[:n]
	out := ws.out[:n]
	L := len(net.hidden)
	if m.zeroLast {
		dL := net.dim(L)
		wL, bL := m.outputLayer(theta)
		_, b0 := net.Layer(m.theta0, L)
		linalg.MulAB(1, n, dL, wL, dL, ws.base.layerInput(L), n, out, n, false)
		s, db := net.factor(L), net.beta*(bL[0]-b0[0])
		for i := range out {
			out[i] = f0[i] + out[i]*s + db
		}
		return out
	}
	for l := 0; l <= L; l++ {
		dIn, dOut := net.dim(l), net.dim(l+1)
		wl, bl := net.Layer(theta, l)
		w0, b0 := net.Layer(m.theta0, l)
		c := out
		if l < L {
			c = ws.th[:dOut*n]
		}
		// c = W x₀^l + W₀ ẋ^l; ḣ = (c − W₀x₀^l)/√d_l + β(b − b₀).
		linalg.MulAB(dOut, n, dIn, wl, dIn, ws.base.layerInput(l), n, c, n, false)
		if l > 0 {
			linalg.MulAB(dOut, n, dIn, w0, dIn, ws.tan[l-1][:dIn*n], n, c, n, true)
		}
		u0 := ws.base.raw[l]
		s := net.factor(l)
		for j := 0; j < dOut; j++ {
			db := net.beta * (bl[j] - b0[j])
			cr, ur := c[j*n:(j+1)*n], u0[j*n:(j+1)*n]
			for i := range cr {
				cr[i] = (cr[i]-ur[i])*s + db
			}
		}
		if l < L {
			linalg.Mul(ws.tan[l][:dOut*n], c, ws.base.dact[l][:dOut*n])
		}
	}
	for i := range out {
		out[i] += f0[i]
	}
	return out
}

// Backward writes Σ_i gOut[i] ∇_θ f(x_i; θ₀) into grad (the gradient of
// f_lin does not depend on θ).
func (m *Linearized) Backward(w Workspace, theta, gOut, grad []float64) {
	ws := m.workspace(w, 0)
	n := ws.nc
	if !ws.valid || n == 0 {
		clear(grad)
		return
	}
	if !m.zeroLast {
		m.net.backward(ws.base, m.theta0, gOut, grad)
		return
	}
	net := m.net
	L := len(net.hidden)
	dL := net.dim(L)
	gw, gb := m.outputLayer(grad)
	if !m.last {
		clear(grad[:net.w[L]])
	}
	s := net.factor(L)
	a := ws.base.ga[:n]
	var sum float64
	for i, v := range gOut[:n] {
		sum += v
		a[i] = v * s
	}
	linalg.MulAB(1, dL, n, a, n, ws.xLT, dL, gw, dL, false)
	gb[0] = net.beta * sum
}

// ParseModel builds the model a spec names: an NTK network for "ntk:…"
// specs (NTKGrammar), a Network (Parse, SpecGrammar) otherwise.
func ParseModel(spec string, in int) (Model, error) {
	if strings.HasPrefix(spec, "ntk:") {
		return ParseNTK(spec, in)
	}
	return Parse(spec, in)
}

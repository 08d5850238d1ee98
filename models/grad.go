package models

// Grader computes gradients of single outputs at single inputs, ∇_θ Φ_k(θ; x),
// the rows of the Jacobian that identities like Euler's and the KKT
// conditions are stated in. It owns a one-sample workspace and does not
// allocate after NewGrader.
type Grader struct {
	m    Model
	ws   Workspace
	gOut []float64
}

// NewGrader returns a Grader for m.
func NewGrader(m Model) *Grader {
	return &Grader{m: m, ws: m.NewWorkspace(1), gOut: make([]float64, m.Out())}
}

// Grad writes ∇_θ Φ_k(θ; x) into dst (len NumParams) and returns Φ_k(θ; x).
func (g *Grader) Grad(theta, x []float64, k int, dst []float64) float64 {
	out := g.m.Forward(g.ws, theta, x, 1)
	phi := out[k]
	clear(g.gOut)
	g.gOut[k] = 1
	g.m.Backward(g.ws, theta, g.gOut, dst)
	return phi
}

// Grads calls fn with Φ_k(θ; x) and ∇_θ Φ_k(θ; x) for every output k, in
// order, from one forward pass (Backward reads the forward's buffers and
// writes only its own, so K backward passes follow one forward: the same
// bits as K calls of Grad, TestGraderGradsSameBits). grad is dst, valid
// until fn returns.
func (g *Grader) Grads(theta, x, dst []float64, fn func(k int, phi float64, grad []float64)) {
	out := g.m.Forward(g.ws, theta, x, 1)
	phis := append([]float64(nil), out...)
	for k, phi := range phis {
		clear(g.gOut)
		g.gOut[k] = 1
		g.m.Backward(g.ws, theta, g.gOut, dst)
		fn(k, phi, dst)
	}
}

// Value returns Φ_k(θ; x).
func (g *Grader) Value(theta, x []float64, k int) float64 {
	return g.m.Forward(g.ws, theta, x, 1)[k]
}

// Pattern appends the kink pattern of Φ(θ; x) (see Kinked); nothing for
// smooth models.
func (g *Grader) Pattern(theta, x []float64, dst []byte) []byte {
	k, ok := g.m.(Kinked)
	if !ok {
		return dst
	}
	g.m.Forward(g.ws, theta, x, 1)
	return k.Pattern(g.ws, dst)
}

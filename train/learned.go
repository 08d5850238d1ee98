package train

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
)

// LearnedWeighting is the weighting model trained jointly with the
// classifier of XY §5 (eq. 4, Fig. 4):
//
//	minimize over ψ, b, θ:  (1/n) Σ_i g(ψ, x_i)·ℓ(y_i f(θ, x_i)),   g(ψ, x) = σ(ψᵀx + b) + 1 ∈ (1, 2),
//
// the "+1" keeping the weights inside XY's box 1/M < g < M (M = 2). At
// step t the classifier steps on the GRW objective with q_i = g_i/Σ_j g_j
// (the simplex weights of ZD §3; the normalization rescales the step by
// Σ_j g_j/n ∈ (1, 2) and does not change the direction), and the weighting
// model takes a gradient step of size LR on the same risk at the losses
// at θ_t:
//
//	(ψ, b) ← (ψ, b) − LR·(1/n) Σ_i σ′(ψᵀx_i + b) ℓ_i (x_i, 1),   σ′ = σ(1 − σ).
//
// Both updates use the state at step t (simultaneous gradient descent).
// Minimizing pushes g down where the loss is large, so the weights lean
// toward the samples with large margins; as every loss goes to 0 the
// gradient of (ψ, b) vanishes and XY conjecture that the weights
// concentrate to a constant (XY-S5).
type LearnedWeighting struct {
	LR float64
	// Psi0 and B0 are the initial parameters (Psi0 nil: ψ = 0).
	Psi0 []float64
	B0   float64

	psi  []float64
	b    float64
	data *dataset.Dataset
	z    []float64 // ψᵀx_i + b
}

// NewLearnedWeighting returns the scheme with step lr > 0 and initial
// parameters psi0 (copied; nil for 0) and b0.
func NewLearnedWeighting(lr float64, psi0 []float64, b0 float64) (*LearnedWeighting, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("train: learned weighting needs a finite step > 0, got %v", lr)
	}
	if math.IsNaN(b0) || math.IsInf(b0, 0) {
		return nil, fmt.Errorf("train: learned weighting bias is %v", b0)
	}
	for i, v := range psi0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: learned weighting ψ[%d] is %v", i, v)
		}
	}
	return &LearnedWeighting{LR: lr, Psi0: append([]float64(nil), psi0...), B0: b0}, nil
}

// Scheme returns LearnedScheme with its step.
func (w *LearnedWeighting) Scheme() Scheme { return Scheme{Kind: LearnedScheme, Param: w.LR} }

// Start resets ψ and b to their initial values.
func (w *LearnedWeighting) Start(d *dataset.Dataset) error {
	if !(w.LR > 0) || math.IsInf(w.LR, 0) {
		return fmt.Errorf("train: learned weighting needs a finite step > 0, got %v", w.LR)
	}
	if w.Psi0 != nil && len(w.Psi0) != d.D {
		return fmt.Errorf("train: learned weighting ψ has %d entries, the data %d features", len(w.Psi0), d.D)
	}
	w.data = d
	w.psi = make([]float64, d.D)
	copy(w.psi, w.Psi0)
	w.b = w.B0
	w.z = make([]float64, d.N)
	return nil
}

// Psi returns the current ψ (a view, valid until the next Update) and b.
func (w *LearnedWeighting) Psi() ([]float64, float64) { return w.psi, w.b }

// Update writes q_i = g(ψ_t, x_i)/Σ_j g(ψ_t, x_j), then steps ψ, b on the
// losses at θ_t. It does not allocate.
func (w *LearnedWeighting) Update(t int, logLoss, q []float64) error {
	d := w.data
	var sum float64
	for i := 0; i < d.N; i++ {
		row := d.X[i*d.D : (i+1)*d.D]
		z := w.b
		for j, v := range row {
			z += w.psi[j] * v
		}
		w.z[i] = z
		q[i] = sigmoid(z) + 1
		sum += q[i]
	}
	for i := range q {
		q[i] /= sum
	}
	// ∇_(ψ,b) (1/n)Σ g_i ℓ_i = (1/n)Σ σ′(z_i) ℓ_i (x_i, 1).
	scale := w.LR / float64(d.N)
	var gb float64
	for i := 0; i < d.N; i++ {
		ll := logLoss[i]
		if math.IsNaN(ll) || ll == math.Inf(1) {
			return fmt.Errorf("train: learned weighting step %d: log-loss of sample %d is %v", t, i+1, ll)
		}
		s := sigmoid(w.z[i])
		c := s * (1 - s) * numerics.Exp(ll)
		gb += c
		row := d.X[i*d.D : (i+1)*d.D]
		for j, v := range row {
			w.psi[j] -= scale * c * v
		}
	}
	w.b -= scale * gb
	return nil
}

// sigmoid returns 1/(1 + e^{−z}) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

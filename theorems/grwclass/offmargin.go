package grwclass

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/theorems/limits"
	"github.com/implicitbias/implicitbias/train"
)

// offMargin describes the samples behind a max-margin solution ŵ (margin 1
// at the support vectors): their constraint vectors z_i (y_i x_i, or the
// multi-class a_{n,j}), ⟨ŵ, z_i⟩ ≥ 1, and the training weights q (nil:
// uniform; a record's own Weights take precedence when it kept them and
// they match z). Sample k owns the rows k·per … k·per + per − 1 of z (per
// 0 means 1; K − 1 for the multi-class constraints).
type offMargin struct {
	z   *mat.Dense
	q   []float64
	per int
}

// weights returns the training weight of every row of z, from q (nil:
// uniform), or nil for uniform weights.
func (om *offMargin) weights(q []float64) []float64 {
	n, _ := om.z.Dims()
	per := max(om.per, 1)
	if q == nil || len(q)*per != n {
		return nil
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = q[i/per]
	}
	return w
}

// minGap returns g = min (m_i − 1) over the samples off the margin, m_i =
// ⟨ŵ, z_i⟩ > 1 + PathOffsetActiveTol, that carry training weight (rec's
// Weights, else om.q); +Inf when there are none.
func (om *offMargin) minGap(w []float64, rec *train.Record) float64 {
	n, d := om.z.Dims()
	if len(w) != d {
		return math.NaN()
	}
	q := om.weights(om.q)
	if rw := om.weights(rec.Weights); rw != nil {
		q = rw
	}
	g := math.Inf(1)
	for i := 0; i < n; i++ {
		if q != nil && !(q[i] > 0) {
			continue
		}
		if gap := floats.Dot(om.z.RawRowView(i), w) - 1; gap > limits.PathOffsetActiveTol {
			g = math.Min(g, gap)
		}
	}
	return g
}

// pullGrowth bounds how much the samples off the margin can still grow the
// residual r = θ − ŵ log T from log T = s₀, where ‖r‖ grows at the rate v
// (per unit of log T), until log T = s₁ (Soudry et al. 2018, proof of
// Thm 3). In log time s = log T, along the gradient flow of an
// exponentially tailed loss Σ_i q_i e^{−⟨θ, z_i⟩},
//
//	dr/ds = T Σ_i q_i e^{−⟨θ, z_i⟩} z_i − ŵ,
//
// and with θ = ŵ log T + r a sample of margin m_i = ⟨ŵ, z_i⟩ > 1 enters
// with the factor T^{1−m_i} = e^{−(m_i − 1)s}: once the support vectors'
// terms balance ŵ, what still moves r is a pull that decays at least like
// e^{−g s}, g the smallest gap (minGap). A growth driven by it, at rate v at
// s₀, adds at most
//
//	∫_{s₀}^{s₁} v e^{−g(s − s₀)} ds = v (1 − e^{−g(s₁ − s₀)})/g
//
// by s₁: less than v(s₁ − s₀), the growth at a constant rate, which is what
// a residual growing like ‖ŵ‖ log T (a direction with another limit) does,
// and far less than a residual growing like a power of T (a polynomial
// tail), whose rate increases. On soak seed 1795337506059712 (LL-lin,
// margins 1.09 and 1.12 beside the two support vectors) the residual rose
// from 1.17 to 2.67 between log T = 4.3 and 9.2 at a rate that fell from
// 0.38 like e^{−0.115 s}: a pull still settling, not a growth.
func pullGrowth(v, g, s0, s1 float64) float64 {
	if !(v > 0) || !(s1 > s0) {
		return 0
	}
	if math.IsInf(g, 1) {
		return 0 // nothing off the margin
	}
	if !(g > 0) {
		return v * (s1 - s0)
	}
	return v * -math.Expm1(-g*(s1-s0)) / g
}

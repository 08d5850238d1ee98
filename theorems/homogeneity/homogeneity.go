package homogeneity

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// Bounds of the exact identities. A forward or backward pass of depth H and
// fan-in W computes each output with a relative rounding error of about
// H·W·ε (ε = 2⁻⁵³ ≈ 1.1e-16) of the magnitude of its terms: 3.6e-14 for
// H = 5, W = 64, the largest networks the generators make. The identities
// are compared relative to ‖θ‖‖∇Φ‖, the magnitude of ⟨θ, ∇Φ⟩ = LΦ.
const (
	// HomogeneityBound is LL-B2a/B2b's relative error bound (catalog: "~1e-12"),
	// a factor ~30 above the rounding estimate for the ratio of absolute to
	// signed magnitudes.
	HomogeneityBound = 1e-12
	// EulerBound is LL-B3/B3m's bound |⟨θ,∇Φ⟩ − LΦ| ≤ 1e-10·‖θ‖‖∇Φ‖ (the
	// issue's acceptance criterion); the inner product adds P·ε ≤ 1.6e-12 for
	// the P ≤ 16 000 parameters generated.
	EulerBound = 1e-10
)

// pointGrads evaluates, for every input and output, Φ_k(θ; x_n) and
// ∇Φ_k(θ; x_n), calling fn with them and ‖∇Φ_k‖ (computed once: on LL's
// CNN a norm of the 3.2·10⁶ entries costs a sixth of the gradient, and
// every identity reads it). It returns an Inconclusive verdict when
// every gradient is zero (a dead network: the identities then hold
// vacuously, 0 = 0).
func pointGrads(c *PointCase, theta []float64, fn func(n, k int, phi, gnorm float64, grad []float64)) *theorems.Verdict {
	g := models.NewGrader(c.Model)
	grad := make([]float64, c.Model.NumParams())
	live := false
	for n := 0; n < c.N; n++ {
		// One forward pass for the K outputs (Grader.Grads: the same bits as
		// a forward each).
		g.Grads(theta, c.sample(n), grad, func(k int, phi float64, grad []float64) {
			gnorm := norm2(grad)
			if gnorm > 0 {
				live = true
			}
			fn(n, k, phi, gnorm, grad)
		})
	}
	if !live {
		v := theorems.Undecided("degenerate point: ∇Φ = 0 at every input (dead units)")
		return &v
	}
	return nil
}

// Homogeneity checks LL-B2a, Φ(sθ; x) = s^L Φ(θ; x) for the scale s > 0, with
// the relative error |Φ(sθ) − s^LΦ(θ)| / (s^L‖θ‖‖∇Φ(θ)‖) ≤ HomogeneityBound.
func Homogeneity(c PointCase, s float64) theorems.Verdict {
	if err := c.validate(); err != nil {
		return theorems.Invalid(err)
	}
	L, bad := c.degree()
	if bad != nil {
		return *bad
	}
	if !(s > 0) {
		return theorems.Invalid(fmt.Errorf("theorems: scale must be > 0, got %v", s))
	}
	scaled := make([]float64, len(c.Theta))
	floats.ScaleTo(scaled, s, c.Theta)
	g := models.NewGrader(c.Model)
	rho := floats.Norm(c.Theta, 2)
	sL := math.Pow(s, L)
	worst := 0.0
	detail := ""
	if v := pointGrads(&c, c.Theta, func(n, k int, phi, gnorm float64, grad []float64) {
		scale := sL * rho * gnorm
		if scale == 0 {
			return
		}
		e := math.Abs(g.Value(scaled, c.sample(n), k)-sL*phi) / scale
		if e > worst || math.IsNaN(e) {
			worst = e
			detail = fmt.Sprintf("input %d output %d: Φ(%.4gθ) = %.17g vs s^L Φ(θ) = %.17g (L = %g)", c.First+n, k, s, g.Value(scaled, c.sample(n), k), sL*phi, L)
		}
	}); v != nil {
		return *v
	}
	return theorems.Compare(worst, HomogeneityBound, detail)
}

// GradientHomogeneity checks LL-B2b, ∇Φ(sθ; x) = s^{L−1}∇Φ(θ; x), with the
// relative error ‖∇Φ(sθ) − s^{L−1}∇Φ(θ)‖ / (s^{L−1}‖∇Φ(θ)‖) ≤ HomogeneityBound.
func GradientHomogeneity(c PointCase, s float64) theorems.Verdict {
	if err := c.validate(); err != nil {
		return theorems.Invalid(err)
	}
	L, bad := c.degree()
	if bad != nil {
		return *bad
	}
	if !(s > 0) {
		return theorems.Invalid(fmt.Errorf("theorems: scale must be > 0, got %v", s))
	}
	scaled := make([]float64, len(c.Theta))
	floats.ScaleTo(scaled, s, c.Theta)
	g := models.NewGrader(c.Model)
	gs := make([]float64, len(c.Theta))
	sL1 := math.Pow(s, L-1)
	worst, detail := 0.0, ""
	if v := pointGrads(&c, c.Theta, func(n, k int, _, norm float64, grad []float64) {
		if norm == 0 {
			return
		}
		g.Grad(scaled, c.sample(n), k, gs)
		floats.AddScaled(gs, -sL1, grad)
		e := floats.Norm(gs, 2) / (sL1 * norm)
		if e > worst || math.IsNaN(e) {
			worst = e
			detail = fmt.Sprintf("input %d output %d: ‖∇Φ(%.4gθ) − s^{L−1}∇Φ(θ)‖ is %.3g of ‖s^{L−1}∇Φ(θ)‖ (L = %g)", c.First+n, k, s, e, L)
		}
	}); v != nil {
		return *v
	}
	return theorems.Compare(worst, HomogeneityBound, detail)
}

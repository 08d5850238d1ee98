package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
)

// RegressionCase is overparameterized linear regression (ZD §4.1): N
// samples x_i ∈ ℝ^D (rows of X, row-major) with targets Y, and the start
// θ₀ of training (nil: 0). ZD's theorems need D > N and independent x_i.
type RegressionCase struct {
	X      []float64
	Y      []float64
	N, D   int
	Theta0 []float64
}

// regression is a case prepared for checks: the span of the samples, the
// interpolator θ* and its norm.
type regression struct {
	RegressionCase
	span   *numerics.RowSpan
	star   []float64
	theta0 []float64
}

// prepare checks the hypotheses (d > n, x_i independent) and solves for
// θ*; a case that breaks them gives an AssumptionFailed verdict.
func (c RegressionCase) prepare() (*regression, *theorems.Verdict) {
	if c.N < 1 || len(c.X) != c.N*c.D || len(c.Y) != c.N || (c.Theta0 != nil && len(c.Theta0) != c.D) {
		v := theorems.Invalid(fmt.Errorf("theorems: regression case shape mismatch (n = %d, d = %d, %d values, %d targets)", c.N, c.D, len(c.X), len(c.Y)))
		return nil, &v
	}
	if c.D <= c.N {
		v := theorems.Assumption("ZD §4.1 needs d > n (overparameterized): n = %d, d = %d", c.N, c.D)
		return nil, &v
	}
	s, err := numerics.NewRowSpan(c.X, c.N, c.D)
	if err != nil {
		v := theorems.Assumption("ZD Thm 1 needs x_1…x_n linearly independent: %v", err)
		return nil, &v
	}
	r := &regression{RegressionCase: c, span: s, star: make([]float64, c.D), theta0: c.Theta0}
	if r.theta0 == nil {
		r.theta0 = make([]float64, c.D)
	}
	if _, err := s.Interpolate(r.star, c.X, c.Y, r.theta0); err != nil {
		v := theorems.Invalid(err)
		return nil, &v
	}
	return r, nil
}

// Interpolator returns θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀) of the case, or an
// error when its hypotheses fail.
func (c RegressionCase) Interpolator() ([]float64, error) {
	r, v := c.prepare()
	if v != nil {
		return nil, fmt.Errorf("%s", v.Detail)
	}
	return r.star, nil
}

// residualNorm returns ‖Xθ − y‖.
func (c RegressionCase) residualNorm(theta []float64) float64 {
	var s float64
	for i := 0; i < c.N; i++ {
		r := floats.Dot(c.X[i*c.D:(i+1)*c.D], theta) - c.Y[i]
		s += r * r
	}
	return math.Sqrt(s)
}

// Risk returns the ERM training risk R̂(θ) = (1/n) Σ_i ½(⟨θ, x_i⟩ − y_i)².
func (c RegressionCase) Risk(theta []float64) float64 {
	r := c.residualNorm(theta)
	return r * r / (2 * float64(c.N))
}

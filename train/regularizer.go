package train

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Regularizer is a penalty R(θ) ≥ 0 added to the data term.
type Regularizer interface {
	// Value returns R(θ).
	Value(theta []float64) float64
	// AddGrad adds scale·∇R(θ) to dst.
	AddGrad(dst []float64, scale float64, theta []float64)
}

// L2 is R(θ) = (μ/2)‖θ − θ₀‖² (ZD Thm 6); θ₀ nil means 0.
type L2 struct {
	Mu     float64
	Theta0 []float64
}

// Value returns (μ/2)‖θ − θ₀‖².
func (r L2) Value(theta []float64) float64 {
	var s float64
	for i, v := range theta {
		if r.Theta0 != nil {
			v -= r.Theta0[i]
		}
		s += v * v
	}
	return 0.5 * r.Mu * s
}

// AddGrad adds scale·μ(θ − θ₀).
func (r L2) AddGrad(dst []float64, scale float64, theta []float64) {
	floats.AddScaled(dst, scale*r.Mu, theta)
	if r.Theta0 != nil {
		floats.AddScaled(dst, -scale*r.Mu, r.Theta0)
	}
}

// NormPower is R(θ) = λ‖θ‖^r (XY Prop. 3), r > 0.
type NormPower struct {
	Lambda, R float64
}

// Value returns λ‖θ‖^r.
func (p NormPower) Value(theta []float64) float64 {
	return p.Lambda * math.Pow(floats.Norm(theta, 2), p.R)
}

// AddGrad adds scale·λ r ‖θ‖^{r−2} θ (0 at θ = 0 for r > 1).
func (p NormPower) AddGrad(dst []float64, scale float64, theta []float64) {
	n := floats.Norm(theta, 2)
	if n == 0 {
		return
	}
	floats.AddScaled(dst, scale*p.Lambda*p.R*math.Pow(n, p.R-2), theta)
}

package experiment

import (
	"errors"
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/models"
)

// NormalizedMargin returns γ̄ = q_min / Π_i ‖w_i‖^{k_i}, the blocks w_i and
// degrees k_i being m's (see the package doc). It is an error for a model
// that is not multi-homogeneous or a θ with a zero block (γ̄ undefined).
func NormalizedMargin(m models.Model, theta []float64, qMin float64) (float64, error) {
	logNorm, err := LogNormProduct(m, theta)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(qMin) || math.IsInf(qMin, 0) {
		return 0, fmt.Errorf("experiment: margin q_min = %v", qMin)
	}
	if qMin == 0 {
		return 0, nil
	}
	return math.Copysign(math.Exp(math.Log(math.Abs(qMin))-logNorm), qMin), nil
}

// LogNormProduct returns Σ_i k_i log ‖w_i‖, the log of the denominator of
// the normalized margin.
func LogNormProduct(m models.Model, theta []float64) (float64, error) {
	if len(theta) != m.NumParams() {
		return 0, fmt.Errorf("experiment: θ has %d entries, model %s needs %d", len(theta), m, m.NumParams())
	}
	deg := m.Degree()
	blocks := m.Blocks()
	if !deg.Homogeneous || len(deg.Blocks) != len(blocks) {
		return 0, fmt.Errorf("experiment: model %s is not multi-homogeneous (degree %s): its normalized margin is undefined", m, deg)
	}
	sum := 0.0
	for i, b := range blocks {
		ln := logNorm(theta[b.Offset : b.Offset+b.Len])
		if math.IsInf(ln, -1) {
			return 0, fmt.Errorf("experiment: block %s of model %s is zero: %w", b.Name, m, errZeroBlock)
		}
		if math.IsNaN(ln) || math.IsInf(ln, 1) {
			return 0, fmt.Errorf("experiment: block %s of model %s has a non-finite entry", b.Name, m)
		}
		sum += deg.Blocks[i] * ln
	}
	return sum, nil
}

var errZeroBlock = errors.New("normalized margin undefined")

// logNorm returns log ‖v‖₂, scaled by the largest entry so that neither
// the squares overflow nor they underflow.
func logNorm(v []float64) float64 {
	scale := 0.0
	for _, x := range v {
		scale = math.Max(scale, math.Abs(x))
	}
	if scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return math.Log(scale)
	}
	ss := 0.0
	for _, x := range v {
		r := x / scale
		ss += r * r
	}
	return math.Log(scale) + 0.5*math.Log(ss)
}

package regression

import (
	"math"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/mat"
)

// A 2×3 problem: x₁ = e₁, x₂ = e₂, y = (1, 2), θ₀ = (0, 0, 5): θ* = (1, 2, 5).
func tinyCase() RegressionCase {
	return RegressionCase{X: []float64{1, 0, 0, 0, 1, 0}, Y: []float64{1, 2}, N: 2, D: 3, Theta0: []float64{0, 0, 5}}
}

func TestInterpolatorDecisions(t *testing.T) {
	c := tinyCase()
	star, err := c.Interpolator()
	assert.NoError(t, err)
	assert.InDeltaSlice(t, []float64{1, 2, 5}, star, 1e-15)
	assert.Equal(t, theorems.Holds, Interpolator(c, []float64{1, 2, 5}).Status)
	// Interpolates, but off θ₀ + span: violated.
	v := Interpolator(c, []float64{1, 2, 4})
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "outside θ₀ + span")
	// Residual not yet invisible: inconclusive.
	assert.Equal(t, theorems.Inconclusive, Interpolator(c, []float64{1.001, 2, 5}).Status)
	// Hypotheses.
	assert.Equal(t, theorems.AssumptionFailed, Interpolator(RegressionCase{X: []float64{1, 0, 2, 0}, Y: []float64{1, 2}, N: 2, D: 2}, []float64{1, 2}).Status)
	assert.Equal(t, theorems.AssumptionFailed, Interpolator(RegressionCase{X: []float64{1, 0, 0, 2, 0, 0}, Y: []float64{1, 2}, N: 2, D: 3}, []float64{1, 2, 0}).Status)
}

func TestSpanMonitor(t *testing.T) {
	m := NewSpanMonitor(tinyCase())
	assert.Equal(t, theorems.Inconclusive, m.Verdict().Status)
	m.Observe(1, []float64{0.5, 0.1, 5})
	m.Observe(2, []float64{0.9, 1.9, 5})
	assert.Equal(t, theorems.Holds, m.Verdict().Status)
	m.Observe(3, []float64{0.9, 1.9, 5.01})
	v := m.Verdict()
	assert.Equal(t, theorems.Violated, v.Status)
	assert.Contains(t, v.Detail, "at step 3")
}

func TestRiskVanishesDecisions(t *testing.T) {
	geo := func(r float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Pow(r, float64(i))
		}
		return out
	}
	assert.Equal(t, theorems.Holds, RiskVanishes(geo(0.5, 100), nil).Status)
	assert.Equal(t, theorems.Inconclusive, RiskVanishes(geo(0.9, 100), nil).Status) // 0.9^99 ≈ 3e-5
	stalled := geo(0.5, 100)
	for i := 10; i < 100; i++ {
		stalled[i] = 0.01
	}
	v := RiskVanishes(stalled, nil)
	assert.Equal(t, theorems.Violated, v.Status)
	assert.Contains(t, v.Detail, "stalled")
	assert.Equal(t, theorems.Violated, RiskVanishes([]float64{1, math.NaN(), 1}, nil).Status)
	assert.Equal(t, theorems.Inconclusive, RiskVanishes([]float64{0, 0, 0}, nil).Status)
}

func TestWeightsConvergeDecisions(t *testing.T) {
	seq := func(f func(j int) []float64, n int) [][]float64 {
		out := make([][]float64, n)
		for j := range out {
			out[j] = f(j)
		}
		return out
	}
	conv := seq(func(j int) []float64 {
		e := 0.3 * math.Pow(0.8, float64(j))
		return []float64{0.5 + e, 0.5 - e}
	}, 200)
	assert.Equal(t, theorems.Holds, WeightsConverge(conv).Status)
	// s = 0.99^50 = 0.6: inconclusive; 0.995^50 = 0.78: too slow to tell
	// from a drift.
	for r, want := range map[float64]theorems.Status{0.99: theorems.Inconclusive, 0.995: theorems.Violated, 0.95: theorems.Inconclusive} {
		slow := seq(func(j int) []float64 {
			e := 0.3 * math.Pow(r, float64(j))
			return []float64{0.5 + e, 0.5 - e}
		}, 200)
		assert.Equal(t, want, WeightsConverge(slow).Status, "r = %g", r)
	}
	periodic := seq(func(j int) []float64 {
		if j%6 < 3 {
			return []float64{0.3, 0.7}
		}
		return []float64{0.6, 0.4}
	}, 200)
	assert.Equal(t, theorems.Violated, WeightsConverge(periodic).Status)
	vanishing := seq(func(j int) []float64 {
		e := math.Pow(0.9, float64(j))
		return []float64{e / (1 + e), 1 / (1 + e)}
	}, 200)
	assert.Equal(t, theorems.Violated, WeightsConverge(vanishing).Status)
	constant := seq(func(int) []float64 { return []float64{0.25, 0.75} }, 20)
	assert.Equal(t, theorems.Holds, WeightsConverge(constant).Status)
	zero := seq(func(int) []float64 { return []float64{0, 1} }, 20)
	assert.Equal(t, theorems.Violated, WeightsConverge(zero).Status)
}

func TestProductEigenvaluesDecisions(t *testing.T) {
	h := mat.NewSymDense(2, []float64{2, 1, 1, 2}) // λ = 1, 3
	v := ProductEigenvalues(h, []float64{0.5, 1})
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	// H = diag(−1, 1), q = (1, 0.1): HQ has −1 < min q·λ_min = −0.1.
	v = ProductEigenvalues(mat.NewSymDense(2, []float64{-1, 0, 0, 1}), []float64{1, 0.1})
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Greater(t, v.Statistic, v.Bound)
	v = ProductEigenvalues(h, []float64{-1, 1})
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Equal(t, theorems.Inconclusive, ProductEigenvalues(h, []float64{0, 0}).Status)
}

func TestGDRateDecisions(t *testing.T) {
	// f(x) = x²/2 (L = 1), x₀ = 1, η = 1: GD jumps to 0 at once.
	assert.Equal(t, theorems.Holds, GDRate(GDRateCase{F: []float64{0.5, 0, 0}, Dist0Sq: 1, Eta: 1, L: 1, Terms: 1}).Status)
	// η = 3: x_t = (−2)^t: f grows.
	v := GDRate(GDRateCase{F: []float64{0.5, 2, 8, 32}, Dist0Sq: 1, Eta: 3, L: 1, Terms: 1})
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Greater(t, v.Statistic, v.Bound)
	// A hypothetical run that breaks the bound with η ≤ 1/L is violated.
	assert.Equal(t, theorems.Violated, GDRate(GDRateCase{F: []float64{0.5, 0.4, 0.4, 0.4}, Dist0Sq: 1, Eta: 1, L: 1, Terms: 1}).Status)
}

// The proof's per-step inequality f(x_{t+1}) − f* ≤ (‖x_t − x*‖² −
// ‖x_{t+1} − x*‖²)/(2η) on f(x) = x²/2 (x* = 0, L = 1), η = ½, x₀ = 1: GD
// holds it; iterates that descend another function, ½(x − 0.2)², settle at
// 0.2, where f − f* = 0.02 while ‖x_t − x*‖² stops falling: violated
// long before the O(1/T) bound notices (ηT/‖x₀ − x*‖² · 0.02 < 1 until
// T = 100).
func TestGDRateStepInequality(t *testing.T) {
	run := func(target float64, T int) GDRateCase {
		c := GDRateCase{Dist0Sq: 1, Eta: 0.5, L: 1, Terms: 1, D: 1}
		x := 1.0
		for k := 0; k <= T; k++ {
			c.F = append(c.F, x*x/2)
			c.DistSq = append(c.DistSq, x*x)
			if k < T {
				next := x - 0.5*(x-target)
				c.StepNorm = append(c.StepNorm, math.Abs(next-x))
				x = next
			}
		}
		return c
	}
	v := GDRate(run(0, 60))
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "per-step inequality")
	v = GDRate(run(0.2, 60))
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "not GD on f")
	// Without the distances only the O(1/T) bound is checked: it holds.
	c := run(0.2, 60)
	c.DistSq, c.StepNorm = nil, nil
	assert.Equal(t, theorems.Holds, GDRate(c).Status)
	// Shapes.
	c = run(0, 5)
	c.StepNorm = c.StepNorm[:2]
	assert.Equal(t, theorems.AssumptionFailed, GDRate(c).Status)
}

func TestRegularizedGapDecisions(t *testing.T) {
	c := tinyCase()
	q := []float64{0.5, 0.5}
	// Closed form: θ = θ₀ + δ with δ_i = q r_i/(q + μ) on the two sample
	// coordinates (r = y − Xθ₀ = (1, 2)).
	mu := 1e-3
	th := []float64{0.5 / (0.5 + mu), 1 / (0.5 + mu), 5}
	v := RegularizedGap(c, q, 0.01, []RegularizedRun{{Mu: mu, Theta: th, Prev: th, Steps: 10}})
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	// Left the span.
	off := []float64{th[0], th[1], 5.1}
	assert.Equal(t, theorems.Violated, RegularizedGap(c, q, 0.01, []RegularizedRun{{Mu: mu, Theta: off, Prev: off, Steps: 10}}).Status)
	// Not stationary.
	assert.Equal(t, theorems.Inconclusive, RegularizedGap(c, q, 0.01, []RegularizedRun{{Mu: mu, Theta: th, Steps: 10}}).Status)
	// Stationary elsewhere in the span.
	wrong := []float64{th[0] + 1e-3, th[1], 5}
	assert.Equal(t, theorems.Violated, RegularizedGap(c, q, 0.01, []RegularizedRun{{Mu: mu, Theta: wrong, Prev: wrong, Steps: 10}}).Status)
	// Large μ: risk above the budget.
	big := 100.0
	thb := []float64{0.5 / (0.5 + big), 1 / (0.5 + big), 5}
	v = RegularizedGap(c, q, 0.01, []RegularizedRun{{Mu: big, Theta: thb, Prev: thb, Steps: 10}})
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Greater(t, v.Statistic, v.Bound)
}

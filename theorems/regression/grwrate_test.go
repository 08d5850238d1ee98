package regression

import (
	"math"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gdSteps runs T steps of θ ← θ − η Σ_i q_i (⟨θ, x_i⟩ − y_i) x_i (+ β(θ_t −
// θ_{t−1})) on c with the weights applied(t), and returns θ_0…θ_T.
func gdSteps(c RegressionCase, eta, beta float64, T int, applied func(t int) []float64) [][]float64 {
	th := [][]float64{append([]float64(nil), c.Theta0...)}
	for t := 0; t < T; t++ {
		cur := th[t]
		next := append([]float64(nil), cur...)
		if t > 0 {
			for j := range next {
				next[j] += beta * (cur[j] - th[t-1][j])
			}
		}
		q := applied(t)
		for i := 0; i < c.N; i++ {
			x := c.X[i*c.D : (i+1)*c.D]
			r := -c.Y[i]
			for j, v := range x {
				r += v * cur[j]
			}
			for j, v := range x {
				next[j] -= eta * q[i] * r * v
			}
		}
		th = append(th, next)
	}
	return th
}

func constWeights(T int, q []float64) (qs [][]float64, rate GRWRate) {
	for t := 0; t < T; t++ {
		qs = append(qs, q)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range q {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		rate.QMin, rate.QMax = append(rate.QMin, lo), append(rate.QMax, hi)
	}
	return qs, rate
}

// halvingRun is T steps of GD on tinyCase with η = 1 and q = (½, ½): as
// XXᵀ = I, the error halves every step, e_T = 2^{−T}‖θ₀ − θ*‖ exactly, the
// computed rate's bound.
func halvingRun(T int) (c RegressionCase, q []float64, rate GRWRate, good [][]float64) {
	c, q = tinyCase(), []float64{0.5, 0.5}
	_, rate = constWeights(T, q)
	rate.Eta = 1
	return c, q, rate, gdSteps(c, 1, 0, T, func(int) []float64 { return q })
}

func TestComputedRateDecisions(t *testing.T) {
	const T = 10
	c, q, rate, good := halvingRun(T)
	// Exactly on the rate, residual still visible: inconclusive.
	v := InterpolatorAtRate(GRWRun{Case: c, Theta: good[T], Rate: rate})
	assert.Equal(t, theorems.Inconclusive, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "within the computed rate")
	// Sample 2 dropped on the way to the objective: its error never
	// contracts, far above 2^{−10}·√5.
	dropped := gdSteps(c, 1, 0, T, func(int) []float64 { return []float64{0.5, 0} })
	v = InterpolatorAtRate(GRWRun{Case: c, Theta: dropped[T], Rate: rate})
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "above the computed rate")
	assert.InDelta(t, 2, v.Statistic, 1e-6) // (2^{−10}, 2)
	// Converged runs are decided by the limit, as Interpolator.
	long := gdSteps(c, 1, 0, 60, func(int) []float64 { return q })
	_, rate60 := constWeights(60, q)
	rate60.Eta = 1
	assert.Equal(t, theorems.Holds, InterpolatorAtRate(GRWRun{Case: c, Theta: long[60], Rate: rate60}).Status)
	// ZD-T2 on the same runs: risks R̂ = ‖r‖²/(2n).
	risks := func(th [][]float64) []float64 {
		var out []float64
		for _, x := range th {
			out = append(out, c.Risk(x))
		}
		return out
	}
	v = RiskVanishes(risks(good), &GRWRun{Case: c, Theta: good[T], Rate: rate})
	assert.Equal(t, theorems.Inconclusive, v.Status, "%v", v)
	v = RiskVanishes(risks(dropped), &GRWRun{Case: c, Theta: dropped[T], Rate: rate})
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "above the computed rate")
	// A zero weight stops the contraction but never loosens the bound past
	// ‖θ₀ − θ*‖: the dropped run is then within it.
	_, zero := constWeights(T, []float64{0.5, 0})
	zero.Eta = 1
	v = InterpolatorAtRate(GRWRun{Case: c, Theta: dropped[T], Rate: zero})
	assert.Equal(t, theorems.Inconclusive, v.Status, "%v", v)
	// Bad inputs.
	v = InterpolatorAtRate(GRWRun{Case: c, Theta: dropped[T], Rate: GRWRate{Eta: 0, QMin: rate.QMin, QMax: rate.QMax}})
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	v = InterpolatorAtRate(GRWRun{Case: c, Theta: dropped[T], Rate: GRWRate{Eta: 1, QMin: rate.QMin, QMax: rate.QMax[:3]}})
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
}

func TestWeightsActed(t *testing.T) {
	c := RegressionCase{X: []float64{1, 0, 0, 0.6, 0.8, 0}, Y: []float64{1, -2}, N: 2, D: 3, Theta0: []float64{0.3, 0, 5}}
	q := []float64{0.8, 0.2}
	const K = 8
	qs, _ := constWeights(K, q)
	for _, beta := range []float64{0, 0.5} {
		ok := gdSteps(c, 0.7, beta, K, func(int) []float64 { return q })
		v := WeightsActed(GRWSteps{Case: c, Eta: 0.7, Beta: beta, Thetas: ok, Weights: qs})
		require.Equal(t, theorems.Holds, v.Status, "β = %v: %v", beta, v)
		assert.Less(t, v.Statistic, 0.1)
		for name, applied := range map[string][]float64{"ignored": {0.5, 0.5}, "squared": {0.8 * 0.8 / 0.68, 0.2 * 0.2 / 0.68}, "dropped": {0, 0.2}} {
			bad := gdSteps(c, 0.7, beta, K, func(int) []float64 { return applied })
			v := WeightsActed(GRWSteps{Case: c, Eta: 0.7, Beta: beta, Thetas: bad, Weights: qs})
			assert.Equal(t, theorems.Violated, v.Status, "β = %v, weights %s: %v", beta, name, v)
			assert.Greater(t, v.Statistic, 1e6, name)
		}
	}
	// Uniform weights recorded, uniform applied: the replay holds (and
	// reports that ERM's steps are the same, to rounding).
	u := []float64{0.5, 0.5}
	us, _ := constWeights(K, u)
	v := WeightsActed(GRWSteps{Case: c, Eta: 0.7, Thetas: gdSteps(c, 0.7, 0, K, func(int) []float64 { return u }), Weights: us})
	assert.Equal(t, theorems.Holds, v.Status)
	assert.Contains(t, v.Detail, "away from ERM's")
	// Shapes.
	assert.Equal(t, theorems.AssumptionFailed, WeightsActed(GRWSteps{Case: c, Eta: 0.7, Thetas: [][]float64{c.Theta0}, Weights: qs}).Status)
	assert.Equal(t, theorems.AssumptionFailed, WeightsActed(GRWSteps{Case: c, Eta: 0, Thetas: gdSteps(c, 0.7, 0, K, func(int) []float64 { return q }), Weights: qs}).Status)
}

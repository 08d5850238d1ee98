package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// TestFlowExactSolution: for a linear model on x₁ = e₁, x₂ = e₂ (labels +1)
// with the exponential loss, 𝓛 = e^{−θ₁} + e^{−θ₂} and the flow decouples:
// dθ_i/dt = e^{−θ_i}, so e^{θ_i(t)} = e^{θ_i(0)} + t. The integrated θ and
// the returned flow time must follow it over many decades of t.
func TestFlowExactSolution(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}}
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	fl, err := NewFlow(1e-10)
	require.NoError(t, err)
	theta0 := []float64{0.5, -1}
	theta := append([]float64(nil), theta0...)
	tr, err := Run(obj, fl, theta, Config{Steps: 400, StopLogLoss: -60})
	require.NoError(t, err)
	last := tr.Final()
	require.LessOrEqual(t, last.LogLoss, -60.0, "the flow reaches 𝓛 = e^{−60}, t ≈ e^{60}")
	assert.Greater(t, fl.Accepted, 10)
	// θ_i = log(e^{θ_i(0)} + T) = log T + log1p(e^{θ_i(0)}/T).
	for i, v := range tr.Theta {
		want := last.LogT + math.Log1p(math.Exp(theta0[i]-last.LogT))
		// Global error: ~ steps × Tol × (1 + |θ|) in the coordinates.
		assert.InDelta(t, want, v, 1e-6*(1+math.Abs(want)), "θ[%d]", i)
	}
	for _, r := range tr.Records[1:] {
		assert.Greater(t, r.LocalError, 0.0)
		assert.Less(t, r.LocalError, 1e-8*(1+r.Rho))
		assert.False(t, math.IsInf(r.LogEta, 0) || math.IsNaN(r.LogEta))
	}
}

// TestFlowSingleSample: one sample, q = ⟨θ, x⟩: e^{q(t)} = e^{q(0)} + t‖x‖².
func TestFlowSingleSample(t *testing.T) {
	d := &dataset.Dataset{N: 1, D: 3, X: []float64{0.6, 0, 0.8}, Y: []float64{-1}}
	obj, _ := NewObjective(mustLinear(t, 3), losses.NewBinary(losses.Exponential{}), d)
	fl, _ := NewFlow(0)
	theta := []float64{0.3, 2, -0.1}
	q0 := -(0.6*0.3 - 0.1*0.8)
	tr, err := Run(obj, fl, theta, Config{Steps: 300, StopLogLoss: -30})
	require.NoError(t, err)
	for _, r := range tr.Records[1:] {
		// q = −log 𝓛 here; T = e^{q} − e^{q₀}.
		q := -r.LogLoss
		want := q + math.Log(-math.Expm1(q0-q))
		assert.InDelta(t, want, r.LogT, 1e-6, "step %d", r.Step)
	}
	assert.Equal(t, 2.0, tr.Theta[1], "the coordinate orthogonal to x never moves")
}

func TestFlowStalls(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{0.5, -2}}
	obj, _ := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	fl, _ := NewFlow(0)
	tr, err := Run(obj, fl, []float64{0.5, -2}, Config{Steps: 10})
	require.NoError(t, err)
	assert.True(t, tr.Stalled)
	assert.Equal(t, 0, tr.Steps)
	for _, tol := range []float64{-1, 1, math.NaN()} {
		_, err := NewFlow(tol)
		assert.ErrorContains(t, err, "tolerance")
	}
}

// TestFlowRegistry: the CLI reaches both new optimizers by name.
func TestFlowRegistry(t *testing.T) {
	o, err := NewOptimizer("flow", OptimizerOptions{Tol: 1e-7})
	require.NoError(t, err)
	assert.Equal(t, 1e-7, o.(*Flow).Tol)
	o, err = NewOptimizer("lossbased", OptimizerOptions{})
	require.NoError(t, err)
	assert.InDelta(t, math.Log(0.1), o.(*LossBased).LogAlpha, 1e-15)
	assert.Contains(t, OptimizerNames(), "flow")
	assert.Contains(t, OptimizerNames(), "lossbased")
}

func BenchmarkFlowStep(b *testing.B) {
	obj, theta := benchObjective(b, "mlp:quad:2x16", 50, 5)
	fl, _ := NewFlow(1e-8)
	ev, _ := obj.Evaluate(theta, true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fl.Step(obj, theta, ev); err != nil {
			b.Fatal(err)
		}
		ev, _ = obj.Evaluate(theta, true)
	}
}

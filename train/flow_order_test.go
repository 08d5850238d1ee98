package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// TestFlowOrder: Dormand–Prince 5(4) with error-per-step control takes
// steps h ∝ Tol^{1/5}, so the number of accepted steps over a fixed stretch
// of flow grows like Tol^{−1/5}: from Tol = 1e-6 to 1e-12 by 10^{6/5} ≈ 16.
// The bound 32 allows a factor 2 for the first step (Hairer's estimate) and
// the last, partial one; a method of order 4 or less (a wrong stage or error
// coefficient) needs 10^{6/4} ≈ 32 times the steps or more. At each
// tolerance the flow must also follow the exact solution of
// TestFlowExactSolution (e^{θ_i(t)} = e^{θ_i(0)} + t) to 8·Tol·(1 + |θ|)
// per accepted step: the flow contracts (∂θ̇_i/∂θ_i = −e^{−θ_i} < 0), so
// local errors do not grow; each is within √3·Tol·(1 + |θ|) in θ (an rms of
// 3 components ≤ 1) and as much in the clock ζ = log t, which moves θ by as
// much (dθ/dζ = t·e^{−θ} ≈ 1): 2√3 ≈ 3.5, doubled because the estimate
// bounds the embedded 4th-order solution, not the 5th-order one returned.
func TestFlowOrder(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}}
	theta0 := []float64{0.5, -1}
	steps := map[float64]int{}
	for _, tol := range []float64{1e-6, 1e-12} {
		obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
		require.NoError(t, err)
		fl, err := NewFlow(tol)
		require.NoError(t, err)
		theta := append([]float64(nil), theta0...)
		tr, err := Run(obj, fl, theta, Config{Steps: 100000, StopLogLoss: -20})
		require.NoError(t, err)
		steps[tol] = fl.Accepted
		last := tr.Final()
		for i, v := range tr.Theta {
			want := last.LogT + math.Log1p(math.Exp(theta0[i]-last.LogT))
			bound := 8 * tol * (1 + math.Abs(want)) * float64(fl.Accepted)
			assert.InDelta(t, want, v, bound, "Tol %g: θ[%d] after %d steps", tol, i, fl.Accepted)
		}
	}
	ratio := float64(steps[1e-12]) / float64(steps[1e-6])
	t.Logf("accepted steps: %d at Tol 1e-6, %d at 1e-12 (ratio %.3g; 5th order: 16)", steps[1e-6], steps[1e-12], ratio)
	assert.Less(t, ratio, 32.0)
	assert.Greater(t, ratio, 4.0, "fewer steps at a tighter tolerance than a 5th-order method can take")
}

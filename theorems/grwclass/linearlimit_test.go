package grwclass_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// limitData are four samples in ℝ³ whose SVM has the single support vector
// x₁ = (1, 1, 0) (ŵ = (½, ½, 0)); the others lie 0.25–0.5 off the margin
// and pull θ off span{x₁}.
func limitData() *dataset.Dataset {
	return &dataset.Dataset{N: 4, D: 3, X: []float64{
		1, 1, 0,
		-2, -1, -0.5,
		0.8, 2.2, -0.5,
		-1.5, -1.5, -1,
	}, Y: []float64{1, -1, 1, -1}}
}

// precond is issue 18's stray preconditioner: after GD's step, θ₀ moves k
// more times its step.
type precond struct {
	train.GD
	k float64
}

func (p *precond) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	le, err := p.GD.Step(obj, theta, ev)
	theta[0] -= p.k * math.Exp(le+ev.LogObjective) * ev.Dir[0]
	return le, err
}

// gdRun trains the linear model on data by opt from 0 for steps steps with
// the loss and the objective's weights w (nil: 1), recorded at steps
// growing by 1.5× as the section C runs are.
func gdRun(t *testing.T, data *dataset.Dataset, loss losses.Loss, w []float64, opt train.Optimizer, steps int) *train.Trajectory {
	t.Helper()
	m, err := models.NewLinear(data.D, 1)
	require.NoError(t, err)
	obj, err := train.NewObjective(m, loss, data)
	require.NoError(t, err)
	if w != nil {
		require.NoError(t, obj.SetWeights(w))
	}
	tr, err := train.RunWindows(obj, opt, make([]float64, data.D), train.WindowPlan{Steps: steps, Burst: 1, Growth: 1.5})
	require.NoError(t, err)
	return tr
}

// shiftedLimit returns the angle between ŵ and the limit of GD
// preconditioned by diag(1 + k, 1, 1): θ̂ ∝ D^{1/2}·SVM(D^{1/2}x).
func shiftedLimit(t *testing.T, data *dataset.Dataset, k float64) float64 {
	t.Helper()
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	require.NoError(t, err)
	x := append([]float64(nil), data.X...)
	for i := 0; i < data.N; i++ {
		x[i*data.D] *= math.Sqrt(1 + k)
	}
	pre, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, x), data.Y, nil)
	require.NoError(t, err)
	w := append([]float64(nil), pre.W...)
	w[0] *= math.Sqrt(1 + k)
	return math.Acos(math.Min(1, floats.Dot(w, sol.W)/(floats.Norm(w, 2)*floats.Norm(sol.W, 2))))
}

const limitSteps = 20000

// TestLinearLimitOnGD: GD on the exponential and the logistic loss holds;
// issue 18's preconditioner (k = 3, a limit 0.54 rad from ŵ here) and one
// whose limit is 0.05 rad from ŵ are violated, and so is the polynomial
// tail.
func TestLinearLimitOnGD(t *testing.T) {
	data := limitData()
	for _, name := range []string{"exp", "logistic"} {
		loss, err := losses.ByName(name)
		require.NoError(t, err)
		v := grwclass.SVMDirection(data, gdRun(t, data, loss, nil, &train.GD{LR: 0.5}, limitSteps))
		assert.Equal(t, theorems.Holds, v.Status, "%s: %v", name, v)
		assert.Less(t, v.Statistic, 1.0)
		t.Logf("%s, GD: %s (%.3g)", name, v.Status, v.Statistic)

		// The weakest preconditioner moving the limit by 0.05 rad.
		lo, hi := 0.0, 1.0
		require.Greater(t, shiftedLimit(t, data, hi), 0.05)
		for range 40 {
			if mid := (lo + hi) / 2; shiftedLimit(t, data, mid) >= 0.05 {
				hi = mid
			} else {
				lo = mid
			}
		}
		for _, k := range []float64{3, hi} {
			v := grwclass.SVMDirection(data, gdRun(t, data, loss, nil, &precond{GD: train.GD{LR: 0.5}, k: k}, limitSteps))
			assert.Equal(t, theorems.Violated, v.Status, "%s, k = %.3g (limit %.3g rad from ŵ): %v", name, k, shiftedLimit(t, data, k), v)
			t.Logf("%s, k = %.3g (limit %.3g rad from ŵ): %s (%.3g)", name, k, shiftedLimit(t, data, k), v.Status, v.Statistic)
		}
	}
	poly := losses.NewBinary(losses.PolyTail{Alpha: 0.5})
	v := grwclass.SVMDirection(data, gdRun(t, data, poly, nil, &train.GD{LR: 0.5}, limitSteps))
	assert.Equal(t, theorems.Violated, v.Status, v.String())
}

// TestLinearLimitWeights: XY-P1 with static weights holds when GD uses them
// and is violated when GD ran with uniform weights while the check is told
// the weights (issue 18's "reweighting ignored").
func TestLinearLimitWeights(t *testing.T) {
	data := limitData()
	w := []float64{3, 1, 0.5, 2}
	wbar, err := train.NormalizeWeights(w)
	require.NoError(t, err)
	loss, err := losses.ByName("exp")
	require.NoError(t, err)
	v := grwclass.IWDirection(data, w, gdRun(t, data, loss, wbar, &train.GD{LR: 0.5}, limitSteps))
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	uniform := []float64{0.25, 0.25, 0.25, 0.25}
	v = grwclass.IWDirection(data, w, gdRun(t, data, loss, uniform, &train.GD{LR: 0.5}, limitSteps))
	assert.Equal(t, theorems.Violated, v.Status, v.String())
}

// TestLinearLimitNeedsGD: the exact asymptotic form θ(T) = ŵ log T + r₀
// recorded at steps that are not those of constant-step GD (T grows by
// e^{1/4} per step) decides nothing about GD's flow: inconclusive. The
// check is for linear models only.
func TestLinearLimitNeedsGD(t *testing.T) {
	data := limitData()
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	require.NoError(t, err)
	tr := &train.Trajectory{Degree: 1}
	for k := 1; k <= 40; k++ {
		logT := 0.25 * float64(k)
		tr.Records = append(tr.Records, train.Record{Step: k, LogT: logT, Theta: []float64{sol.W[0]*logT + 0.3, sol.W[1]*logT - 0.3, 0}})
	}
	v := grwclass.SVMDirection(data, tr)
	assert.Equal(t, theorems.Inconclusive, v.Status, v.String())
	assert.Contains(t, v.Detail, "not constant-step GD")
	tr.Degree = 2
	assert.Equal(t, theorems.AssumptionFailed, grwclass.SVMDirection(data, tr).Status)
}

package kkt_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// preconditioned is gradient descent with a stray per-coordinate
// preconditioner on θ₀ (issue 18's fault), recording GD's step size.
type preconditioned struct{ *train.GD }

func (p preconditioned) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	logEta, err := p.GD.Step(obj, theta, ev)
	theta[0] -= 3 * math.Exp(logEta+ev.LogObjective) * ev.Dir[0]
	return logEta, err
}

// run trains linearProblem from θ₀ by opt for steps steps in windows of
// burst steps at checkpoints growing by 1.5×.
func run(t *testing.T, obj *train.Objective, opt train.Optimizer, theta0 []float64, steps, burst int) *train.Trajectory {
	tr, err := train.RunWindows(obj, opt, append([]float64(nil), theta0...), train.WindowPlan{Steps: steps, Burst: burst, Growth: 1.5})
	require.NoError(t, err)
	return tr
}

// TestTailBoundsDecide: on linearProblem (SVM (1, 1)) gradient descent
// from an initialization far from the SVM direction satisfies both tail
// bounds, which end below the residuals' peaks (holds); the same run with the stray preconditioner breaks the
// descent-step identity at every step (violated, whatever the bounds say).
func TestTailBoundsDecide(t *testing.T) {
	for _, loss := range []string{"exp", "logistic"} {
		obj := linearProblem(t, loss)
		gd, err := train.NewGD(0.05)
		require.NoError(t, err)
		far := []float64{0.2, 3}
		clean := run(t, obj, gd, far, 20000, 2)
		for name, check := range map[string]func(*train.Objective, *train.Trajectory, float64) theorems.Verdict{
			"LL-4.4": kkt.KKTConvergence, "LL-A9": kkt.BetaConvergence,
		} {
			v := check(obj, clean, 0)
			assert.Equal(t, theorems.Holds, v.Status, "%s %s: %v", loss, name, v)
			assert.Contains(t, v.Detail, "steps are −η∇𝓛", "%s %s", loss, name)

			bad := run(t, obj, preconditioned{gd}, far, 20000, 2)
			v = check(obj, bad, 0)
			assert.Equal(t, theorems.Violated, v.Status, "%s %s: %v", loss, name, v)
			assert.Contains(t, v.Detail, "is not −η∇𝓛(θ)", "%s %s", loss, name)

			// One-record windows: no step to check, the bounds alone.
			sparse := run(t, obj, gd, far, 20000, 1)
			v = check(obj, sparse, 0)
			assert.Equal(t, theorems.Holds, v.Status, "%s %s: %v", loss, name, v)
			assert.Contains(t, v.Detail, "no consecutive records", "%s %s", loss, name)
		}
		// On the SVM's ray the KKT gap g starts at the certificate's δ part
		// and the bound C_ij/2 + max d stays above it: LL-4.4 cannot decide;
		// LL-A9's certificate gap (1 − β) + d starts higher and its δ part
		// falls with 𝓛: decided.
		onRay := run(t, obj, gd, []float64{1, 1}, 20000, 2)
		v := kkt.KKTConvergence(obj, onRay, 0)
		assert.Equal(t, theorems.Inconclusive, v.Status, "%s: %v", loss, v)
		v = kkt.BetaConvergence(obj, onRay, 0)
		assert.Equal(t, theorems.Holds, v.Status, "%s: %v", loss, v)
	}
}

// TestTailBoundsFrozenDirection: θ = c·u for a fixed separating u off the
// SVM direction, c growing over six decades: β stays where it is while γ̃
// settles at γ̄(u), so C_ij → 0 and Cor C.10 fails on the second half.
func TestTailBoundsFrozenDirection(t *testing.T) {
	obj := linearProblem(t, "exp")
	u := []float64{1, 0.6} // separates: margins 1, 0.6, 2, 0.8
	tr := &train.Trajectory{Model: obj.Model.String(), Loss: obj.Loss, Step: train.StepRule{Kind: train.FixedDirectionStep}, Degree: 1}
	θ := make([]float64, 2)
	for k := 0; k < 13; k++ {
		c := 4 * math.Pow(10, 6*float64(k)/12)
		floats.ScaleTo(θ, c, u)
		ev, err := obj.Evaluate(θ, false)
		require.NoError(t, err)
		rec := train.Measure(obj, θ, ev, 10*k, math.Log(c))
		rec.Theta = append([]float64(nil), θ...)
		tr.Records = append(tr.Records, rec)
	}
	for name, check := range map[string]func(*train.Objective, *train.Trajectory, float64) theorems.Verdict{
		"LL-4.4": kkt.KKTConvergence, "LL-A9": kkt.BetaConvergence,
	} {
		v := check(obj, tr, 0)
		assert.Equal(t, theorems.Violated, v.Status, "%s: %v", name, v)
		assert.Contains(t, v.Detail, "steps not checked", name)
	}
}

// TestTailBoundsBadInput: a regularized objective is outside LL's setting,
// and a trajectory without θ after t0 cannot be measured.
func TestTailBoundsBadInput(t *testing.T) {
	obj := linearProblem(t, "exp")
	empty := &train.Trajectory{Step: train.StepRule{Kind: train.GDStep, LR: math.NaN()}, Degree: 1}
	assert.Equal(t, theorems.Inconclusive, kkt.BetaConvergence(obj, empty, 0).Status)
	assert.Equal(t, theorems.Inconclusive, kkt.KKTConvergence(obj, empty, 0).Status)
}

package train

// Numerical guard rails: whatever drives the iterates to non-finite values —
// a step size beyond stability, a loss increasing without bound, a model
// that returns NaN (a planted bug in an engine) — Run stops with an error
// that wraps ErrNonFinite (or names the bad weight) and the step number, and
// nothing non-finite reaches a record. Every optimizer and every GRW scheme
// is driven there.

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// poisoned is a model that returns NaN for its first sample once θ[0]
// exceeds limit: a planted bug that a training engine must not train on.
type poisoned struct {
	models.Model
	limit float64
}

func (p poisoned) Forward(ws models.Workspace, theta, x []float64, n int) []float64 {
	out := p.Model.Forward(ws, theta, x, n)
	if theta[0] > p.limit {
		out[0] = math.NaN()
	}
	return out
}

// guardData: sample 1 = e₁ labelled +1, sample 2 = e₂ labelled −1, in two
// groups. On a linear model with a margin loss every optimizer increases
// θ[0] (∂𝓛/∂θ₀ = −ℓ′… < 0 at every θ), so θ[0] crosses any limit.
func guardData() *dataset.Dataset {
	return &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, -1}}
}

// checkGuard asserts that err names a step ≥ minStep and that every record
// made before it is finite (q_min only for a margin loss: it is NaN by
// definition otherwise).
func checkGuard(t *testing.T, obj *Objective, tr *Trajectory, err error, minStep int) {
	t.Helper()
	require.Error(t, err, "training past a non-finite value must fail")
	t.Log(err)
	var at *StepError
	require.True(t, errors.As(err, &at), "error %q names no step", err)
	assert.GreaterOrEqual(t, at.Step, minStep, "%v", err)
	require.NotNil(t, tr)
	_, margin := losses.MarginOf(obj.Loss)
	for _, r := range tr.Records {
		vals := map[string]float64{"log_loss": r.LogLoss, "rho": r.Rho, "log_grad_norm": r.LogGradNorm}
		if margin {
			vals["q_min"] = r.QMin
		}
		for name, v := range vals {
			assert.False(t, math.IsNaN(v) || math.IsInf(v, 0), "step %d: %s = %v recorded", r.Step, name, v)
		}
		assert.Less(t, r.Step, at.Step+1, "a record after the failing step")
	}
}

// TestGuardPoisonedModel: every optimizer stops at the step where the model
// first returns NaN, never steps on it. The limit θ[0] > 2 is crossed after
// a few steps from θ = (0.1, 0.1), so the step named is ≥ 1. (Loss-based GD
// and the flow retry a non-finite trial with a smaller step, as for an
// overflow; they stop when no step stays finite, θ[0] then at the wall.)
func TestGuardPoisonedModel(t *testing.T) {
	for _, name := range OptimizerNames() {
		t.Run(name, func(t *testing.T) {
			opt, err := NewOptimizer(name, OptimizerOptions{LR: 0.5, Tol: 1e-9})
			require.NoError(t, err)
			obj, err := NewObjective(poisoned{mustLinear(t, 2), 2}, losses.NewBinary(losses.Exponential{}), guardData())
			require.NoError(t, err)
			tr, err := Run(obj, opt, []float64{0.1, 0.1}, Config{Steps: 100000})
			checkGuard(t, obj, tr, err, 1)
			assert.ErrorIs(t, err, ErrNonFinite)
			switch o := opt.(type) {
			case *Flow:
				assert.Greater(t, o.Rejected, 0, "the flow shrank its step at the wall")
			case *LossBased:
				assert.Greater(t, o.Rejected, 0, "the schedule rolled back at the wall")
			}
		})
	}
}

// TestGuardUnstableStep: on the squared loss with X = I, GD's residual is
// multiplied by (1 − η) per step, heavy ball's (β = 0.9) by the larger root
// of z² − (1 + β − η)z + β, which leaves the unit disc for η > 2(1 + β) =
// 3.8; with η = 3 for GD and 5 for heavy ball both grow geometrically, the loss
// increases without bound and overflows after a few hundred steps: Run must
// stop there with ErrNonFinite, not later on NaN. Adam's steps are bounded
// by η per coordinate, so it is driven by η = 1e300 instead (𝓛 overflows
// at its first step); loss-based GD (η = α/𝓛) by α = 1e300 on the
// exponential loss, where ‖θ‖ overflows float64 after two steps.
func TestGuardUnstableStep(t *testing.T) {
	for _, tc := range []struct {
		opt     string
		lr      float64
		loss    losses.Loss
		minStep int
	}{
		{"gd", 3, losses.Squared{}, 100},
		{"momentum", 5, losses.Squared{}, 10},
		{"adam", 1e300, losses.Squared{}, 0},
		{"lossbased", 1e300, losses.NewBinary(losses.Exponential{}), 1},
	} {
		t.Run(tc.opt, func(t *testing.T) {
			opt, err := NewOptimizer(tc.opt, OptimizerOptions{LR: tc.lr})
			require.NoError(t, err)
			obj, err := NewObjective(mustLinear(t, 2), tc.loss, guardData())
			require.NoError(t, err)
			tr, err := Run(obj, opt, []float64{0.3, 0.3}, Config{Steps: 100000})
			checkGuard(t, obj, tr, err, tc.minStep)
			assert.ErrorIs(t, err, ErrNonFinite)
			if tc.opt == "gd" {
				// The loss increased at every recorded step before the
				// overflow: divergence, not a single bad step.
				for i := 1; i < len(tr.Records); i++ {
					assert.Greater(t, tr.Records[i].LogLoss, tr.Records[i-1].LogLoss)
				}
			}
		})
	}
}

// TestGuardWeightings: every GRW scheme, driven into the poisoned model,
// stops with an error naming the step; a scheme whose own update overflows
// (Group DRO with ν = 1e308 adds ν·r_k > 1.8e308 to a group log-weight when
// a group's risk r_k = e^{1} at θ = (−1, 0.1)) or a schedule that returns
// NaN stops the same way.
func TestGuardWeightings(t *testing.T) {
	groups := []int{0, 1}
	mk := func(spec string) Weighting {
		w, err := ParseWeighting(spec, groups)
		require.NoError(t, err)
		return w
	}
	static := &Static{W: []float64{0.25, 0.75}}
	for _, tc := range []struct {
		name    string
		w       Weighting
		limit   float64 // of the poisoned model; +Inf: not poisoned
		theta0  []float64
		minStep int
	}{
		{"erm", mk("erm"), 2, nil, 1},
		{"iw", mk("iw"), 2, nil, 1},
		{"gdro", mk("gdro"), 2, nil, 1},
		{"chi2", mk("chi2"), 2, nil, 1},
		{"cvar", mk("cvar"), 2, nil, 1},
		{"static", static, 2, nil, 1},
		{"schedule", &Schedule{At: func(t int, q []float64) { q[0], q[1] = 1, 1+float64(t%2) }}, 2, nil, 1},
		{"gdro overflow", mk("gdro:1e308"), math.Inf(1), []float64{-1, 0.1}, 0},
		{"schedule NaN", &Schedule{At: func(t int, q []float64) {
			q[0], q[1] = 1, 1
			if t == 3 {
				q[1] = math.NaN()
			}
		}}, math.Inf(1), nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gd, err := NewGD(0.5)
			require.NoError(t, err)
			obj, err := NewObjective(poisoned{mustLinear(t, 2), tc.limit}, losses.NewBinary(losses.Exponential{}), guardData())
			require.NoError(t, err)
			theta := tc.theta0
			if theta == nil {
				theta = []float64{0.1, 0.1}
			}
			tr, err := Run(obj, gd, theta, Config{Steps: 100000, Weighting: tc.w})
			checkGuard(t, obj, tr, err, tc.minStep)
		})
	}
}

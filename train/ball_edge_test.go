package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// TestProjectedGDStep: one step of projected GD is θ − η∇𝓛 (∇𝓛 = e^{log 𝓛}·Dir
// from a separate evaluation) when that stays in the ball, and that point
// scaled to the sphere when it leaves it; a point on the sphere is fixed by
// the projection. The constructor rejects η ≤ 0 and R ≤ 0.
func TestProjectedGDStep(t *testing.T) {
	obj := linearObjective(t, linearData(), "logistic")
	theta := []float64{0.3, -0.2}
	ev, err := obj.Evaluate(theta, true)
	require.NoError(t, err)
	grad := make([]float64, 2)
	floats.ScaleTo(grad, math.Exp(ev.LogObjective), ev.Dir)
	want := []float64{theta[0] - 0.5*grad[0], theta[1] - 0.5*grad[1]}

	pgd, err := NewProjectedGD(0.5, 10)
	require.NoError(t, err)
	th := append([]float64(nil), theta...)
	logEta, err := pgd.Step(obj, th, ev)
	require.NoError(t, err)
	assert.Equal(t, math.Log(0.5), logEta)
	assert.InDeltaSlice(t, want, th, 1e-15)

	r := 0.5 * floats.Norm(want, 2)
	pgd, err = NewProjectedGD(0.5, r)
	require.NoError(t, err)
	th = append([]float64(nil), theta...)
	_, err = pgd.Step(obj, th, ev)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{want[0] / 2, want[1] / 2}, th, 1e-15)

	on := []float64{3, 4}
	ProjectBall(on, 5)
	assert.Equal(t, []float64{3, 4}, on)

	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {1, 0}, {1, math.Inf(1)}} {
		_, err := NewProjectedGD(bad[0], bad[1])
		assert.Error(t, err, "η = %g, R = %g", bad[0], bad[1])
	}
}

// TestMinimizeOnBallResult: the result's multiplier is μ of the KKT
// condition −∇log𝓛 = μθ, i.e. ‖Dir‖/R at θ_R (Dir ∥ −θ there); Iterations
// counts the quasi-Newton iterations (≥ 1 from a start off θ_R); the
// settings bound the iterations (an error when they run out) and set the
// stopping threshold; and bad input names the problem. The start has
// ‖θ₀‖ ≠ 1, so the sphere's parametrization must start at radius R.
func TestMinimizeOnBallResult(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	obj := linearObjective(t, separableData(r, 6, 3), "logistic")
	theta := []float64{3, 1, -2}
	res, err := MinimizeOnBall(obj, theta, 10, nil)
	require.NoError(t, err)
	ev, err := obj.Evaluate(theta, true)
	require.NoError(t, err)
	assert.InDelta(t, floats.Norm(ev.Dir, 2)/10, res.Multiplier, 1e-12)
	assert.Greater(t, res.Multiplier, 0.0)
	assert.GreaterOrEqual(t, res.Iterations, 1)
	// Stationary on the sphere to the default threshold: the tangential
	// part of Dir (∇log𝓛) is at most DefaultMinimizeGradTol.
	tang := append([]float64(nil), ev.Dir...)
	floats.AddScaled(tang, -floats.Dot(ev.Dir, theta)/100, theta)
	assert.LessOrEqual(t, floats.Norm(tang, math.Inf(1)), DefaultMinimizeGradTol)

	th := []float64{3, 1, -2}
	res, err = MinimizeOnBall(obj, th, 10, &BallSettings{MaxIterations: 1})
	assert.ErrorContains(t, err, "after 1 iterations")
	require.NotNil(t, res)
	assert.Equal(t, 1, res.Iterations)

	th = []float64{3, 1, -2}
	full, err := MinimizeOnBall(obj, th, 10, &BallSettings{MaxIterations: 1000}) // Tol 0: the default
	require.NoError(t, err)
	th = []float64{3, 1, -2}
	loose, err := MinimizeOnBall(obj, th, 10, &BallSettings{Tol: 1e-3})
	require.NoError(t, err)
	ev, err = obj.Evaluate(th, true)
	require.NoError(t, err)
	tang = append(tang[:0], ev.Dir...)
	floats.AddScaled(tang, -floats.Dot(ev.Dir, th)/100, th)
	assert.LessOrEqual(t, floats.Norm(tang, math.Inf(1)), 1e-3)
	assert.Less(t, loose.Iterations, full.Iterations, "a looser threshold stops earlier")

	_, err = MinimizeOnBall(obj, []float64{1, 0, 0}, 0, nil)
	assert.ErrorContains(t, err, "ball radius must be a finite number > 0")
	_, err = MinimizeOnBall(obj, make([]float64, 3), 1, nil)
	assert.ErrorContains(t, err, "needs a start θ ≠ 0")
}

// TestMinimizeOnBallInterior: with an L2 penalty μ = 1 the minimizer θ* of
// 𝓛 + R has ‖θ*‖ ≤ ‖∇𝓛(0)‖/μ ≤ 1 (strong convexity), inside the ball of
// radius 2; the multiplier at the sphere's best point is then negative and
// MinimizeOnBall says so.
func TestMinimizeOnBallInterior(t *testing.T) {
	obj := linearObjective(t, linearData(), "logistic")
	obj.Reg = L2{Mu: 1}
	res, err := MinimizeOnBall(obj, []float64{1, 1}, 2, nil)
	assert.ErrorIs(t, err, ErrInteriorMinimizer)
	require.NotNil(t, res)
	assert.Less(t, res.Multiplier, 0.0)
}

// TestMinimizeOnBallExactFit: a start on the sphere at an exact fit of the
// squared loss (θ = (3, 4), R = 5) is θ_R: 𝓛 = 0 there, the multiplier is
// 0, which satisfies μ ≥ 0: no error.
func TestMinimizeOnBallExactFit(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{3, 4}}
	obj, err := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	require.NoError(t, err)
	theta := []float64{0.6, 0.8}
	res, err := MinimizeOnBall(obj, theta, 5, nil)
	require.NoError(t, err)
	assert.Equal(t, []float64{3, 4}, theta)
	assert.Equal(t, 0.0, res.Multiplier)
	assert.Equal(t, 0.0, res.Residual)
	assert.Equal(t, math.Inf(-1), res.LogLoss)
}

// TestLearnedWeightingValidation: Start rejects a step ≤ 0 (set on the
// struct, bypassing the constructor), and sigmoid is overflow-free: exactly
// 1 and 0 at ±800 (its doc), ½ at 0, and 1/(1 + e^{−z}) to a few ulps.
func TestLearnedWeightingValidation(t *testing.T) {
	ds := &dataset.Dataset{N: 2, D: 1, X: []float64{1, -1}, Y: []float64{1, -1}}
	for _, lr := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		assert.Error(t, (&LearnedWeighting{LR: lr}).Start(ds), "LR = %g", lr)
	}
	assert.Equal(t, 1.0, sigmoid(800))
	assert.Equal(t, 0.0, sigmoid(-800))
	assert.Equal(t, 0.5, sigmoid(0))
	for _, z := range []float64{-30, -2, -0.5, 0.5, 2, 30} {
		assert.InDelta(t, 1/(1+math.Exp(-z)), sigmoid(z), 4e-16, "z = %g", z)
	}
}

// TestGroupDROStartUniform: after Start the group weights are uniform,
// g_k = 1/K (Sagawa et al.'s initialization), before any update.
func TestGroupDROStartUniform(t *testing.T) {
	d := &dataset.Dataset{N: 4, D: 1, X: []float64{1, 2, 3, 4}, Y: []float64{1, 1, -1, -1}, Groups: []int{0, 1, 2, 2}}
	w := &GroupDRO{Nu: 0.1}
	require.NoError(t, w.Start(d))
	g := make([]float64, 3)
	w.GroupWeights(g)
	for k, v := range g {
		assert.InDelta(t, 1.0/3, v, 1e-16, "group %d", k)
	}
}

package grwclass_test

import (
	"errors"
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

func smallData(t *testing.T) (*dataset.Dataset, *numerics.SVM) {
	d := &dataset.Dataset{N: 4, D: 2, X: []float64{1, 0, 0, 1, -2, 0, 1, -3}, Y: []float64{1, 1, -1, -1}}
	sol, err := numerics.HardMarginSVM(mat.NewDense(4, 2, d.X), d.Y, nil)
	require.NoError(t, err)
	return d, sol
}

// exactRun is θ(T) = ŵ log T + r₀ + extra(log T)·u, u a fixed unit vector
// orthogonal to ŵ.
func exactRun(sol *numerics.SVM, extra func(logT float64) float64) *train.Trajectory {
	u := []float64{-sol.W[1], sol.W[0]}
	floats.Scale(1/floats.Norm(u, 2), u)
	tr := &train.Trajectory{Degree: 1}
	for k := 1; k <= 40; k++ {
		logT := 0.25 * float64(k)
		e := extra(logT)
		th := []float64{sol.W[0]*logT + 0.3 + e*u[0], sol.W[1]*logT - 0.2 + e*u[1]}
		tr.Records = append(tr.Records, train.Record{Step: k, LogT: logT, Theta: th, Weights: []float64{0.25, 0.25, 0.25, 0.25}})
	}
	tr.Theta = tr.Records[len(tr.Records)-1].Theta
	return tr
}

// TestGRWDirectionExact: GD under static weights holds for ZD-T7 and
// XY-P1 (records with the weights, or the weights given); GD under a
// polynomial tail is violated. ZD-T8's path: the exact asymptotic form
// θ_R = R·θ̂_MM + offset holds, a path with another direction is violated.
func TestGRWDirectionExact(t *testing.T) {
	d, sol := smallData(t)
	exp, err := losses.ByName("exp")
	require.NoError(t, err)
	w := []float64{1, 2, 3, 4}
	wbar, err := train.NormalizeWeights(w)
	require.NoError(t, err)
	run := func(loss losses.Loss) *train.Trajectory {
		m, err := models.NewLinear(d.D, 1)
		require.NoError(t, err)
		obj, err := train.NewObjective(m, loss, d)
		require.NoError(t, err)
		tr, err := train.Run(obj, &train.GD{LR: 0.5}, make([]float64, d.D), train.Config{Steps: 20000, Every: 50, KeepTheta: true, KeepWeights: true, Weighting: &train.Static{W: w}})
		require.NoError(t, err)
		return tr
	}
	good := run(exp)
	v := grwclass.GRWDirection(d, good)
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	v = grwclass.IWDirection(d, w, good)
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	bad := run(losses.NewBinary(losses.PolyTail{Alpha: 0.5}))
	v = grwclass.GRWDirection(d, bad)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	v = grwclass.IWDirection(d, w, bad)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	_ = wbar
	// The path: θ_R = R·θ̂_MM + δ_∞ holds (δ_∞ = 0 here: the support
	// vectors' tangent parts leave no freedom); another bounded offset is
	// violated against the computed limit, and a path with another
	// direction grows like R.
	dir := sol.Direction()
	var okPath, offPath, badPath []grwclass.PathRay
	for _, r := range []float64{1, 10, 100, 1000, 1e4} {
		offPath = append(offPath, grwclass.PathRay{R: r, ThetaR: []float64{r*dir[0] + 0.1, r*dir[1] - 0.2}})
		okPath = append(okPath, grwclass.PathRay{R: r, ThetaR: []float64{r * dir[0], r * dir[1]}})
		badPath = append(badPath, grwclass.PathRay{R: r, ThetaR: []float64{r*dir[0] + 0.1*r, r * dir[1]}})
	}
	v = grwclass.PathAgreement(d, nil, good, okPath, nil)
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	assert.Equal(t, theorems.Violated, grwclass.PathAgreement(d, nil, good, offPath, nil).Status)
	assert.Equal(t, theorems.Violated, grwclass.PathAgreement(d, nil, good, badPath, nil).Status)
	// A point whose own precision is coarser than the floor raises it: the
	// offset path's 0.22 at R = 10⁴ is within twice a precision of 0.2.
	coarse := append([]grwclass.PathRay(nil), offPath...)
	coarse[len(coarse)-1].Precision = 0.2
	assert.Equal(t, theorems.Holds, grwclass.PathAgreement(d, nil, good, coarse, nil).Status)
	// A path the solver could not compute: the GD half still decides; a
	// correct run is undecided, never a pass.
	stalled := errors.New("the path's solver stalled")
	assert.Equal(t, theorems.Inconclusive, grwclass.PathUnavailable(d, good, stalled).Status)
	v = grwclass.PathUnavailable(d, bad, stalled)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "path: the path's solver stalled; GD: ")
	// Not linear, not separable.
	tr := exactRun(sol, func(float64) float64 { return 0 })
	tr.Degree = 2
	assert.Equal(t, theorems.AssumptionFailed, grwclass.GRWDirection(d, tr).Status)
	ns := &dataset.Dataset{N: 2, D: 1, X: []float64{1, 1}, Y: []float64{1, -1}}
	assert.Equal(t, theorems.AssumptionFailed, grwclass.GRWDirection(ns, exactRun(&numerics.SVM{W: []float64{1, 0}}, func(float64) float64 { return 0 })).Status)
}

// TestPolyTailLimitsExact: paths sitting at the computed limits hold;
// paths at θ̂_MM (an exponential tail's) are violated; equal weightings
// cannot decide.
func TestPolyTailLimitsExact(t *testing.T) {
	d, sol := smallData(t)
	z := mat.NewDense(4, 2, nil)
	for i := 0; i < 4; i++ {
		for j := 0; j < 2; j++ {
			z.Set(i, j, d.Y[i]*d.X[2*i+j])
		}
	}
	q := [2][]float64{{1, 1, 1, 1}, {4, 1, 0.5, 2}}
	var at, mm [2][]grwclass.PathRay
	for k := range q {
		pd, err := numerics.PolyTailDirection(z, q[k], 1)
		require.NoError(t, err)
		at[k] = []grwclass.PathRay{{R: 1e4, ThetaR: pd.U}}
		mm[k] = []grwclass.PathRay{{R: 1e4, ThetaR: sol.Direction()}}
	}
	v := grwclass.PolyTailLimits(d, 1, q, at)
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	v = grwclass.PolyTailLimits(d, 1, q, mm)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Equal(t, theorems.Inconclusive, grwclass.PolyTailLimits(d, 1, [2][]float64{q[0], q[0]}, at).Status)
}

func TestKLHelpers(t *testing.T) {
	c, n := grwclass.KLOrdering([]float64{0.1, 0.5, 0.3}, []float64{0.2, 0.4, 0.3}, []float64{1, 1, 1}, []float64{2, 3, 4})
	assert.Equal(t, 1, c)
	assert.Equal(t, 2, n)
}

// TestIWMarginBound: the bound is monotone in its ingredients, the binomial
// allowance at 10 trials and δ = 0.1 is 5 failures, and error 1 against a
// tight bound is a violation.
func TestIWMarginBound(t *testing.T) {
	m := []float64{0.5, 1, 1.5, 2, -0.1}
	eta := []float64{1, 1, 1, 1, 1}
	b1, g1 := grwclass.IWBoundValue(m, eta, 0.2, 3, 0.1, false)
	b2, _ := grwclass.IWBoundValue(m, eta, 0.5, 3, 0.1, false)
	bs, _ := grwclass.IWBoundValue(m, eta, 0.2, 3, 0.1, true)
	assert.Greater(t, b2, b1)
	assert.Less(t, bs, b1)
	assert.Greater(t, g1, 0.0)
	trial := func(e float64) grwclass.IWTrial {
		return grwclass.IWTrial{Margins: m, Eta: eta, TestError: e, TestN: 1 << 30}
	}
	var ok, bad []grwclass.IWTrial
	for i := 0; i < 10; i++ {
		ok, bad = append(ok, trial(0)), append(bad, trial(b1+0.5))
	}
	v := grwclass.IWMarginBound(ok, 0.2, 3, 0.1)
	assert.Equal(t, theorems.Holds, v.Status)
	assert.Equal(t, 5.0, v.Bound)
	assert.Equal(t, theorems.Violated, grwclass.IWMarginBound(bad, 0.2, 3, 0.1).Status)
}

// TestPathAgreementWeights: under weights q the path's residual tends to
// δ_∞ = argmin_δ log Σ_{support} q_i e^{−⟨δ, z_i⟩} (PathOffset). With the
// support vectors z = (1, ±1) of θ̂_MM = (1, 0) and q = (1, 1e-9),
// δ_∞ = (0, ½ log 10⁹) = (0, 10.36): a path whose residual reaches it only
// after its first half holds under those weights, not under uniform ones
// (δ_∞ = 0); a path with another direction is violated under both; a
// support vector of weight 0 has no finite δ_∞ (undecided). The paths
// here are drawn, not solved; TestPathLimitBoundSolved solves them.
func TestPathAgreementWeights(t *testing.T) {
	d := &dataset.Dataset{N: 4, D: 2, X: []float64{1, 1, 1, -1, 3, 0, 3, 1}, Y: []float64{1, 1, 1, 1}}
	sol, err := numerics.HardMarginSVM(mat.NewDense(4, 2, d.X), d.Y, nil)
	require.NoError(t, err)
	require.InDelta(t, 1, sol.Margin, 1e-12)
	q := []float64{1, 1e-9, 1, 1}
	limit := 0.5 * math.Log(1e9)
	var late, wrong []grwclass.PathRay
	for _, r := range []float64{1, 10, 100, 1000, 1e4, 1e5, 1e6} {
		off := 0.5
		if r >= 1e4 {
			off = limit
		}
		late = append(late, grwclass.PathRay{R: r, ThetaR: []float64{r, off}})
		wrong = append(wrong, grwclass.PathRay{R: r, ThetaR: []float64{r, 0.01 * r}})
	}
	logistic, err := losses.ByName("logistic")
	require.NoError(t, err)
	good := gdRun(t, d, logistic, nil, &train.GD{LR: 0.5}, limitSteps)
	v := grwclass.PathAgreement(d, q, good, late, nil)
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	assert.Contains(t, v.Detail, "‖δ_∞‖ 10.36")
	v = grwclass.PathAgreement(d, nil, good, late, nil)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	for _, w := range [][]float64{q, nil} {
		v = grwclass.PathAgreement(d, w, good, wrong, nil)
		assert.Equal(t, theorems.Violated, v.Status, v.String())
	}
	v = grwclass.PathAgreement(d, []float64{1, 0, 1, 1}, good, late, nil)
	assert.Equal(t, theorems.Inconclusive, v.Status, v.String())
	v = grwclass.PathAgreement(d, []float64{1, 1}, good, late, nil)
	assert.Equal(t, theorems.AssumptionFailed, v.Status, v.String())
	assert.Contains(t, v.Detail, "2 path weights for 4 samples")
}

// TestPathLimitBoundSolved: on the data of TestPathAgreementWeights the
// logistic path θ_R solved by train.MinimizeOnBall lies within the derived
// bound of R·θ̂_MM + δ_∞ (plus the solver's floor) at R = 10³ … 10⁶ under
// both weightings, and the polynomially tailed path of the same data is
// violated.
func TestPathLimitBoundSolved(t *testing.T) {
	d := &dataset.Dataset{N: 4, D: 2, X: []float64{1, 1, 1, -1, 3, 0, 3, 1}, Y: []float64{1, 1, 1, 1}}
	sol, err := numerics.HardMarginSVM(mat.NewDense(4, 2, d.X), d.Y, nil)
	require.NoError(t, err)
	logistic, err := losses.ByName("logistic")
	require.NoError(t, err)
	good := gdRun(t, d, logistic, nil, &train.GD{LR: 0.5}, limitSteps)
	solve := func(loss losses.Loss, q []float64, radii []float64) []grwclass.PathRay {
		m, err := models.NewLinear(2, 1)
		require.NoError(t, err)
		obj, err := train.NewObjective(m, loss, d)
		require.NoError(t, err)
		require.NoError(t, obj.SetWeights(q))
		th := sol.Direction()
		var out []grwclass.PathRay
		for _, r := range radii {
			_, err := train.MinimizeOnBall(obj, th, r, nil)
			require.NoError(t, err)
			out = append(out, grwclass.PathRay{R: r, ThetaR: append([]float64(nil), th...)})
		}
		return out
	}
	for _, q := range [][]float64{nil, {1, 1e-3, 1, 1}} {
		for _, r := range []float64{1e3, 1e4, 1e6} {
			path := solve(logistic, q, []float64{1, 10, 100, r})
			v := grwclass.PathAgreement(d, q, good, path, nil)
			t.Logf("q %v R %g: %.3g", q, r, v.Statistic)
			assert.Equal(t, theorems.Holds, v.Status, "q %v R %g: %s", q, r, v)
		}
	}
	poly, err := losses.ByName("poly")
	require.NoError(t, err)
	v := grwclass.PathAgreement(d, nil, good, solve(poly, nil, []float64{1, 10, 100, 1e3, 1e4}), nil)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
}

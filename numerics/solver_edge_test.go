package numerics_test

// Edge cases of the NNLS and logistic-ridge solvers that the random sweeps do
// not reach (found by mutation testing, scripts/mutation).

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// TestNNLSScaleInvariance: min ‖Ax − b‖, x ≥ 0 has the solution x*(cA, b) =
// x*(A, b)/c and x*(A, cb) = c·x*(A, b); the default dual tolerance
// 10·ε·max(m, n)·‖A‖₁·‖b‖₂ scales with the problem, so NNLS must find the
// same support at any scale (c = 1e±20: a tolerance without ‖b‖, as in
// MATLAB's lsqnonneg, would drop every column of the problem with b·1e-20).
// The solutions agree to the conditioning of the
// passive least-squares problem (κ ≤ 1e2 for these Gaussian 6×4 matrices)
// times ε: 1e-12 relative leaves a margin of 100.
func TestNNLSScaleInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 10; trial++ {
		a := randMatrix(r, 6, 4)
		b := make([]float64, 6)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		base, err := numerics.NNLS(a, b, nil)
		require.NoError(t, err)
		for _, c := range []float64{1e-20, 1e20} {
			var ca mat.Dense
			ca.Scale(c, a)
			gotA, err := numerics.NNLS(&ca, b, nil)
			require.NoError(t, err)
			cb := make([]float64, len(b))
			for i := range b {
				cb[i] = c * b[i]
			}
			gotB, err := numerics.NNLS(a, cb, nil)
			require.NoError(t, err)
			scale := 0.0
			for _, v := range base.X {
				scale = math.Max(scale, math.Abs(v))
			}
			for j := range base.X {
				assert.InDelta(t, base.X[j]/c, gotA.X[j], 1e-12*scale/c, "trial %d, A·%g: x[%d]", trial, c, j)
				assert.InDelta(t, base.X[j]*c, gotB.X[j], 1e-12*scale*c, "trial %d, b·%g: x[%d]", trial, c, j)
			}
		}
	}
}

// TestNNLSSettings: a zero field of NNLSSettings means its default; a
// positive Tol is the dual threshold (with Tol above every dual no column
// enters and x = 0); a positive MaxIter bounds the iterations.
func TestNNLSSettings(t *testing.T) {
	a := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1})
	b := []float64{1, 2, 3}
	// Unconstrained least squares: AᵀA = [[2,1],[1,2]], Aᵀb = (4, 5):
	// x = (1, 2) ≥ 0, so it is the NNLS solution.
	for _, s := range []*numerics.NNLSSettings{nil, {}, {Tol: 1e-10}, {MaxIter: 5}} {
		res, err := numerics.NNLS(a, b, s)
		require.NoError(t, err, "%+v", s)
		assert.InDelta(t, 1, res.X[0], 1e-14, "%+v", s)
		assert.InDelta(t, 2, res.X[1], 1e-14, "%+v", s)
	}
	// The duals at x = 0 are Aᵀb = (4, 5): Tol = 6 admits no column.
	res, err := numerics.NNLS(a, b, &numerics.NNLSSettings{Tol: 6})
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0}, res.X)
	// One iteration adds one column, not both.
	_, err = numerics.NNLS(a, b, &numerics.NNLSSettings{MaxIter: 1})
	var nc *numerics.NNLSNotConvergedError
	assert.ErrorAs(t, err, &nc)
}

// TestLogisticRidgeHugeMargin: a sample at margin m = 1000 has Hessian
// weight σ(m)σ(−m) = e^{−1000}/(1 + e^{−1000})² ≈ 0, which must be formed
// without e^{1000} (that overflows to Inf/Inf = NaN). With x = 1000, y = 1,
// θ₀ = 1, μ = 1, the minimizer of log(1 + e^{−1000θ}) + ½(θ − 1)² solves
// θ = 1 + 1000σ(−1000θ), i.e. θ = 1 + O(e^{−997}) = 1 in float64, and
// F = log(1 + e^{−1000}) = 0 in float64.
func TestLogisticRidgeHugeMargin(t *testing.T) {
	theta, f, err := numerics.LogisticRidge([]float64{1000}, 1, 1, []float64{1}, []float64{1}, []float64{1}, 1)
	require.NoError(t, err)
	assert.Equal(t, 1.0, theta[0])
	assert.Equal(t, 0.0, f)
}

// TestNNLSDefaultTolRejectsNoise: b = A·(0.3, 0, 0.7) for a random 5×3 A, so
// at the solution column 2's dual a₂ᵀ(b − Ax) is 0 in exact arithmetic; in
// float64 it is 3.6e-16, rounding noise, which the default Tol (the rounding
// level of the duals) keeps out: x₂ = 0 exactly after two column additions,
// the same with NNLSSettings{} (Tol = 0 means the default, not 0; a literal
// threshold of 0 would let the column enter with x₂ ≈ 5e-16).
func TestNNLSDefaultTolRejectsNoise(t *testing.T) {
	a := mat.NewDense(5, 3, []float64{
		-0.8024826241110656, 0.424707052949676, -0.4985070978632815,
		-0.9872764577745818, 0.4770185009670911, -0.37300956589935985,
		1.182810122110346, -0.8066822642915392, 0.10337870485847511,
		-0.7399384390707975, -0.08909545245778076, 0.10199835220598102,
		-0.19324607840570374, 0.7357730603350812, -2.8432905240082125,
	})
	b := make([]float64, 5)
	mat.NewVecDense(5, b).MulVec(a, mat.NewVecDense(3, []float64{0.3, 0, 0.7}))
	for _, s := range []*numerics.NNLSSettings{nil, {}} {
		res, err := numerics.NNLS(a, b, s)
		require.NoError(t, err, "%+v", s)
		assert.Equal(t, []int{0, 2}, res.Passive, "%+v", s)
		assert.Equal(t, 0.0, res.X[1], "%+v", s)
		assert.Equal(t, 2, res.Iterations, "%+v", s)
		assert.InDelta(t, 0.3, res.X[0], 1e-14, "%+v", s)
		assert.InDelta(t, 0.7, res.X[2], 1e-14, "%+v", s)
	}
}

// TestLogisticRidgeIterationCap: Newton's method stops with an error after
// 200 iterations. With x = y = μ = 1, θ₀ = 0 and a weight q, the minimizer of
// q·log(1 + e^{−θ}) + θ²/2 solves θ = q·σ(−θ), θ ≈ ln q; on the way, where
// q·e^{−θ} ≫ θ, F ≈ q·e^{−θ} + θ²/2 and the Newton step is about 1 (the
// exponential's gradient over its Hessian), accepted in full by the line
// search, while the decrement λ² ≈ F stays far above the stopping
// threshold: the iterations needed grow by ln 10 ≈ 2.3 per decade of q.
// q = 1e200 (θ* ≈ 455) is far beyond the cap and q = 1e50 (θ* ≈ 110)
// within it. The cap is exact: q = 10^87.1 converges in the 200th
// iteration (the needed count is 200 for q from 10^86.95 to 10^87.3) and
// q = 10^87.55 would need the 201st (10^87.35 to 10^87.75).
func TestLogisticRidgeIterationCap(t *testing.T) {
	ridge := func(q float64) (float64, error) {
		theta, _, err := numerics.LogisticRidge([]float64{1}, 1, 1, []float64{1}, []float64{q}, nil, 1)
		if err != nil {
			return 0, err
		}
		return theta[0], nil
	}
	for _, q := range []float64{1e200, math.Pow(10, 87.55)} {
		_, err := ridge(q)
		require.Error(t, err, "q = %g", q)
		assert.Contains(t, err.Error(), "did not converge in 200 iterations", "q = %g", q)
	}
	for _, q := range []float64{1e50, math.Pow(10, 87.1)} {
		theta, err := ridge(q)
		require.NoError(t, err, "q = %g", q)
		// θ = q·σ(−θ) = q/(1 + e^θ).
		assert.InDelta(t, theta, q/(1+math.Exp(theta)), 1e-12*theta, "q = %g", q)
	}
}

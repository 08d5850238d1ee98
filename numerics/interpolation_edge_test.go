package numerics_test

// Edge cases of interpolation.go that the reference sweeps do not reach
// (found by mutation testing, scripts/mutation); each checks documented
// behaviour against a value derived here.

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
)

// TestRankDeficientMessages: the error names what is wrong: for n ≤ d the
// rank (not "need n ≤ d"), and a non-finite entry by its row and column.
func TestRankDeficientMessages(t *testing.T) {
	// Row 3 = row 1 + row 2: n = d = 3, rank 2.
	_, _, err := numerics.MinNormInterpolator([]float64{1, 0, 0, 0, 1, 0, 1, 1, 0}, 3, 3, []float64{1, 2, 3}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rank 2")
	assert.NotContains(t, err.Error(), "need n ≤ d")
	// X[1][2] (0-based row 1, column 2 of a 2×3 matrix) is NaN.
	x := []float64{1, 2, 3, 4, 5, math.NaN()}
	_, _, err = numerics.MinNormInterpolator(x, 2, 3, []float64{1, 2}, nil)
	assert.ErrorContains(t, err, "X[1][2] is NaN")
	_, err = numerics.RegularizedInterpolator(x, 2, 3, []float64{1, 2}, nil, []float64{1, 1}, 1)
	assert.ErrorContains(t, err, "X[1][2] is NaN")
}

// TestRankThresholdScaleInvariant: the rank threshold is max(n, d)·ε·σ_max,
// relative to the scale of X. Rows s·(1, 0) and s·(1, δ) have singular
// values ≈ s√2 and sδ/√2, a ratio δ/2 whatever s: δ = 1e-16 is below the
// threshold 2ε = 4.4e-16 (rank 1: rejected), δ = 1e-13 far above it (the SVD
// computes σ_min to about ε·σ_max, 200 times smaller than the gap).
func TestRankThresholdScaleInvariant(t *testing.T) {
	for _, s := range []float64{1e-10, 1, 1e10} {
		for _, tc := range []struct {
			delta    float64
			rejected bool
		}{{1e-16, true}, {1e-13, false}} {
			x := []float64{s, 0, s, s * tc.delta}
			_, err := numerics.NewRowSpan(x, 2, 2)
			var rd *numerics.RankDeficientError
			assert.Equal(t, tc.rejected, errors.As(err, &rd), "scale %g, δ = %g: %v", s, tc.delta, err)
		}
	}
}

// TestRowSpanSquareSMin: for n = d and independent rows, SMin and SMax are
// the extreme singular values of X (here a diagonal matrix: its entries).
func TestRowSpanSquareSMin(t *testing.T) {
	rs, err := numerics.NewRowSpan([]float64{3, 0, 0, -0.5}, 2, 2)
	require.NoError(t, err)
	assert.InDelta(t, 0.5, rs.SMin, 1e-15)
	assert.InDelta(t, 3, rs.SMax, 1e-15)
}

// TestInterpolateShapes: a θ₀ of the wrong length is a shape error, not an
// index panic or a silently shorter θ₀.
func TestInterpolateShapes(t *testing.T) {
	x := []float64{1, 0, 0, 0, 1, 0}
	rs, err := numerics.NewRowSpan(x, 2, 3)
	require.NoError(t, err)
	_, err = rs.Interpolate(make([]float64, 3), x, []float64{1, 2}, []float64{0, 0})
	assert.ErrorIs(t, err, numerics.ErrShape)
	_, err = numerics.RegularizedInterpolator(x, 2, 3, []float64{1, 2}, []float64{0, 0}, []float64{1, 1}, 1)
	assert.ErrorIs(t, err, numerics.ErrShape)
}

// TestRegularizedClosedForm: with one sample (or one of positive weight, the
// others weighted 0, which the doc allows: q_i ≥ 0), the minimizer of
// q/2·(⟨θ, x⟩ − y)² + μ/2·‖θ − θ₀‖² is, setting the gradient to 0 along x,
//
//	θ = θ₀ + x · q(y − ⟨x, θ₀⟩)/(q‖x‖² + μ).
//
// The Gram systems have condition κ = (q‖x‖² + μ)/μ = 29 here, so the
// result agrees to κ·ε ≈ 1e-14 relative; 1e-13 allows a few roundings more.
func TestRegularizedClosedForm(t *testing.T) {
	x1 := []float64{1, -2, 2}
	th0 := []float64{0.5, 0.25, -1}
	const q, mu, y = 1.75, 0.5, 3.0
	r := q * (y - floats.Dot(x1, th0)) / (q*floats.Dot(x1, x1) + mu)
	want := make([]float64, 3)
	floats.AddScaledTo(want, th0, r, x1)
	check := func(name string, got []float64, err error) {
		t.Helper()
		require.NoError(t, err, name)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-13*floats.Norm(want, 2), "%s: θ[%d]", name, i)
		}
	}
	got, err := numerics.RegularizedInterpolator(x1, 1, 3, []float64{y}, th0, []float64{q}, mu)
	check("n = 1", got, err)
	// One feature (d = 1): θ = θ₀ + x·q(y − xθ₀)/(q x² + μ).
	got1, err := numerics.RegularizedInterpolator([]float64{2}, 1, 1, []float64{y}, []float64{0.5}, []float64{q}, mu)
	require.NoError(t, err)
	assert.InDelta(t, 0.5+2*q*(y-1)/(4*q+mu), got1[0], 1e-15)
	// A second sample of weight 0 changes nothing (n = 2 ≤ d: the n×n form).
	x2 := append(append([]float64{}, x1...), 4, 1, 0)
	got, err = numerics.RegularizedInterpolator(x2, 2, 3, []float64{y, -7}, th0, []float64{q, 0}, mu)
	check("zero weight, n×n", got, err)
	// Four samples in 3 dimensions (n > d: the d×d form), three of weight 0.
	x4 := append(append([]float64{}, x2...), 0, 0, 1, 1, 1, 1)
	got, err = numerics.RegularizedInterpolator(x4, 4, 3, []float64{y, -7, 2, 9}, th0, []float64{q, 0, 0, 0}, mu)
	check("zero weights, d×d", got, err)
}

// TestRegularizedInterpolatorSystemSize: the smaller Gram system is the one
// solved, n×n for n ≤ d and d×d for n > d, as NotPositiveDefiniteError's
// dimension shows when μ = 1e-300 is lost to rounding against identical
// samples (x = (1, 1, 1) twice, or (1, 1) three times: Cholesky's second
// pivot is 0 in either system).
func TestRegularizedInterpolatorSystemSize(t *testing.T) {
	for _, c := range []struct{ n, d int }{{2, 3}, {3, 2}} {
		x := make([]float64, c.n*c.d)
		for i := range x {
			x[i] = 1
		}
		y := make([]float64, c.n)
		q := make([]float64, c.n)
		for i := range q {
			q[i] = 1
		}
		_, err := numerics.RegularizedInterpolator(x, c.n, c.d, y, nil, q, 1e-300)
		var npd *numerics.NotPositiveDefiniteError
		require.ErrorAs(t, err, &npd, "n = %d, d = %d", c.n, c.d)
		assert.Equal(t, min(c.n, c.d), npd.Dim, "n = %d, d = %d", c.n, c.d)
	}
}

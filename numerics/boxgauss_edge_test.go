package numerics_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/integrate/quad"

	"github.com/implicitbias/implicitbias/numerics"
)

// gaussMass integrates the standard normal density over [a, b] by
// Gauss–Legendre quadrature on 64 subintervals of 20 nodes: an independent
// reference for Φ(b) − Φ(a), accurate to ~1e-15 relative on these
// intervals (the density is entire; each subinterval is short against its
// variation, so each rule is exact to rounding).
func gaussMass(a, b float64) float64 {
	const parts = 64
	f := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	var s float64
	for i := 0; i < parts; i++ {
		lo := a + (b-a)*float64(i)/parts
		hi := a + (b-a)*float64(i+1)/parts
		s += quad.Fixed(f, lo, hi, 20, quad.Legendre{}, 0)
	}
	return s
}

// TestBoxSetMass: log P(N(m, I) ∈ B) against the quadrature reference, for
// intervals entirely right of the mean (the upper-tail form), entirely left
// (the lower-tail form), straddling it, and far in a tail (mass 1e-200,
// where Φ(b) − Φ(a) computed as a difference of Φs would be 0). 1e-12
// relative on the mass is 1e-12 absolute on its logarithm.
func TestBoxSetMass(t *testing.T) {
	for _, tc := range []struct {
		iv [2]float64
		m  float64
	}{
		{[2]float64{1, 4}, 0.3}, {[2]float64{0.5, 2}, -1}, {[2]float64{-4, -1}, 0.3}, {[2]float64{-3, 0.5}, 1},
		{[2]float64{-1.5, 1.5}, -0.2}, {[2]float64{30, 31}, 0}, {[2]float64{-31, -30}, 0},
	} {
		b := numerics.BoxSet{{tc.iv}}
		want := math.Log(gaussMass(tc.iv[0]-tc.m, tc.iv[1]-tc.m))
		assert.InDelta(t, want, b.LogGaussMass([]float64{tc.m}), 1e-12, "%v, m = %g", tc.iv, tc.m)
	}
}

// TestBoxSetValidateEdges: intervals are closed and must be disjoint with
// a < b: a point interval and two intervals sharing an endpoint are
// rejected.
func TestBoxSetValidateEdges(t *testing.T) {
	assert.Error(t, numerics.BoxSet{{{1, 1}}}.Validate())
	assert.Error(t, numerics.BoxSet{{{0, 1}, {1, 2}}}.Validate())
	assert.NoError(t, numerics.BoxSet{{{0, 1}, {1.5, 2}}}.Validate())
	assert.Error(t, numerics.BoxSet{}.Validate())
	assert.Error(t, numerics.BoxSet{{}}.Validate())
}

// TestBoxSetSampleMass: Sample refuses a factor whose mass under N(m_j, 1)
// is below 1e-6 and samples one above it, with the mass taken around m_j:
// [0, 1] under N(5, 1) and [−1, 0] under N(−5, 1) have mass 3.1e-5
// (sampled, in the interval), [5, 6] under N(0, 1) has 2.9e-7 (refused);
// [10, 11] under N(10, 1) has 0.34.
func TestBoxSetSampleMass(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	x := make([]float64, 1)
	require.NoError(t, numerics.BoxSet{{{0, 1}}}.Sample(r, []float64{5}, x))
	assert.True(t, x[0] >= 0 && x[0] <= 1, "x = %g", x[0])
	require.NoError(t, numerics.BoxSet{{{-1, 0}}}.Sample(r, []float64{-5}, x))
	assert.True(t, x[0] >= -1 && x[0] <= 0, "x = %g", x[0])
	require.NoError(t, numerics.BoxSet{{{10, 11}}}.Sample(r, []float64{10}, x))
	assert.True(t, x[0] >= 10 && x[0] <= 11, "x = %g", x[0])
	assert.ErrorContains(t, numerics.BoxSet{{{5, 6}}}.Sample(r, []float64{0}, x), "too small to sample")
}

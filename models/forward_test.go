package models_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/implicitbias/implicitbias/models"
)

// The package and the reference sum the same products in different orders
// (the package's dot products are unrolled), so they agree to a few ulps
// times the depth and the length of the sums (≤ 30 terms here): about
// 30·3·1.1e-16 ≈ 1e-14 relative to the size of the terms, which are O(1)
// at the default initialization. 1e-13 leaves a factor 10.
const refTol = 1e-13

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func TestForwardReference(t *testing.T) {
	const n = 4
	for _, tc := range refCases {
		m, err := models.Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		r := rand.New(rand.NewPCG(1, 1))
		theta := make([]float64, m.NumParams())
		m.Init(r, theta)
		x := randVec(r, n*tc.in)
		ws := m.NewWorkspace(n + 2) // a batch smaller than the capacity
		got := m.Forward(ws, theta, x, n)
		require.Len(t, got, n*m.Out(), tc.spec)
		for i := 0; i < n; i++ {
			want := tc.ref.forward(theta, x[i*tc.in:(i+1)*tc.in])
			require.Len(t, want, m.Out(), tc.spec)
			scale := math.Max(1, maxAbs(want))
			for k, w := range want {
				g := got[i*m.Out()+k]
				assert.True(t, scalar.EqualWithinAbsOrRel(g, w, refTol*scale, refTol),
					"%s: sample %d output %d: got %v, reference %v", tc.spec, i, k, g, w)
			}
		}
	}
}

// refObjective is F(θ) = Σ_i Σ_k gOut[i,k] Φ_k(θ; x_i) from the reference.
func refObjective(ref refNet, in, out int, x, gOut []float64) func([]float64) float64 {
	return func(theta []float64) float64 {
		s := 0.0
		for i := 0; i < len(x)/in; i++ {
			for k, v := range ref.forward(theta, x[i*in:(i+1)*in]) {
				s += gOut[i*out+k] * v
			}
		}
		return s
	}
}

// TestBackwardFiniteDifference checks the exact gradient against central
// differences of the reference forward pass (catalog entry ENG-grad).
// Central differences with the default step h = 6e-6 have truncation error
// h²/6·|F”'| ≈ 6e-12·|F”'| and rounding error ≈ ε|F|/h ≈ 4e-11·|F|; at
// generic points (no kink within h) both are far below the 1e-6 relative
// tolerance of ENG-grad.
func TestBackwardFiniteDifference(t *testing.T) {
	const (
		n   = 3
		tol = 1e-6
	)
	for _, tc := range refCases {
		m, err := models.Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		r := rand.New(rand.NewPCG(1, 2))
		theta := make([]float64, m.NumParams())
		m.Init(r, theta)
		x := randVec(r, n*tc.in)
		gOut := randVec(r, n*m.Out())

		ws := m.NewWorkspace(n)
		m.Forward(ws, theta, x, n)
		grad := make([]float64, m.NumParams())
		m.Backward(ws, theta, gOut, grad)

		want := fd.Gradient(nil, refObjective(tc.ref, tc.in, m.Out(), x, gOut), theta, &fd.Settings{Formula: fd.Central})
		scale := math.Max(1, maxAbs(want))
		for j := range want {
			assert.True(t, scalar.EqualWithinAbsOrRel(grad[j], want[j], tol*scale, tol),
				"%s: ∂/∂θ[%d]: backward %v, finite differences %v", tc.spec, j, grad[j], want[j])
		}
	}
}

// TestBackwardBatchSum checks that a batch gradient is the sum of the
// single-sample gradients, and that Backward does not modify gOut.
func TestBackwardBatchSum(t *testing.T) {
	for _, tc := range refCases {
		checkBatchSum(t, tc.spec, tc.in)
	}
}

// checkBatchSum checks on a batch of 5 that samples do not interact and
// that the batch gradient is the sum of the samples' gradients.
func checkBatchSum(t *testing.T, spec string, in int) {
	const n = 5
	m, err := models.Parse(spec, in)
	require.NoError(t, err, spec)
	r := rand.New(rand.NewPCG(1, 3))
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	x := randVec(r, n*in)
	gOut := randVec(r, n*m.Out())
	gOut0 := append([]float64(nil), gOut...)

	ws := m.NewWorkspace(n)
	y := append([]float64(nil), m.Forward(ws, theta, x, n)...)
	batch := make([]float64, m.NumParams())
	m.Backward(ws, theta, gOut, batch)
	assert.Equal(t, gOut0, gOut, "%s: Backward modified gOut", spec)

	sum := make([]float64, m.NumParams())
	one := make([]float64, m.NumParams())
	for i := 0; i < n; i++ {
		yi := m.Forward(ws, theta, x[i*in:(i+1)*in], 1)
		// Samples do not interact: the batched output of sample i is
		// the single-sample output, bit for bit (same operations).
		assert.Equal(t, y[i*m.Out():(i+1)*m.Out()], yi, "%s: sample %d", spec, i)
		m.Backward(ws, theta, gOut[i*m.Out():(i+1)*m.Out()], one)
		for j, v := range one {
			sum[j] += v
		}
	}
	// Both are sums of the same n terms in different orders.
	scale := math.Max(1, maxAbs(sum))
	for j := range sum {
		assert.True(t, scalar.EqualWithinAbsOrRel(batch[j], sum[j], refTol*scale, refTol),
			"%s: θ[%d]: batch %v, sum of samples %v", spec, j, batch[j], sum[j])
	}
}

// TestGrader checks the Jacobian rows of a multi-output model against the
// batched Backward with a one-hot gOut.
func TestGrader(t *testing.T) {
	m, err := models.Parse("mlp:relu:2x6/3+bias@1", 4)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	x := randVec(r, 4)
	g := models.NewGrader(m)
	ws := m.NewWorkspace(1)
	dst := make([]float64, m.NumParams())
	want := make([]float64, m.NumParams())
	for k := 0; k < m.Out(); k++ {
		phi := g.Grad(theta, x, k, dst)
		y := m.Forward(ws, theta, x, 1)
		assert.Equal(t, y[k], phi)
		assert.Equal(t, y[k], g.Value(theta, x, k))
		gOut := make([]float64, m.Out())
		gOut[k] = 1
		m.Backward(ws, theta, gOut, want)
		assert.Equal(t, want, dst, "output %d", k)
	}
}

func TestInit(t *testing.T) {
	m, err := models.Parse("cnn:relu:2c2:3+bias", 6)
	require.NoError(t, err)
	a := make([]float64, m.NumParams())
	b := make([]float64, m.NumParams())
	m.Init(rand.New(rand.NewPCG(1, 1)), a)
	m.Init(rand.New(rand.NewPCG(1, 1)), b)
	assert.Equal(t, a, b, "same seed, same θ")
	for i, v := range a {
		assert.NotZero(t, v, "θ[%d] left unset", i)
	}
	m.Init(rand.New(rand.NewPCG(2, 1)), b)
	assert.NotEqual(t, a, b)
}

package models_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/models"
)

func mustParse(t testing.TB, spec string, in int) *models.Network {
	t.Helper()
	m, err := models.Parse(spec, in)
	require.NoError(t, err, spec)
	return m
}

// setup returns a model, an initialized θ and n random inputs.
func setup(t testing.TB, spec string, in, n int) (*models.Network, []float64, []float64) {
	m := mustParse(t, spec, in)
	r := rand.New(rand.NewPCG(1, 1))
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	return m, theta, randVec(r, n*in)
}

func TestWorkspaceCapacity(t *testing.T) {
	m, theta, x := setup(t, "mlp:relu:2x4", 3, 5)
	ws := m.NewWorkspace(4)
	assert.Equal(t, 4, ws.Cap())
	assert.NotPanics(t, func() { m.Forward(ws, theta, x, 4) })
	assert.PanicsWithValue(t, "models: batch of 5 exceeds workspace capacity 4", func() { m.Forward(ws, theta, x, 5) })
	assert.Equal(t, 1, m.NewWorkspace(0).Cap(), "capacity is at least 1")
	assert.Equal(t, 1, m.NewWorkspace(-3).Cap())
}

func TestWorkspaceOwner(t *testing.T) {
	const want = "models: workspace was not made by this network"
	a, theta, x := setup(t, "mlp:relu:2x4", 3, 2)
	b := mustParse(t, "mlp:relu:2x4", 3) // same architecture, other network
	c := mustParse(t, "mlp:relu:3x8", 3)
	gOut := []float64{1, 1}
	grad := make([]float64, a.NumParams())
	for name, ws := range map[string]models.Workspace{
		"same shape":  b.NewWorkspace(2),
		"other shape": c.NewWorkspace(2),
		"foreign":     foreignWorkspace{},
	} {
		assert.PanicsWithValue(t, want, func() { a.Forward(ws, theta, x, 2) }, name)
		assert.PanicsWithValue(t, want, func() { a.Backward(ws, theta, gOut, grad) }, name)
		assert.PanicsWithValue(t, want, func() { a.Pattern(ws, nil) }, name)
	}
}

type foreignWorkspace struct{}

func (foreignWorkspace) Cap() int { return 100 }

func TestForwardThetaLength(t *testing.T) {
	m, theta, x := setup(t, "mlp:relu:2x4", 3, 1)
	ws := m.NewWorkspace(1)
	assert.PanicsWithValue(t, "models: θ has 15 entries, mlp:relu:2x4 needs 16",
		func() { m.Forward(ws, theta[:15], x, 1) })
}

func TestBackwardEmptyBatch(t *testing.T) {
	for _, spec := range []struct {
		spec string
		in   int
	}{{"mlp:relu:2x4", 3}, {"cnn:relu:2c2-max2:3+bias", 8}} {
		m, theta, x := setup(t, spec.spec, spec.in, 2)
		ws := m.NewWorkspace(2)
		grad := make([]float64, m.NumParams())
		for i := range grad {
			grad[i] = math.NaN()
		}
		// A fresh workspace has seen no samples.
		m.Backward(ws, theta, nil, grad)
		assert.Equal(t, make([]float64, m.NumParams()), grad, spec.spec)

		m.Forward(ws, theta, x, 2)
		m.Backward(ws, theta, []float64{1, 1}, grad)
		assert.NotEqual(t, make([]float64, m.NumParams()), grad)
		y := m.Forward(ws, theta, x, 0)
		assert.Empty(t, y)
		m.Backward(ws, theta, nil, grad)
		assert.Equal(t, make([]float64, m.NumParams()), grad, spec.spec)
	}
}

// TestNoAllocs checks that Forward, Backward and Pattern (into a buffer
// with room) do not allocate once the workspace is made.
func TestNoAllocs(t *testing.T) {
	const n = 16
	for _, spec := range []struct {
		spec string
		in   int
	}{
		{"mlp:relu:3x16", 8},
		{"mlp:tanh:2x8/3+bias", 8},
		{"cnn:relu:4c3s2-max2,4c2-avg2:8/2+bias", 40},
		{"cnn:relu2:2c3:4@2", 16},
	} {
		m, theta, x := setup(t, spec.spec, spec.in, n)
		ws := m.NewWorkspace(n)
		gOut := randVec(rand.New(rand.NewPCG(1, 2)), n*m.Out())
		grad := make([]float64, m.NumParams())
		pat := make([]byte, 0, 1<<12)
		allocs := testing.AllocsPerRun(20, func() {
			m.Forward(ws, theta, x, n)
			m.Backward(ws, theta, gOut, grad)
			pat = m.Pattern(ws, pat[:0])
		})
		assert.Zero(t, allocs, spec.spec)

		g := models.NewGrader(m)
		row := make([]float64, m.NumParams())
		allocs = testing.AllocsPerRun(20, func() {
			g.Grad(theta, x[:spec.in], m.Out()-1, row)
			g.Value(theta, x[:spec.in], 0)
		})
		assert.Zero(t, allocs, "%s: Grader", spec.spec)
	}
}

func TestKinked(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		in     int
		kinked bool
	}{
		{"mlp:relu:2x4", 3, true},
		{"mlp:lrelu0.2:2x4", 3, true},
		{"mlp:relu2:2x4", 3, true}, // C¹ only: its gradient has kinks
		{"mlp:relu3:2x4", 3, false},
		{"mlp:quad:2x4", 3, false},
		{"deeplinear:3", 3, false},
		{"mlp:tanh:2x4", 3, false},
		{"linear", 3, false},
		{"cnn:quad:2c2-max2", 6, true}, // max pooling
		{"cnn:quad:2c2-avg2", 6, false},
		{"cnn:relu3:2c2-avg2", 6, false},
	} {
		m := mustParse(t, tc.spec, tc.in)
		assert.Equal(t, tc.kinked, m.Kinked(), tc.spec)
		if tc.kinked {
			continue
		}
		// Smooth networks append nothing.
		_, theta, x := setup(t, tc.spec, tc.in, 3)
		ws := m.NewWorkspace(3)
		m.Forward(ws, theta, x, 3)
		assert.Equal(t, []byte("keep"), m.Pattern(ws, []byte("keep")), tc.spec)
		assert.Equal(t, []byte("keep"), models.NewGrader(m).Pattern(theta, x[:tc.in], []byte("keep")), tc.spec)
	}
}

// TestPatternReLU flips the sign of one hidden pre-activation and checks
// that the pattern changes, while a perturbation far smaller than every
// |pre-activation| keeps it.
func TestPatternReLU(t *testing.T) {
	const (
		in, width, n = 3, 5, 4
	)
	for _, tc := range []struct {
		spec  string
		sigma func(float64) float64
	}{
		{"mlp:relu:3x5", refReLU},
		{"mlp:lrelu0.1:3x5", refLeaky(0.1)},
		{"mlp:relu2:3x5", refPow(2)},
	} {
		spec := tc.spec
		m, theta, x := setup(t, spec, in, n)
		ws := m.NewWorkspace(n)
		m.Forward(ws, theta, x, n)
		p0 := m.Pattern(ws, nil)
		require.NotEmpty(t, p0)

		// Tiny perturbation: a change of 1e-9 per parameter moves each
		// pre-activation by about 1e-9·‖θ‖·‖x‖ ≲ 1e-7 here, far below the
		// smallest |pre-activation|, so no sign changes.
		require.Greater(t, minHiddenPreact(tc.sigma, theta, x, in, width, n), 1e-4, spec)
		r := rand.New(rand.NewPCG(1, 3))
		near := append([]float64(nil), theta...)
		for i := range near {
			near[i] += 1e-9 * r.NormFloat64()
		}
		m.Forward(ws, near, x, n)
		assert.Equal(t, p0, m.Pattern(ws, nil), "%s: tiny perturbation", spec)

		// Negating row j of W₁ negates the first-layer pre-activation
		// z_j = ⟨W₁[j], x⟩ of every sample: its side of the kink flips.
		for j := 0; j < width; j++ {
			flipped := append([]float64(nil), theta...)
			for i := 0; i < in; i++ {
				flipped[j*in+i] = -flipped[j*in+i]
			}
			m.Forward(ws, flipped, x, n)
			assert.NotEqual(t, p0, m.Pattern(ws, nil), "%s: row %d flipped", spec, j)
		}
		// Grader.Pattern is the pattern of one sample.
		assert.NotEmpty(t, models.NewGrader(m).Pattern(theta, x[:in], nil))
	}
}

// TestPatternMaxPool checks that the pattern of max pooling follows the
// argmax: with an identity activation and one filter of width 1 and weight
// w, the pooled value is max(w·x_t) over a window, whose argmax moves from
// the largest x_t to the smallest when w changes sign.
func TestPatternMaxPool(t *testing.T) {
	m := mustParse(t, "cnn:id:1c1-max2", 4)
	require.True(t, m.Kinked())
	// θ = (w, v₁, v₂): the conv weight, then the output layer.
	x := []float64{1, 3, 5, 2}
	ws := m.NewWorkspace(1)
	m.Forward(ws, []float64{1, 1, 1}, x, 1)
	pos := m.Pattern(ws, nil)
	m.Forward(ws, []float64{1.001, 1, 1}, x, 1)
	assert.Equal(t, pos, m.Pattern(ws, nil))
	m.Forward(ws, []float64{-1, 1, 1}, x, 1)
	assert.NotEqual(t, pos, m.Pattern(ws, nil))
	y := m.Forward(ws, []float64{-1, 1, 1}, x, 1)
	assert.Equal(t, []float64{-1 + -2}, y, "max(−1,−3) + max(−5,−2)")
}

// minHiddenPreact returns the smallest |pre-activation| of the two hidden
// layers of a bias-free 3-layer MLP with activation σ (W₁ width×in, W₂
// width×width, then W₃) over the n samples of x.
func minHiddenPreact(sigma func(float64) float64, theta, x []float64, in, width, n int) float64 {
	w1, w2 := theta[:width*in], theta[width*in:width*in+width*width]
	best := math.Inf(1)
	for i := 0; i < n; i++ {
		a1 := make([]float64, width)
		for j := range a1 {
			z := 0.0
			for l := 0; l < in; l++ {
				z += w1[j*in+l] * x[i*in+l]
			}
			best = math.Min(best, math.Abs(z))
			a1[j] = sigma(z)
		}
		for j := 0; j < width; j++ {
			z := 0.0
			for l := 0; l < width; l++ {
				z += w2[j*width+l] * a1[l]
			}
			best = math.Min(best, math.Abs(z))
		}
	}
	return best
}

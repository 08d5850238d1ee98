package models_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/implicitbias/implicitbias/internal/linalg"
	"github.com/implicitbias/implicitbias/models"
)

// TestCNN2DForwardReference compares the im2col layers with the naive
// reference; refTol as in TestForwardReference (sums of ≤ 75 terms here).
func TestCNN2DForwardReference(t *testing.T) {
	const n = 3
	for _, tc := range ref2dCases {
		m, err := models.Parse(tc.spec, tc.ref.in())
		require.NoError(t, err, tc.spec)
		r := rand.New(rand.NewPCG(1, 1))
		theta := randVec(r, m.NumParams()) // N(0,1): biases non-zero too
		x := randVec(r, n*tc.ref.in())
		got := m.Forward(m.NewWorkspace(n+1), theta, x, n)
		for i := 0; i < n; i++ {
			want := tc.ref.forward(theta, x[i*tc.ref.in():(i+1)*tc.ref.in()])
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

// TestCNN2DBackwardFiniteDifference is ENG-grad on random small 2-D CNNs
// with max and average pooling: the exact gradient against central
// differences of the reference, at the tolerance 1e-6 of the catalog (see
// TestBackwardFiniteDifference for its margin; at random normal inputs no
// ReLU or max-pool kink lies within the stencil's h = 6e-6).
func TestCNN2DBackwardFiniteDifference(t *testing.T) {
	const (
		n   = 2
		tol = 1e-6
	)
	for _, tc := range ref2dCases {
		in := tc.ref.in()
		m, err := models.Parse(tc.spec, in)
		require.NoError(t, err, tc.spec)
		r := rand.New(rand.NewPCG(1, 2))
		theta := randVec(r, m.NumParams())
		x := randVec(r, n*in)
		gOut := randVec(r, n*m.Out())
		ws := m.NewWorkspace(n)
		m.Forward(ws, theta, x, n)
		grad := make([]float64, m.NumParams())
		m.Backward(ws, theta, gOut, grad)

		f := func(th []float64) float64 {
			s := 0.0
			for i := 0; i < n; i++ {
				for k, v := range tc.ref.forward(th, x[i*in:(i+1)*in]) {
					s += gOut[i*m.Out()+k] * v
				}
			}
			return s
		}
		assertFiniteDifference(t, tc.spec, f, theta, grad)
	}
}

// assertFiniteDifference checks grad = ∇f(θ) against central differences
// at ENG-grad's tolerance 1e-6 relative (see TestBackwardFiniteDifference
// for its margin over the differences' error).
func assertFiniteDifference(t *testing.T, spec string, f func([]float64) float64, theta, grad []float64) {
	t.Helper()
	const tol = 1e-6
	want := fd.Gradient(nil, f, theta, &fd.Settings{Formula: fd.Central})
	scale := math.Max(1, maxAbs(want))
	for j := range want {
		assert.True(t, scalar.EqualWithinAbsOrRel(grad[j], want[j], tol*scale, tol),
			"%s: ∂/∂θ[%d]: backward %v, finite differences %v", spec, j, grad[j], want[j])
	}
}

// TestCNN2DInputGradient covers col2im, the adjoint of im2col, with stride
// and padding: a conv layer's input gradient reaches the parameters of the
// layers before it only, so it is seen in networks whose strided or padded
// conv is not the first layer. A leading 1×1 "valid" stage puts it there;
// the gradient is checked against central differences of the engine's own
// forward pass (itself checked against the reference above), at ENG-grad's
// tolerance.
func TestCNN2DInputGradient(t *testing.T) {
	const tol = 1e-6
	for _, tc := range []struct {
		spec string
		in   int
	}{
		{"cnn2d:6x5x2:id:2c1-valid,3c3s2:2", 60},        // same, stride 2: pad 1 row and 1 column
		{"cnn2d:6x5x2:id:2c1-valid,3c4-valid-avg2", 60}, // valid, windows overlap
		{"cnn2d:7x7x1:relu:2c1-valid,2c4-max2", 49},     // same, even kernel: pad 1 before, 2 after
	} {
		m := mustParse(t, tc.spec, tc.in)
		r := rand.New(rand.NewPCG(3, 3))
		theta := randVec(r, m.NumParams())
		x := randVec(r, m.In())
		g := models.NewGrader(m)
		grad := make([]float64, m.NumParams())
		g.Grad(theta, x, 0, grad)
		assertFiniteDifference(t, tc.spec, func(th []float64) float64 { return g.Value(th, x, 0) }, theta, grad)
	}
}

// TestCNN2DBatchSum: samples do not interact (same bits batched or alone)
// and a batch gradient is the sum of the samples' gradients.
func TestCNN2DBatchSum(t *testing.T) {
	for _, tc := range ref2dCases {
		checkBatchSum(t, tc.spec, tc.ref.in())
	}
}

// TestCNN2DThreadsBitIdentical: forward and backward give the same bits
// with one thread and with several (the products split entries, never sums;
// im2col, pooling and col2im are serial). The batch is large enough that the
// products split (linalg.ParallelProducts rises).
func TestCNN2DThreadsBitIdentical(t *testing.T) {
	const n = 16
	m := mustParse(t, "cnn2d:16x16x1:relu:16c5-max2,16c3-avg2:32:10+bias@1", 256)
	r := rand.New(rand.NewPCG(5, 5))
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	x := randVec(r, n*m.In())
	gOut := randVec(r, n*m.Out())
	run := func(threads int) ([]float64, []float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
		ws := m.NewWorkspace(n)
		y := append([]float64(nil), m.Forward(ws, theta, x, n)...)
		g := make([]float64, m.NumParams())
		m.Backward(ws, theta, gOut, g)
		return y, g
	}
	y1, g1 := run(1)
	before := linalg.ParallelProducts()
	y4, g4 := run(4)
	require.Greater(t, linalg.ParallelProducts(), before, "no product ran on several threads: the test would be vacuous")
	for i := range y1 {
		require.Equal(t, math.Float64bits(y1[i]), math.Float64bits(y4[i]), "output %d", i)
	}
	for i := range g1 {
		require.Equal(t, math.Float64bits(g1[i]), math.Float64bits(g4[i]), "∂θ[%d]", i)
	}
}

// TestCNN2DLLArchitecture checks the shapes of LL's MNIST CNN (App. J) at
// full width: 28×28 "same" k5 → 28×28×32, max2 → 14×14×32, "same" k3 →
// 14×14×64, max2 → 7×7×64 = 3136, dense 1024, 10 outputs; parameters
// 32·25 + 32 + 64·9·32 + 3136·1024 + 1024·10 = 3 240 768.
func TestCNN2DLLArchitecture(t *testing.T) {
	const spec = "cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1"
	m := mustParse(t, spec, 784)
	assert.Equal(t, spec, m.String())
	assert.Equal(t, 784, m.In())
	assert.Equal(t, 10, m.Out())
	assert.Equal(t, 32*25+32+64*9*32+3136*1024+1024*10, m.NumParams())
	assert.Equal(t, "conv2d(28x28x1→28x28x32, k=5, s=1, same, bias) → relu → maxpool2d(2) → "+
		"conv2d(14x14x32→14x14x64, k=3, s=1, same) → relu → maxpool2d(2) → dense(3136→1024) → relu → dense(1024→10)", m.Describe())
	d := m.Degree()
	require.True(t, d.Homogeneous, d.Reason)
	assert.Equal(t, []float64{1, 1, 1, 1}, d.Blocks)
	assert.True(t, m.Kinked())
}

// TestCNN2DInit: He-normal weights, N(0, 2/fan_in), zero biases (LL App.
// J), reproducible from the seed. The sample variance of n normal draws
// has relative standard deviation √(2/(n−1)); the test allows 6 of them (a
// false alarm has probability about 2e-9 per block) and catches a variance
// of 1/fan_in (the 1-D layers' rule), which is 50% off.
func TestCNN2DInit(t *testing.T) {
	m := mustParse(t, "cnn2d:16x16x3:relu:32c5-max2:128:10+bias@1", 768)
	a := make([]float64, m.NumParams())
	b := make([]float64, m.NumParams())
	m.Init(rand.New(rand.NewPCG(1, 1)), a)
	m.Init(rand.New(rand.NewPCG(1, 1)), b)
	assert.Equal(t, a, b, "same seed, same θ")
	fanIn := []int{5 * 5 * 3, 8 * 8 * 32, 128}
	blocks := m.Blocks()
	require.Len(t, blocks, 3)
	for i, blk := range blocks {
		p := a[blk.Offset : blk.Offset+blk.Len]
		nw := blk.Len
		if i == 0 {
			nw -= 32 // the first layer's biases follow its weights
			for j, v := range p[nw:] {
				assert.Zero(t, v, "bias %d", j)
			}
		}
		var ss float64
		for _, v := range p[:nw] {
			ss += v * v
		}
		want := 2 / float64(fanIn[i])
		rel := math.Sqrt(2 / float64(nw-1))
		assert.InDelta(t, 1, ss/float64(nw)/want, 6*rel, "%s: variance %v, He %v", blk.Name, ss/float64(nw), want)
	}
}

// TestCNN2DPattern: max pooling makes the model kinked and its argmaxes
// are part of the pattern; average pooling of a linear net is smooth.
func TestCNN2DPattern(t *testing.T) {
	m, theta, x := setup(t, "cnn2d:4x4x1:id:2c3-max2", 16, 1)
	assert.True(t, m.Kinked())
	ws := m.NewWorkspace(1)
	m.Forward(ws, theta, x, 1)
	p := m.Pattern(ws, nil)
	assert.Len(t, p, 2*2*2, "one argmax per pooled output")
	for _, v := range p {
		assert.Less(t, v, byte(4))
	}
	lin := mustParse(t, "cnn2d:4x4x1:id:2c3-avg2", 16)
	assert.False(t, lin.Kinked())
}

func TestCNN2DSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
		want string
	}{
		{"cnn2d:28x28:relu:2c3", 784, "want HxWxC"},
		{"cnn2d:28x28x1:relu:2c3", 785, "has 784 values, the data have 785"},
		{"cnn2d:4x4x1:relu:2c5-valid", 16, "does not fit"},
		{"cnn2d:4x4x1:relu:2c3-max5", 16, "pool size must be in 1..4"},
		{"cnn2d:4x4x1:relu:2c3-max2-avg2", 16, "one pooling per stage"},
		{"cnn2d:4x4x1:relu:2c3-full", 16, `"full" is not same, valid`},
		{"cnn2d:4x4x1:relu:2x3", 16, "want CHcK"},
		{"cnn2d:4x4x1:relu:2c3::1", 16, "number of outputs must be ≥ 2"},
		{"cnn2d:4x4x1:relu:2c3:4:3/2", 16, "3 outputs in the spec but /2"},
		{"cnn2d:4x4x1:relu:2c3:4:3:1", 16, "want cnn2d:HxWxC"},
		{"cnn2d:4x4x1:relu:2c3+bias@4", 16, "bias layer 4 outside 1..2"},
		{"cnn2d:4x4x1:relu:0c3", 16, "channels must be ≥ 1"},
		{"cnn2d:4x4x1:wobble:2c3", 16, "wobble"},
		{"cnn2d:40x40x1:relu:2c3-max17", 1600, "pool size must be in 1..16"},
		{"cnn2d:4096x4096x1:relu:2c9", 4096 * 4096, "exceed 134217728 floats per sample"},
	} {
		_, err := models.Parse(tc.spec, tc.in)
		require.Error(t, err, tc.spec)
		assert.Contains(t, err.Error(), tc.want, tc.spec)
		assert.Contains(t, err.Error(), tc.spec, "the error names the spec")
	}
}

// TestCNN2DSpecRoundTrip: String is a spec that Parse reads back to the
// same network; "/K" and ":K" name the same outputs, "same" is the default.
func TestCNN2DSpecRoundTrip(t *testing.T) {
	for _, tc := range []struct{ spec, canonical string }{
		{"cnn2d:6x6x2:relu:3c3-valid-max2:4:3", "cnn2d:6x6x2:relu:3c3-valid-max2:4:3"},
		{"cnn2d:6x6x2:relu:3c3-valid-max2:4/3", "cnn2d:6x6x2:relu:3c3-valid-max2:4:3"},
		{"cnn2d:6x6x2:relu:3c3-same-avg3/3", "cnn2d:6x6x2:relu:3c3-avg3::3"},
		{"cnn2d:6x6x2:relu:3c3s2::3+bias@1", "cnn2d:6x6x2:relu:3c3s2::3+bias@1"},
		{"cnn2d:6x6x2:relu:3c3:5", "cnn2d:6x6x2:relu:3c3:5"},
	} {
		m := mustParse(t, tc.spec, 72)
		assert.Equal(t, tc.canonical, m.String(), tc.spec)
		again := mustParse(t, m.String(), 72)
		assert.Equal(t, m.Describe(), again.Describe(), tc.spec)
		assert.Equal(t, m.NumParams(), again.NumParams(), tc.spec)
	}
}

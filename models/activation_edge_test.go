package models_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/models"
)

// TestActivationParameterRange: a leaky slope must lie in the open interval
// (0, 1) and a ReLU power in [1, 8] (validate's doc), at both ends, for
// every constructor that takes an activation.
func TestActivationParameterRange(t *testing.T) {
	for _, tc := range []struct {
		act models.Activation
		ok  bool
	}{
		{models.ActLeaky(0), false}, {models.ActLeaky(1), false}, {models.ActLeaky(0.5), true},
		{models.ActReLUPow(0), false}, {models.ActReLUPow(1), true}, {models.ActReLUPow(8), true}, {models.ActReLUPow(9), false},
	} {
		_, err := models.NewMLP(models.MLPConfig{In: 2, Hidden: []int{3}, Out: 1, Act: tc.act})
		assert.Equal(t, tc.ok, err == nil, "MLP %v: %v", tc.act, err)
		_, err = models.NewCNN(models.CNNConfig{In: 4, Convs: []models.ConvSpec{{Channels: 1, Kernel: 2}}, Out: 1, Act: tc.act})
		assert.Equal(t, tc.ok, err == nil, "CNN %v: %v", tc.act, err)
	}
}

// TestReLUPowOne: ReLU to the power 1, built directly (the spec "relu1"
// reads as plain ReLU), is ReLU, with the kink convention σ′(0) = σ′(0⁻) = 0.
func TestReLUPowOne(t *testing.T) {
	m, err := models.NewMLP(models.MLPConfig{In: 1, Hidden: []int{1}, Out: 1, Act: models.ActReLUPow(1)})
	require.NoError(t, err)
	// Φ(θ; x) = v·σ(w·x), θ = (w, v) = (0, 2), x = 1: pre-activation 0.
	theta := []float64{0, 2}
	ws := m.NewWorkspace(1)
	assert.Equal(t, 0.0, m.Forward(ws, theta, []float64{1}, 1)[0])
	grad := make([]float64, 2)
	m.Backward(ws, theta, []float64{1}, grad)
	assert.Equal(t, []float64{0, 0}, grad)
	// And σ(z) = z, σ′ = 1 for z > 0: θ = (0.5, 2) gives Φ = 1, ∂Φ/∂w = 2.
	theta = []float64{0.5, 2}
	assert.Equal(t, 1.0, m.Forward(ws, theta, []float64{1}, 1)[0])
	m.Backward(ws, theta, []float64{1}, grad)
	assert.Equal(t, []float64{2, 0.5}, grad)
}

// TestCNNOneChannel: a convolution stage with a single channel builds, as
// does a CNN on a single input position (In = 1, kernel 1).
func TestCNNOneChannel(t *testing.T) {
	m, err := models.NewCNN(models.CNNConfig{In: 5, Convs: []models.ConvSpec{{Channels: 1, Kernel: 2}}, Out: 1, Act: models.ActReLU})
	require.NoError(t, err)
	assert.Equal(t, 2+4, m.NumParams()) // kernel 2, then a dense 4 → 1
	m, err = models.NewCNN(models.CNNConfig{In: 1, Convs: []models.ConvSpec{{Channels: 3, Kernel: 1}}, Out: 1, Act: models.ActReLU})
	require.NoError(t, err)
	assert.Equal(t, 3+3, m.NumParams())
}

// TestCNNInitScale: Init draws a convolution's weights from N(0, 1/(K·Cin))
// and its biases from N(0, 1) (initParams' doc). With K = 3, Cin = 4 and 64
// filters the 768 weights' sample standard deviation is 1/√12 to within
// 4 standard errors (σ/√(2n) = 2.6%: 10%); the 64 biases' to within 4·9%.
func TestCNNInitScale(t *testing.T) {
	m, err := models.NewCNN(models.CNNConfig{In: 6, InChannels: 4, Convs: []models.ConvSpec{{Channels: 64, Kernel: 3}}, Out: 1, Act: models.ActReLU, Bias: true})
	require.NoError(t, err)
	theta := make([]float64, m.NumParams())
	m.Init(rand.New(rand.NewPCG(1, 2)), theta)
	b := m.Blocks()[0]
	conv := theta[b.Offset : b.Offset+b.Len]
	require.Equal(t, 64*4*3+64, len(conv))
	sd := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x * x
		}
		return math.Sqrt(s / float64(len(v)))
	}
	assert.InDelta(t, 1/math.Sqrt(12), sd(conv[:768]), 0.1/math.Sqrt(12))
	assert.InDelta(t, 1, sd(conv[768:]), 0.36)
}

// TestDegreeString: block degrees print in full ('g', shortest exact):
// 10 and 1.5, not rounded to one digit.
func TestDegreeString(t *testing.T) {
	d := models.Degree{Homogeneous: true, Order: 11.5, Blocks: []float64{10, 1.5}}
	assert.Equal(t, "L=11.5 (blocks 10+1.5)", d.String())
	assert.Equal(t, "not homogeneous: bias", models.Degree{Reason: "bias"}.String())
}

// TestMaxPoolTie: in a window whose maximum is attained twice, the gradient
// goes to the first maximum (the left-most position), one deterministic
// choice of subgradient, like σ′(0) = σ′(0⁻) for the activations.
func TestMaxPoolTie(t *testing.T) {
	// One filter of width 1 (weight w), ReLU, max pool of 2, then one
	// output weight v: Φ = v·max(relu(w x₁), relu(w x₂)), θ = (w, v).
	m, err := models.NewCNN(models.CNNConfig{In: 2, Convs: []models.ConvSpec{{Channels: 1, Kernel: 1, Pool: models.MaxPool, PoolSize: 2}}, Out: 1, Act: models.ActReLU})
	require.NoError(t, err)
	require.Equal(t, 2, m.NumParams())
	ws := m.NewWorkspace(1)
	theta := []float64{2, 3}
	x := []float64{1.5, 1.5}
	assert.Equal(t, 9.0, m.Forward(ws, theta, x, 1)[0])
	grad := make([]float64, 2)
	m.Backward(ws, theta, []float64{1}, grad)
	// ∂Φ/∂w = v·x_first = 4.5 whichever maximum, ∂Φ/∂v = 3: the same for
	// both choices here, so check the pattern too: the first maximum's
	// offset (0) and not the second's.
	assert.Equal(t, []float64{4.5, 3}, grad)
	x2 := []float64{1.5, 1.0} // unique maximum at offset 0
	m.Forward(ws, theta, x2, 1)
	want := m.Pattern(ws, nil)
	m.Forward(ws, theta, x, 1)
	assert.Equal(t, want, m.Pattern(ws, nil))
}

// TestMexicanHatInit: Init starts on the curve ψ = 0 of LL Thm I.1 with
// ρ = 1 (its doc): θ = (r cos φ, r sin φ, √(1 − r²)) with r ∈ [0.3, 0.6] and
// φ = 1/(1 − r²), so ‖θ‖ = 1 and the angle of (θ₀, θ₁) is 1/(1 − r²) mod 2π.
func TestMexicanHatInit(t *testing.T) {
	m, err := models.NewMexicanHat(2, 1, models.HatInvariant)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	theta := make([]float64, 3)
	for i := 0; i < 20; i++ {
		m.Init(r, theta)
		rr := math.Hypot(theta[0], theta[1])
		assert.True(t, rr >= 0.3 && rr <= 0.6, "r = %g", rr)
		assert.InDelta(t, 1, math.Sqrt(rr*rr+theta[2]*theta[2]), 1e-15)
		phi := 1 / (1 - rr*rr)
		assert.InDelta(t, math.Cos(phi), theta[0]/rr, 1e-13)
		assert.InDelta(t, math.Sin(phi), theta[1]/rr, 1e-13)
	}
}

// TestParseEmptyParts: the family is the text before the first option, so
// a spec that starts with an option has an empty family; an option is the
// text up to the next "/" or "+", so "/" followed at once by another option
// is an empty number of outputs. Both are named in the error.
func TestParseEmptyParts(t *testing.T) {
	for _, tc := range []struct{ spec, msg string }{
		{"/3", `unknown model family ""`},
		{"+bias", `unknown model family ""`},
		{"mlp:relu:2x3/+bias", `number of outputs "" is not an integer`},
		{"mlp:relu:2x3//2", `number of outputs "" is not an integer`},
	} {
		_, err := models.Parse(tc.spec, 2)
		assert.ErrorContains(t, err, tc.msg, tc.spec)
	}
}

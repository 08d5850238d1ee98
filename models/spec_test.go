package models_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/models"
)

// Parameter counts below are worked out by hand from the layer shapes: a
// dense layer a→b has a·b weights (+ b biases), a conv layer with Cin input
// channels, Cout filters of width K has Cout·K·Cin weights (+ Cout biases).
var parseTests = []struct {
	spec    string
	in      int
	params  int
	out     int
	str     string // String(); "" means the spec itself
	nBlocks int
}{
	{spec: "linear", in: 5, params: 5, out: 1, nBlocks: 1},
	{spec: "linear/3", in: 5, params: 15, out: 3, nBlocks: 1},
	{spec: "linear+bias", in: 4, params: 5, out: 1, nBlocks: 1},
	// 4·4 + 4·4 + 4·1.
	{spec: "deeplinear:3", in: 4, params: 36, out: 1, nBlocks: 3},
	// 4·5 + 5·5 + 5·1; the width differs from the input, so it prints as an
	// identity MLP.
	{spec: "deeplinear:3x5", in: 4, params: 50, out: 1, str: "mlp:id:3x5", nBlocks: 3},
	{spec: "deeplinear:3x4", in: 4, params: 36, out: 1, str: "deeplinear:3", nBlocks: 3},
	{spec: "deeplinear:1", in: 4, params: 4, out: 1, str: "linear", nBlocks: 1},
	// 3·16 + 16.
	{spec: "mlp:relu:2x16", in: 3, params: 64, out: 1, nBlocks: 2},
	// 3·8 + 8·8 + 8.
	{spec: "mlp:relu2:3x8", in: 3, params: 96, out: 1, nBlocks: 3},
	{spec: "mlp:quad:2x8", in: 3, params: 32, out: 1, nBlocks: 2},
	// 3·4 + 4·4 + 4.
	{spec: "mlp:lrelu0.2:3x4", in: 3, params: 32, out: 1, nBlocks: 3},
	{spec: "mlp:lrelu:2x4", in: 2, params: 12, out: 1, str: "mlp:lrelu0.1:2x4", nBlocks: 2},
	{spec: "mlp:linear:2x4", in: 2, params: 12, out: 1, str: "mlp:id:2x4", nBlocks: 2},
	{spec: "mlp:relu1:2x4", in: 2, params: 12, out: 1, str: "mlp:relu:2x4", nBlocks: 2},
	// 2·4 + 4·3 + 3.
	{spec: "mlp:relu:4-3", in: 2, params: 23, out: 1, nBlocks: 3},
	{spec: "mlp:relu:4-4", in: 2, params: 28, out: 1, str: "mlp:relu:3x4", nBlocks: 3},
	// (3·8 + 8) + (8·8 + 8) + (8 + 1).
	{spec: "mlp:relu:3x8+bias", in: 3, params: 113, out: 1, nBlocks: 3},
	// 3·8 + (8·8 + 8) + 8.
	{spec: "mlp:relu:3x8+bias@2", in: 3, params: 104, out: 1, nBlocks: 3},
	// (2·4 + 4) + 4·3, options in either order.
	{spec: "mlp:relu:2x4+bias@1/3", in: 2, params: 24, out: 3, str: "mlp:relu:2x4/3+bias@1", nBlocks: 2},
	{spec: "mlp:relu:2x4/3+bias@1", in: 2, params: 24, out: 3, nBlocks: 2},
	{spec: "mlp:tanh:2x8", in: 3, params: 32, out: 1, nBlocks: 2},
	{spec: "mlp:softplus:3x2/4", in: 3, params: 18, out: 4, nBlocks: 3},
	// conv 4·3·1 = 12 (16 → 14 positions, max2 → 7), conv 4·3·4 = 48
	// (7 → 5, avg2 → 2, flatten 2·4 = 8), dense 8·8 = 64, output 8.
	{spec: "cnn:relu:4c3-max2,4c3-avg2:8", in: 16, params: 132, out: 1, nBlocks: 4},
	// 12 inputs = 6 positions × 2 channels: conv 2·2·2 = 8 (stride 2:
	// (6−2)/2+1 = 3 positions, flatten 6), dense 6·4 = 24, output 4.
	{spec: "cnn:relu:2c2s2:4@2", in: 12, params: 36, out: 1, nBlocks: 3},
	// conv 3·2 = 6 (5 → 4 positions, flatten 12), output 12.
	{spec: "cnn:relu:3c2", in: 5, params: 18, out: 1, nBlocks: 2},
	{spec: "cnn:relu:3c2s1", in: 5, params: 18, out: 1, str: "cnn:relu:3c2", nBlocks: 2},
	{spec: "cnn:relu:3c2@1", in: 5, params: 18, out: 1, str: "cnn:relu:3c2", nBlocks: 2},
	// conv 2·3 = 6 (9 → 7, max2 → 3, flatten 6), output 6·3 = 18.
	{spec: "cnn:quad:2c3-max2/3", in: 9, params: 24, out: 3, nBlocks: 2},
	// conv 2·3·3 = 18 (+2), 4 → 2 positions, flatten 4, output 4 (+1).
	{spec: "cnn:lrelu0.5:2c3@3+bias", in: 12, params: 25, out: 1, nBlocks: 2},
}

func TestParse(t *testing.T) {
	for _, tc := range parseTests {
		m, err := models.Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		want := tc.str
		if want == "" {
			want = tc.spec
		}
		assert.Equal(t, want, m.String(), tc.spec)
		assert.Equal(t, tc.in, m.In(), tc.spec)
		assert.Equal(t, tc.out, m.Out(), tc.spec)
		assert.Equal(t, tc.params, m.NumParams(), tc.spec)

		// Blocks tile θ in order.
		blocks := m.Blocks()
		assert.Len(t, blocks, tc.nBlocks, tc.spec)
		off := 0
		for _, b := range blocks {
			assert.Equal(t, off, b.Offset, "%s: block %s", tc.spec, b.Name)
			assert.Positive(t, b.Len, "%s: block %s", tc.spec, b.Name)
			off += b.Len
		}
		assert.Equal(t, m.NumParams(), off, tc.spec)

		// Round trip: the printed spec builds the same network, down to
		// the parameter layout (equal outputs on the same θ).
		m2, err := models.Parse(m.String(), tc.in)
		require.NoError(t, err, "%s: reparsing %q", tc.spec, m.String())
		assert.Equal(t, m.String(), m2.String(), tc.spec)
		assert.Equal(t, m.NumParams(), m2.NumParams(), tc.spec)
		assert.Equal(t, m.Out(), m2.Out(), tc.spec)
		assert.Equal(t, m.Degree(), m2.Degree(), tc.spec)
		assert.Equal(t, m.Describe(), m2.Describe(), tc.spec)

		r := rand.New(rand.NewPCG(1, 1))
		theta := make([]float64, m.NumParams())
		m.Init(r, theta)
		x := randVec(r, 3*tc.in)
		y1 := append([]float64(nil), m.Forward(m.NewWorkspace(3), theta, x, 3)...)
		y2 := m2.Forward(m2.NewWorkspace(3), theta, x, 3)
		assert.Equal(t, y1, y2, tc.spec) // same code on the same numbers: bit-identical
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
		msg  string // a substring naming the problem
	}{
		{"", 3, "unknown model family"},
		{"resnet:3", 3, `unknown model family "resnet"`},
		{"mlp:relu:2x8", 0, "input dimension must be ≥ 1"},
		{"linear:3", 3, "linear takes no arguments"},
		{"deeplinear", 3, "want deeplinear:H"},
		{"deeplinear:0", 3, "depth must be ≥ 1"},
		{"deeplinear:2x0", 3, "width must be ≥ 1"},
		{"mlp:relu", 3, "want mlp:ACT"},
		{"mlp:relu:2x8:4", 3, "want mlp:ACT"},
		{"mlp:relu:2x0", 3, "width must be ≥ 1"},
		{"mlp:relu:0x8", 3, "depth must be ≥ 1"},
		{"mlp:relu:4-0-3", 3, "width must be ≥ 1"},
		{"mlp:relu:-3", 3, `width "" is not an integer`},
		{"mlp:foo:2x8", 3, `unknown activation "foo"`},
		{"mlp::2x8", 3, `unknown activation ""`},
		{"mlp:lrelu2:2x8", 3, "leaky slope must be a number in (0, 1)"},
		{"mlp:lrelu1:2x8", 3, "leaky slope"},
		{"mlp:lrelu0:2x8", 3, "leaky slope"},
		{"mlp:lrelu-0.5:2x8", 3, "leaky slope"},
		{"mlp:lreluabc:2x8", 3, "leaky slope"},
		{"mlp:relu0:2x8", 3, "ReLU power must be an integer in [1, 8]"},
		{"mlp:relu9:2x8", 3, "ReLU power"},
		{"mlp:relu2.5:2x8", 3, "ReLU power"},
		{"mlp:relu:2x16abc", 3, `width "16abc" is not an integer`},
		{"mlp:relu:2x3x4", 3, "not an integer"},
		{"mlp:relu:2x8/1", 3, "number of outputs must be ≥ 2"},
		{"mlp:relu:2x8/", 3, "number of outputs"},
		{"mlp:relu:2x8/3x", 3, "number of outputs"},
		{"mlp:relu:2x8+", 3, `unknown option "+"`},
		{"mlp:relu:2x8+biased", 3, "unknown option"},
		{"mlp:relu:2x8+bias@0", 3, "bias layer must be ≥ 1"},
		{"mlp:relu:2x8+bias@x", 3, "bias layer"},
		{"mlp:relu:2x8+bias@9", 3, "bias layer 9 outside 1..2"},
		{"linear+bias@2", 3, "bias layer 2 outside 1..1"},
		{"mlp:relu:2x99999999", 3, "too large"},
		// 1000·2^20 weights in the first layer exceed the 2^27 cap.
		{"mlp:relu:2x1048576", 1000, "more than"},
		{"mlp:relu:1048576-1048576", 2, "more than"},
		{"cnn:relu", 8, "want cnn:ACT"},
		{"cnn:relu:4c3:8:2", 8, "want cnn:ACT"},
		{"cnn:tan:4c3", 8, "unknown activation"},
		{"cnn:relu:4c9", 8, "kernel ≤ 8"},
		{"cnn:relu:4c3,4c7", 8, "conv stage 2"},
		{"cnn:relu:4c3-max9", 8, "pool size must be in 1..6"},
		{"cnn:relu:4c3-avg0", 8, "pool size must be ≥ 1"},
		{"cnn:relu:4c3-med2", 8, "pooling must be maxP or avgP"},
		{"cnn:relu:4x3", 8, "want CHcK"},
		{"cnn:relu:0c3", 8, "channels must be ≥ 1"},
		{"cnn:relu:4c0", 8, "kernel must be ≥ 1"},
		{"cnn:relu:4c3s0", 8, "stride must be ≥ 1"},
		{"cnn:relu:4c3:0", 8, "dense width must be ≥ 1"},
		{"cnn:relu:4c3:4-", 8, "dense width"},
		{"cnn:relu:2c2@3", 8, "input dimension 8 is not a multiple of 3 channels"},
		{"cnn:relu:2c2@0", 8, "input channels must be ≥ 1"},
		{"cnn:relu:2c2+bias@3", 8, "bias layer 3 outside 1..2"},
		// 200 positions · 2^20 channels exceed the 2^27 cap on units.
		{"cnn:relu:1048576c1", 200, "more than"},
	} {
		var (
			m   *models.Network
			err error
		)
		require.NotPanics(t, func() { m, err = models.Parse(tc.spec, tc.in) }, tc.spec)
		if assert.Error(t, err, "%q on %d inputs", tc.spec, tc.in) {
			assert.Contains(t, err.Error(), tc.msg, tc.spec)
		}
		assert.Nil(t, m, tc.spec)
	}
}

// FuzzParse checks that no spec string makes Parse panic, and that what it
// accepts round-trips and runs.
func FuzzParse(f *testing.F) {
	for _, tc := range parseTests {
		f.Add(tc.spec, tc.in)
	}
	f.Add("cnn:relu:1c1:1-1-1", 1)
	f.Add("mlp:relu:2x8+bias@1+bias@2/7", 4)
	f.Fuzz(func(t *testing.T, spec string, in int) {
		in = 1 + abs(in)%20
		m, err := models.Parse(spec, in)
		if err != nil {
			if m != nil {
				t.Fatalf("%q: error %v with a network", spec, err)
			}
			return
		}
		m2, err := models.Parse(m.String(), in)
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", spec, m.String(), err)
		}
		if m2.String() != m.String() || m2.NumParams() != m.NumParams() {
			t.Fatalf("%q: round trip %q → %q", spec, m.String(), m2.String())
		}
		if m.NumParams() > 10000 {
			return // large but valid: do not spend memory on it
		}
		theta := make([]float64, m.NumParams())
		m.Init(rand.New(rand.NewPCG(1, 1)), theta)
		x := make([]float64, in)
		for i := range x {
			x[i] = float64(i%3) - 1
		}
		ws := m.NewWorkspace(1)
		m.Forward(ws, theta, x, 1)
		gOut := make([]float64, m.Out())
		gOut[0] = 1
		m.Backward(ws, theta, gOut, make([]float64, m.NumParams()))
	})
}

func abs(v int) int {
	if v < 0 {
		if v == -v { // math.MinInt
			return 0
		}
		return -v
	}
	return v
}

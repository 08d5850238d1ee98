package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refNTK evaluates ZD eq. (8) from the spec's own numbers, sharing nothing
// with the package but the layout of θ (W^0, b^0, …, W^L, b^L, row-major):
// h = W x/√d_in + β b per layer, σ between them, and the output layer
// scaled by 1/d_L instead of 1/√d_L when meanField.
func refNTK(in int, hidden []int, beta float64, meanField bool, act func(float64) float64, theta, x []float64) float64 {
	dims := append(append([]int{in}, hidden...), 1)
	cur := append([]float64(nil), x...)
	off := 0
	for l := 0; l+1 < len(dims); l++ {
		dIn, dOut := dims[l], dims[l+1]
		w := theta[off : off+dIn*dOut]
		b := theta[off+dIn*dOut : off+dIn*dOut+dOut]
		off += dIn*dOut + dOut
		scale := 1 / math.Sqrt(float64(dIn))
		if meanField && l == len(hidden) {
			scale = 1 / float64(dIn)
		}
		next := make([]float64, dOut)
		for j := range next {
			var s float64
			for k := 0; k < dIn; k++ {
				s += w[j*dIn+k] * cur[k]
			}
			next[j] = s*scale + beta*b[j]
			if l < len(hidden) {
				next[j] = act(next[j])
			}
		}
		cur = next
	}
	return cur[0]
}

// TestNTKScaling: the forward pass is ZD eq. (8) with the factors 1/√d_l
// of every layer (1/d_L at the output of a mean-field net), checked against
// refNTK (tanh) at a random θ with W^L ≠ 0, for uniform and non-uniform
// widths and both scalings: a few ulps, 1e-13.
func TestNTKScaling(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	for _, tc := range []struct {
		spec      string
		hidden    []int
		beta      float64
		meanField bool
	}{
		{"ntk:tanh:2x4", []int{4, 4}, 0.1, false},
		{"ntk:tanh:3-5:beta=0.5", []int{3, 5}, 0.5, false},
		{"ntk:tanh:2x4:meanfield", []int{4, 4}, 0.1, true},
		{"ntk:tanh:6:gauss:meanfield", []int{6}, 0.1, true},
	} {
		net := mustNTK(t, tc.spec)
		theta := randomTheta(r, net.NumParams(), 0.9)
		x := unitBall(r, 3, 3)
		out := net.Forward(net.NewWorkspace(3), theta, x, 3)
		for i := 0; i < 3; i++ {
			want := refNTK(3, tc.hidden, tc.beta, tc.meanField, math.Tanh, theta, x[i*3:(i+1)*3])
			assert.InDelta(t, want, out[i], 1e-13, tc.spec)
		}
	}
}

// TestNTKShapes: an input of dimension 1 is allowed; the blocks are W^l
// (d_{l+1}·d_l entries) and b^l (d_{l+1}) in order and tile θ; a net at
// exactly maxParams parameters builds and one more does not.
func TestNTKShapes(t *testing.T) {
	net, err := NewNTK(NTKConfig{In: 1, Hidden: []int{3, 2}, Act: ActTanh, Beta: 1})
	require.NoError(t, err)
	bs := net.Blocks()
	want := []int{3, 3, 6, 2, 2, 1}
	require.Len(t, bs, len(want))
	off := 0
	for i, b := range bs {
		assert.Equal(t, off, b.Offset, b.Name)
		assert.Equal(t, want[i], b.Len, b.Name)
		off += b.Len
	}
	assert.Equal(t, net.NumParams(), off)
	// One hidden layer of width w on d inputs: d·w + w + w + 1 parameters.
	// d = 2^20 − 3 and w = 128 give 2^27 − 384 + 257 = 2^27 − 127, under
	// maxParams = 2^27; w = 129 gives 2^27 + 2^20 + …, over it.
	d := 1<<20 - 3
	_, err = NewNTK(NTKConfig{In: d, Hidden: []int{128}, Act: ActTanh, Beta: 1})
	assert.NoError(t, err)
	_, err = NewNTK(NTKConfig{In: d, Hidden: []int{129}, Act: ActTanh, Beta: 1})
	assert.ErrorContains(t, err, "parameters")
	// Exactly maxParams: d·w + 2w + 1 = 2^27 with w = 1: d = 2^27 − 3.
	_, err = NewNTK(NTKConfig{In: maxParams - 3, Hidden: []int{1}, Act: ActTanh, Beta: 1})
	assert.NoError(t, err)
	_, err = NewNTK(NTKConfig{In: maxParams - 2, Hidden: []int{1}, Act: ActTanh, Beta: 1})
	assert.Error(t, err)
	// β must be > 0 in the config too: 0, negative, infinite, NaN.
	for _, beta := range []float64{0, -1, math.Inf(1), math.NaN()} {
		_, err = NewNTK(NTKConfig{In: 2, Hidden: []int{3}, Act: ActTanh, Beta: beta})
		assert.ErrorContains(t, err, "β must be a finite number > 0", "β = %v", beta)
	}
	// β = 0 in a spec is named as the spec wrote it.
	_, err = ParseNTK("ntk:tanh:2x3:beta=0", 3)
	assert.ErrorContains(t, err, `β must be a finite number > 0, got "0"`)
}

// TestNTKKernelOverwrites: Kernel writes dst, whatever it held before.
func TestNTKKernelOverwrites(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	net := mustNTK(t, "ntk:softplus:2x4:gauss")
	theta := randomTheta(r, net.NumParams(), 0.8)
	xa, xb := unitBall(r, 2, 3), unitBall(r, 3, 3)
	clean := make([]float64, 6)
	net.Kernel(theta, xa, 2, xb, 3, clean)
	dirty := []float64{math.NaN(), 5, -7, math.Inf(1), 1e300, 3}
	net.Kernel(theta, xa, 2, xb, 3, dirty)
	assert.Equal(t, clean, dirty)
}

// TestLinearizedBatches: a linearized model's workspace gives the same
// outputs for a batch and for a smaller batch of its leading rows (the pass
// at θ₀ it caches is per batch, not per leading rows), and the output
// bias's gradient is β·Σ g_i (∂f/∂b^L = β) on the zero-last-layer path.
func TestLinearizedBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	net := mustNTK(t, "ntk:gelu:2x5:beta=0.5")
	theta0 := make([]float64, net.NumParams())
	net.Init(r, theta0)
	lin, err := NewLinearized(net, theta0)
	require.NoError(t, err)
	theta := append([]float64(nil), theta0...)
	for i := range theta {
		theta[i] += 0.1 * r.NormFloat64()
	}
	x := unitBall(r, 4, 3)
	ws := lin.NewWorkspace(4)
	lin.Forward(ws, theta, x, 4)
	got := append([]float64(nil), lin.Forward(ws, theta, x[:6], 2)...)
	fresh := lin.Forward(lin.NewWorkspace(4), theta, x[:6], 2)
	assert.Equal(t, fresh, got)

	g := []float64{0.3, -1, 2, 0.5}
	grad := make([]float64, lin.NumParams())
	lin.Forward(ws, theta, x, 4)
	lin.Backward(ws, theta, g, grad)
	assert.InDelta(t, 0.5*(0.3-1+2+0.5), grad[len(grad)-1], 1e-15)
	last, err := lin.LastLayerOnly()
	require.NoError(t, err)
	lb := last.Blocks()
	nb := net.Blocks()
	assert.Equal(t, nb[len(nb)-2].Name, lb[0].Name)
	assert.Equal(t, nb[len(nb)-1].Name, lb[1].Name)
}

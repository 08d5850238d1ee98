package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
)

// ntkCases are small NTK networks over the three activations of ZD
// Assumption 2, both initializations and both output scalings.
var ntkCases = []string{
	"ntk:softplus:1x5",
	"ntk:tanh:2x4",
	"ntk:gelu:3-5-2:beta=0.5",
	"ntk:softplus:2x3:gauss",
	"ntk:gelu:1x6:meanfield",
	"ntk:tanh:4-3:beta=1.5:gauss",
}

func unitBall(r *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = r.NormFloat64()
		}
		floats.Scale(r.Float64()/floats.Norm(row, 2), row)
	}
	return x
}

func TestParseNTK(t *testing.T) {
	for _, s := range ntkCases {
		net, err := ParseNTK(s, 3)
		require.NoError(t, err, s)
		assert.Equal(t, s, net.String())
		assert.False(t, net.Degree().Homogeneous)
	}
	net, err := ParseNTK("ntk:softplus:2x8", 4)
	require.NoError(t, err)
	assert.Equal(t, []int{8, 8}, net.Hidden())
	assert.Equal(t, 4*8+8+8*8+8+8+1, net.NumParams())
	assert.Equal(t, DefaultNTKBeta, net.Beta())
	blocks := net.Blocks()
	require.Len(t, blocks, 6)
	assert.Equal(t, net.NumParams(), blocks[5].Offset+blocks[5].Len)
	for _, bad := range []string{"ntk:softplus", "ntk:foo:2x3", "ntk:tanh:0x3", "ntk:tanh:2x3:beta=0", "ntk:tanh:2x3:beta=-1", "ntk:tanh:2x3:wat", "mlp:tanh:2x3", "ntk:tanh:3-x"} {
		_, err := ParseNTK(bad, 3)
		assert.Error(t, err, bad)
	}
	_, err = NewNTK(NTKConfig{In: 0, Hidden: []int{3}, Act: ActTanh, Beta: 1})
	assert.Error(t, err)
	_, err = NewNTK(NTKConfig{In: 2, Act: ActTanh, Beta: 1})
	assert.Error(t, err)
}

// TestNTKInit checks ZD eq. (9): W^L = 0 and every other parameter drawn;
// the Gaussian last layer shares all other parameters for the same seed.
func TestNTKInit(t *testing.T) {
	zero, _ := ParseNTK("ntk:softplus:2x16", 3)
	gauss, _ := ParseNTK("ntk:softplus:2x16:gauss", 3)
	a := make([]float64, zero.NumParams())
	b := make([]float64, gauss.NumParams())
	zero.Init(rand.New(rand.NewPCG(3, 4)), a)
	gauss.Init(rand.New(rand.NewPCG(3, 4)), b)
	wa, ba := zero.Layer(a, 2)
	wb, bb := gauss.Layer(b, 2)
	for _, v := range wa {
		assert.Equal(t, 0.0, v)
	}
	assert.NotZero(t, floats.Norm(wb, 2))
	assert.Equal(t, ba, bb)
	assert.Equal(t, a[:zero.w[2]], b[:gauss.w[2]])
	// N(0,1) entries: the sample variance of the 16·16 weights of W^1 is 1
	// within 5 standard errors (√(2/256) ≈ 0.09).
	w1, _ := zero.Layer(a, 1)
	assert.InDelta(t, 1, floats.Dot(w1, w1)/float64(len(w1)), 0.45)
	// At ZD's initialization f(x) = β b^L for every x (ZD App. D.3.2).
	x := unitBall(rand.New(rand.NewPCG(1, 1)), 5, 3)
	out := zero.Forward(zero.NewWorkspace(5), a, x, 5)
	for _, v := range out {
		assert.Equal(t, zero.Beta()*ba[0], v)
	}
}

// naiveNTK evaluates ZD eq. (8) sample by sample with explicit loops.
func naiveNTK(net *NTK, theta, x []float64) float64 {
	in := append([]float64(nil), x...)
	L := net.Depth()
	for l := 0; l <= L; l++ {
		w, b := net.Layer(theta, l)
		dIn, dOut := net.dim(l), net.dim(l+1)
		h := make([]float64, dOut)
		for j := range h {
			var s float64
			for k := 0; k < dIn; k++ {
				s += w[j*dIn+k] * in[k]
			}
			h[j] = s*net.factor(l) + net.beta*b[j]
		}
		if l == L {
			return h[0]
		}
		in = make([]float64, dOut)
		net.act.apply(in, nil, h)
	}
	return math.NaN()
}

func randomTheta(r *rand.Rand, p int, scale float64) []float64 {
	th := make([]float64, p)
	for i := range th {
		th[i] = scale * r.NormFloat64()
	}
	return th
}

// TestNTKForwardBackward checks the batched forward pass against a naive
// per-sample evaluation and the backward pass against central finite
// differences (gonum diff/fd) of Σ_i g_i f(x_i) (ENG-grad style), at the
// initialization and at a random θ where W^L ≠ 0.
func TestNTKForwardBackward(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, spec := range ntkCases {
		net, err := ParseNTK(spec, 3)
		require.NoError(t, err)
		n := 4
		x := unitBall(r, n, 3)
		g := []float64{0.7, -1.1, 0.3, 1.9}
		init := make([]float64, net.NumParams())
		net.Init(r, init)
		for _, theta := range [][]float64{init, randomTheta(r, net.NumParams(), 0.8)} {
			ws := net.NewWorkspace(n)
			out := net.Forward(ws, theta, x, n)
			for i := 0; i < n; i++ {
				// Different summation order: a few ulps of the terms.
				assert.InDelta(t, naiveNTK(net, theta, x[i*3:(i+1)*3]), out[i], 1e-13, spec)
			}
			grad := make([]float64, net.NumParams())
			net.Backward(ws, theta, g, grad)
			obj := func(th []float64) float64 {
				var s float64
				for i := 0; i < n; i++ {
					s += g[i] * naiveNTK(net, th, x[i*3:(i+1)*3])
				}
				return s
			}
			// Central differences with h = 1e-6 on C^∞ activations:
			// truncation h²|f‴|/6 ≈ 1e-13, rounding ε|f|/h ≈ 1e-10.
			want := fd.Gradient(nil, obj, theta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			diff := make([]float64, len(want))
			floats.SubTo(diff, grad, want)
			assert.Less(t, floats.Norm(diff, 2), 1e-7*math.Max(1, floats.Norm(want, 2)), spec)
		}
	}
}

// TestNTKZeroLastGradient checks ZD eq. (43)–(44): at W^L = 0 the gradient
// of every layer below the output is exactly 0.
func TestNTKZeroLastGradient(t *testing.T) {
	net, _ := ParseNTK("ntk:gelu:2x8", 3)
	theta := make([]float64, net.NumParams())
	net.Init(rand.New(rand.NewPCG(2, 2)), theta)
	x := unitBall(rand.New(rand.NewPCG(5, 5)), 3, 3)
	grad := make([]float64, net.NumParams())
	net.Forward(net.NewWorkspace(3), theta, x, 3)
	g := NewGrader(net)
	g.Grad(theta, x[:3], 0, grad)
	for _, v := range grad[:net.w[2]] {
		require.Equal(t, 0.0, v)
	}
	wg, bg := net.Layer(grad, 2)
	assert.NotZero(t, floats.Norm(wg, 2))
	assert.Equal(t, net.Beta(), bg[0])
}

// TestNTKKernel compares the factored kernel with ⟨∇f(x), ∇f(x')⟩ from
// explicit Jacobian rows, at the initialization (eq. 44) and at a random θ.
func TestNTKKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, spec := range ntkCases {
		net, _ := ParseNTK(spec, 3)
		init := make([]float64, net.NumParams())
		net.Init(r, init)
		xa, xb := unitBall(r, 3, 3), unitBall(r, 4, 3)
		for _, theta := range [][]float64{init, randomTheta(r, net.NumParams(), 0.8)} {
			k := make([]float64, 12)
			net.Kernel(theta, xa, 3, xb, 4, k)
			g := NewGrader(net)
			ga, gb := make([]float64, net.NumParams()), make([]float64, net.NumParams())
			for i := 0; i < 3; i++ {
				g.Grad(theta, xa[i*3:(i+1)*3], 0, ga)
				for j := 0; j < 4; j++ {
					g.Grad(theta, xb[j*3:(j+1)*3], 0, gb)
					want := floats.Dot(ga, gb)
					assert.InDelta(t, want, k[i*4+j], 1e-12*math.Max(1, math.Abs(want)), spec)
				}
			}
		}
	}
}

// TestLinearized checks ZD eq. (11): f_lin(θ₀) = f(θ₀); f_lin(θ₀ + δ) =
// f(θ₀) + ⟨δ, ∇f(θ₀)⟩ with the gradient from the Grader; Backward gives
// Σ g_i ∇f(x_i; θ₀) at any θ; and the zero-last-layer shortcut agrees with
// the general tangent pass.
func TestLinearized(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for _, spec := range ntkCases {
		net, _ := ParseNTK(spec, 3)
		theta0 := make([]float64, net.NumParams())
		net.Init(r, theta0)
		lin, err := NewLinearized(net, theta0)
		require.NoError(t, err)
		assert.Equal(t, net.LastLayer() == ZeroLast, lin.zeroLast, spec)
		n := 5
		x := unitBall(r, n, 3)
		delta := randomTheta(r, net.NumParams(), 0.3)
		theta := append([]float64(nil), theta0...)
		floats.Add(theta, delta)

		ws := lin.NewWorkspace(n)
		f0 := append([]float64(nil), net.Forward(net.NewWorkspace(n), theta0, x, n)...)
		assert.Equal(t, f0, lin.Forward(ws, theta0, x, n)[:n], spec)
		got := append([]float64(nil), lin.Forward(ws, theta, x, n)...)
		g := NewGrader(net)
		grad := make([]float64, net.NumParams())
		gsum := make([]float64, net.NumParams())
		gOut := []float64{0.5, -1, 2, 0.25, -0.75}
		for i := 0; i < n; i++ {
			g.Grad(theta0, x[i*3:(i+1)*3], 0, grad)
			want := f0[i] + floats.Dot(delta, grad)
			assert.InDelta(t, want, got[i], 1e-12*math.Max(1, math.Abs(want)), spec)
			floats.AddScaled(gsum, gOut[i], grad)
		}
		lg := make([]float64, net.NumParams())
		lin.Backward(ws, theta, gOut, lg)
		for i := range lg {
			assert.InDelta(t, gsum[i], lg[i], 1e-12*math.Max(1, math.Abs(gsum[i])), spec)
		}
		if lin.zeroLast {
			// The general tangent pass on the same θ₀ gives the same values.
			general := &Linearized{net: net, theta0: lin.theta0}
			gws := general.NewWorkspace(n)
			alt := general.Forward(gws, theta, x, n)
			for i := range alt {
				assert.InDelta(t, got[i], alt[i], 1e-13*math.Max(1, math.Abs(got[i])), spec)
			}
			lg2 := make([]float64, net.NumParams())
			general.Backward(gws, theta, gOut, lg2)
			assert.Equal(t, lg, lg2, spec)
		}
		// A changed batch is recomputed, not served from the cache.
		x2 := unitBall(r, n, 3)
		out2 := lin.Forward(ws, theta0, x2, n)
		assert.Equal(t, net.Forward(net.NewWorkspace(n), theta0, x2, n), out2, spec)
	}
	_, err := NewLinearized(mustNTK(t, "ntk:tanh:1x3"), []float64{1})
	assert.Error(t, err)
}

func mustNTK(t *testing.T, spec string) *NTK {
	net, err := ParseNTK(spec, 3)
	require.NoError(t, err)
	return net
}

// TestNTKNoAllocs: Forward and Backward of the network and of its
// linearization do not allocate once the workspace exists.
func TestNTKNoAllocs(t *testing.T) {
	for _, spec := range []string{"ntk:softplus:2x64", "ntk:gelu:2x64:gauss"} {
		net := mustNTK(t, spec)
		theta := make([]float64, net.NumParams())
		net.Init(rand.New(rand.NewPCG(1, 2)), theta)
		x := unitBall(rand.New(rand.NewPCG(3, 3)), 16, 3)
		g := make([]float64, 16)
		for i := range g {
			g[i] = float64(i) - 7.5
		}
		grad := make([]float64, net.NumParams())
		ws := net.NewWorkspace(16)
		assert.Zero(t, testing.AllocsPerRun(10, func() {
			net.Forward(ws, theta, x, 16)
			net.Backward(ws, theta, g, grad)
		}), spec)
		lin, _ := NewLinearized(net, theta)
		lws := lin.NewWorkspace(16)
		theta[3] += 0.1
		assert.Zero(t, testing.AllocsPerRun(10, func() {
			lin.Forward(lws, theta, x, 16)
			lin.Backward(lws, theta, g, grad)
		}), spec)
	}
}

func BenchmarkNTKStep(b *testing.B) {
	for _, spec := range []string{"ntk:softplus:2x256", "ntk:softplus:2x1024"} {
		net, _ := ParseNTK(spec, 4)
		theta := make([]float64, net.NumParams())
		net.Init(rand.New(rand.NewPCG(1, 2)), theta)
		theta[len(theta)-2] = 0.5 // W^L ≠ 0: every layer's gradient is live
		x := unitBall(rand.New(rand.NewPCG(3, 3)), 8, 4)
		g := []float64{1, -1, 1, -1, 1, -1, 1, -1}
		grad := make([]float64, net.NumParams())
		ws := net.NewWorkspace(8)
		b.Run(spec, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				net.Forward(ws, theta, x, 8)
				net.Backward(ws, theta, g, grad)
			}
		})
	}
}

// TestLinearizedLastLayerOnly: with W₀^L = 0, GD-style updates of the
// output layer alone give the same outputs and the same gradient
// coordinates as the full linearization, bit for bit.
func TestLinearizedLastLayerOnly(t *testing.T) {
	net := mustNTK(t, "ntk:gelu:2x16")
	theta0 := make([]float64, net.NumParams())
	net.Init(rand.New(rand.NewPCG(4, 4)), theta0)
	full, _ := NewLinearized(net, theta0)
	last, err := full.LastLayerOnly()
	require.NoError(t, err)
	assert.Equal(t, 17, last.NumParams())
	assert.Len(t, last.Blocks(), 2)
	x := unitBall(rand.New(rand.NewPCG(5, 5)), 4, 3)
	th := append([]float64(nil), theta0...)
	v := make([]float64, last.NumParams())
	last.Init(nil, v)
	assert.Equal(t, theta0[len(theta0)-17:], v)
	wsF, wsL := full.NewWorkspace(4), last.NewWorkspace(4)
	g := []float64{1, -2, 0.5, 0.25}
	gF, gL := make([]float64, len(th)), make([]float64, len(v))
	for step := 0; step < 3; step++ {
		assert.Equal(t, full.Forward(wsF, th, x, 4), last.Forward(wsL, v, x, 4))
		full.Backward(wsF, th, g, gF)
		last.Backward(wsL, v, g, gL)
		assert.Equal(t, gF[len(th)-17:], gL)
		for i := range v {
			v[i] -= 0.1 * gL[i]
			th[len(th)-17+i] -= 0.1 * gF[len(th)-17+i]
		}
	}
	gauss := mustNTK(t, "ntk:gelu:2x16:gauss")
	gauss.Init(rand.New(rand.NewPCG(4, 4)), theta0)
	lg, _ := NewLinearized(gauss, theta0)
	_, err = lg.LastLayerOnly()
	assert.Error(t, err)
}

package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// naiveGD is an independent implementation of a workload's training, as
// plainly as possible: triple loops, the loss summed directly (no log
// domain), the backward pass written out. It shares nothing with the engine
// but the problem's numbers.
func naiveGD(p *Problem, lr float64, steps int) float64 {
	dims := p.Workload.Dims()
	n := p.Workload.N
	// W[l] is dims[l+1]×dims[l], row-major, copied from θ₀.
	var W [][]float64
	off := 0
	for l := 0; l+1 < len(dims); l++ {
		sz := dims[l] * dims[l+1]
		W = append(W, append([]float64(nil), p.Theta0[off:off+sz]...))
		off += sz
	}
	H := len(W)
	forward := func() (acts, zs [][]float64, f []float64) {
		acts = [][]float64{p.X}
		for l := 0; l < H; l++ {
			in, out := dims[l], dims[l+1]
			z := make([]float64, n*out)
			a := make([]float64, n*out)
			for i := 0; i < n; i++ {
				for o := 0; o < out; o++ {
					s := 0.0
					for k := 0; k < in; k++ {
						s += acts[l][i*in+k] * W[l][o*in+k]
					}
					z[i*out+o] = s
					a[i*out+o] = s
					if l < H-1 && s <= 0 {
						a[i*out+o] = 0
					}
				}
			}
			zs = append(zs, z)
			acts = append(acts, a)
		}
		return acts, zs, acts[H]
	}
	loss := func(f []float64) float64 {
		s := 0.0
		for i, v := range f {
			s += math.Exp(-p.Y[i] * v)
		}
		return s
	}
	for t := 0; t < steps; t++ {
		acts, zs, f := forward()
		// g = ∂𝓛/∂f_i = −y_i e^{−y_i f_i}.
		g := make([]float64, n)
		for i, v := range f {
			g[i] = -p.Y[i] * math.Exp(-p.Y[i]*v)
		}
		grads := make([][]float64, H)
		for l := H - 1; l >= 0; l-- {
			in, out := dims[l], dims[l+1]
			gw := make([]float64, out*in)
			for o := 0; o < out; o++ {
				for k := 0; k < in; k++ {
					s := 0.0
					for i := 0; i < n; i++ {
						s += g[i*out+o] * acts[l][i*in+k]
					}
					gw[o*in+k] = s
				}
			}
			grads[l] = gw
			if l > 0 {
				gin := make([]float64, n*in)
				for i := 0; i < n; i++ {
					for k := 0; k < in; k++ {
						s := 0.0
						for o := 0; o < out; o++ {
							s += g[i*out+o] * W[l][o*in+k]
						}
						if zs[l-1][i*in+k] <= 0 { // ReLU′(z) = [z > 0]
							s = 0
						}
						gin[i*in+k] = s
					}
				}
				g = gin
			}
		}
		for l := range W {
			for j := range W[l] {
				W[l][j] -= lr * grads[l][j]
			}
		}
	}
	_, _, f := forward()
	return loss(f)
}

// naiveSteps keeps the naive runs short (W2's naive step is ~0.2 s).
var naiveSteps = map[string]int{"W1": 40, "W2": 2, "W3": 300, "W4": 300}

// issueTol is the issue's agreement criterion for the final loss of two
// implementations started from the same weights: 1e-9 relative. Summation
// order is the only difference; it moves each score by a few ulps per
// layer, and GD on these problems does not amplify that over the runs here
// (the observed differences are ~1e-14).
const issueTol = 1e-9

// TestEngineMatchesNaiveGD: the engine's final loss after N steps equals
// the independent naive implementation's to 1e-9 relative, on every
// workload.
func TestEngineMatchesNaiveGD(t *testing.T) {
	for _, w := range Workloads {
		p, err := w.Generate(1)
		require.NoError(t, err)
		r, err := NewRunner(p)
		require.NoError(t, err)
		steps := naiveSteps[w.Name]
		require.NoError(t, r.Steps(steps))
		got, err := r.Loss()
		require.NoError(t, err)
		want := naiveGD(p, p.LR, steps)
		rel := math.Abs(got-want) / want
		t.Logf("%s after %d steps: engine %.17g, naive %.17g, relative difference %.1e", w.Name, steps, got, want, rel)
		assert.LessOrEqual(t, rel, issueTol, w.Name)
	}
}

// TestEngineMatchesNaiveGD_NegativeControl: the comparison is sensitive
// enough to see a step size off by one part in a million, or one step too
// few.
func TestEngineMatchesNaiveGD_NegativeControl(t *testing.T) {
	for _, w := range []Workload{Workloads[2], Workloads[3]} {
		p, err := w.Generate(1)
		require.NoError(t, err)
		r, err := NewRunner(p)
		require.NoError(t, err)
		steps := naiveSteps[w.Name]
		require.NoError(t, r.Steps(steps))
		got, err := r.Loss()
		require.NoError(t, err)
		for name, want := range map[string]float64{
			"η(1+1e-6)":     naiveGD(p, p.LR*(1+1e-6), steps),
			"one step less": naiveGD(p, p.LR, steps-1),
		} {
			rel := math.Abs(got-want) / want
			assert.Greater(t, rel, issueTol, "%s %s: relative difference %.1e", w.Name, name, rel)
		}
	}
}

// TestStepSizeDecreasesLoss backs the choice η = 1/n (Workload.LR): the
// loss decreases at every one of the first 50 steps.
func TestStepSizeDecreasesLoss(t *testing.T) {
	for _, w := range Workloads {
		p, err := w.Generate(1)
		require.NoError(t, err)
		r, err := NewRunner(p)
		require.NoError(t, err)
		prev, err := r.Loss()
		require.NoError(t, err)
		for s := 1; s <= 50; s++ {
			require.NoError(t, r.Steps(1))
			l, err := r.Loss()
			require.NoError(t, err)
			require.Less(t, l, prev, "%s step %d", w.Name, s)
			prev = l
		}
	}
}

// TestStepBitsIndependentOfThreads: the same θ bits after GD steps with
// GOMAXPROCS 1, 2 and 4 (W2's products are large enough to be split).
func TestStepBitsIndependentOfThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer linalg.SetThreads(linalg.SetThreads(0))
	for _, name := range []string{"W1", "W2"} {
		w, _ := Lookup(name)
		p, err := w.Generate(3)
		require.NoError(t, err)
		var thetas [][]float64
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			r, err := NewRunner(p)
			require.NoError(t, err)
			before := linalg.ParallelProducts()
			require.NoError(t, r.Steps(3))
			if name == "W2" && procs > 1 {
				require.Greater(t, linalg.ParallelProducts(), before, "W2 with GOMAXPROCS %d ran no product on several goroutines", procs)
			}
			thetas = append(thetas, r.Theta)
		}
		for i := 1; i < len(thetas); i++ {
			for j := range thetas[0] {
				if math.Float64bits(thetas[0][j]) != math.Float64bits(thetas[i][j]) {
					t.Fatalf("%s: θ[%d] differs between GOMAXPROCS 1 and %d", name, j, []int{1, 2, 4}[i])
				}
			}
		}
	}
}

// TestStepNoAllocs: a step allocates nothing, on one goroutine or several.
func TestStepNoAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, w := range Workloads {
		p, err := w.Generate(1)
		require.NoError(t, err)
		r, err := NewRunner(p)
		require.NoError(t, err)
		require.NoError(t, r.Steps(2))
		allocs := testing.AllocsPerRun(3, func() { _ = r.Steps(1) })
		assert.Zero(t, allocs, w.Name)
	}
}

func TestProblemJSONRoundTrip(t *testing.T) {
	for _, w := range Workloads {
		p, err := w.Generate(7)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, p.WriteJSON(&buf))
		q, err := ReadProblem(&buf)
		require.NoError(t, err)
		assert.Equal(t, p.Workload, q.Workload)
		for name, pair := range map[string][2][]float64{"x": {p.X, q.X}, "y": {p.Y, q.Y}, "θ": {p.Theta0, q.Theta0}} {
			require.Equal(t, len(pair[0]), len(pair[1]), name)
			for i := range pair[0] {
				require.Equal(t, math.Float64bits(pair[0][i]), math.Float64bits(pair[1][i]), "%s %s[%d]", w.Name, name, i)
			}
		}
		assert.Equal(t, math.Float64bits(p.LR), math.Float64bits(q.LR))
	}
}

func TestReadProblemErrors(t *testing.T) {
	w, _ := Lookup("W4")
	p, err := w.Generate(1)
	require.NoError(t, err)
	encode := func(edit func(*problemJSON)) string {
		pj := problemJSON{Workload: "W4", N: w.N, D: w.D, LR: p.LR, X: p.X, Y: append([]float64(nil), p.Y...), Theta: p.Theta0}
		edit(&pj)
		b, err := json.Marshal(pj)
		require.NoError(t, err)
		return string(b)
	}
	for name, tc := range map[string]struct{ in, msg string }{
		"not JSON":         {"{", "reading problem"},
		"unknown workload": {encode(func(pj *problemJSON) { pj.Workload = "W9" }), "unknown workload"},
		"short θ":          {encode(func(pj *problemJSON) { pj.Theta = pj.Theta[1:] }), "parameters"},
		"short x":          {encode(func(pj *problemJSON) { pj.X = pj.X[1:] }), "inputs"},
		"bad label":        {encode(func(pj *problemJSON) { pj.Y[0] = 3 }), "−1 or +1"},
		"zero step":        {encode(func(pj *problemJSON) { pj.LR = 0 }), "step size"},
	} {
		_, err := ReadProblem(strings.NewReader(tc.in))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.msg, name)
		assert.NotContains(t, err.Error(), "\n", name)
	}
}

func TestLookup(t *testing.T) {
	w, err := Lookup("w2")
	require.NoError(t, err)
	assert.Equal(t, "mlp:relu:4x128", w.Spec())
	assert.Equal(t, []int{50, 128, 128, 128, 1}, w.Dims())
	// The issue's table: ~222 M FLOP per step for W2, ~20 k for W3.
	assert.InDelta(t, 222e6, w.FLOPs(), 2e6)
	w3, _ := Lookup("W3")
	assert.Equal(t, "linear", w3.Spec())
	assert.Equal(t, 20e3, w3.FLOPs())
	_, err = Lookup("W9")
	assert.ErrorContains(t, err, "unknown workload")
}

package numerics_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// separableData draws n unit vectors in ℝ^d labelled by a random unit
// teacher, keeping those with |⟨u, x⟩| ≥ minProj (as the reference does).
func separableData(r *rand.Rand, n, d int, minProj float64) (*mat.Dense, []float64, []float64) {
	u := unit(r, d)
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; {
		v := unit(r, d)
		p := floats.Dot(u, v)
		if math.Abs(p) < minProj {
			continue
		}
		x.SetRow(i, v)
		y[i] = math.Copysign(1, p)
		i++
	}
	return x, y, u
}

func unit(r *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	floats.Scale(1/floats.Norm(v, 2), v)
	return v
}

// checkKKT verifies the KKT conditions of the hard-margin SVM from scratch:
// α ≥ 0, w = Σ α_n y_n x_n, y_n⟨w, x_n⟩ ≥ 1 − tol, α_n(y_n⟨w, x_n⟩ − 1) ≈ 0,
// and margin = 1/‖w‖. Together they prove optimality (the problem is convex).
func checkKKT(t *testing.T, x *mat.Dense, y []float64, sol *numerics.SVM, tol float64) {
	t.Helper()
	n, d := x.Dims()
	w := make([]float64, d)
	amax := floats.Max(sol.Alpha)
	for i := 0; i < n; i++ {
		require.GreaterOrEqual(t, sol.Alpha[i], 0.0)
		floats.AddScaled(w, sol.Alpha[i]*y[i], x.RawRowView(i))
	}
	require.InDelta(t, 0, floats.Distance(w, sol.W, 2)/floats.Norm(w, 2), 1e-13)
	for i := 0; i < n; i++ {
		m := y[i] * floats.Dot(w, x.RawRowView(i))
		require.GreaterOrEqual(t, m, 1-tol, "sample %d", i)
		require.LessOrEqual(t, sol.Alpha[i]/amax*math.Abs(m-1), tol, "sample %d", i)
	}
	require.InDelta(t, 1/floats.Norm(w, 2), sol.Margin, 1e-12*sol.Margin)
}

func TestHardMarginSVMRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for trial := 0; trial < 200; trial++ {
		n, d := 2+r.IntN(40), 1+r.IntN(12)
		x, y, u := separableData(r, n, d, 0.02)
		sol, err := numerics.HardMarginSVM(x, y, nil)
		require.NoError(t, err, "trial %d", trial)
		checkKKT(t, x, y, sol, numerics.DefaultSVMTol)
		// The teacher u is a unit vector with y_n⟨u, x_n⟩ > 0, so the max
		// margin is at least min_n y_n⟨u, x_n⟩; it is at most min_n ‖x_n‖ = 1.
		tm := math.Inf(1)
		for i := 0; i < n; i++ {
			tm = math.Min(tm, y[i]*floats.Dot(u, x.RawRowView(i)))
		}
		require.GreaterOrEqual(t, sol.Margin*(1+1e-12), tm)
		require.LessOrEqual(t, sol.Margin, 1+1e-12)
	}
}

// TestHardMarginSVMNotSeparable: data containing a sample and its mirror
// image with the same label (or the same point with both labels) cannot be
// separated through the origin; the error carries Gordan's certificate.
func TestHardMarginSVMNotSeparable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 100; trial++ {
		n, d := 3+r.IntN(20), 1+r.IntN(8)
		x, y, _ := separableData(r, n, d, 0.02)
		// Make sample 0 and sample 1 contradict each other.
		x.SetRow(1, x.RawRowView(0))
		y[1] = -y[0]
		if trial%2 == 1 {
			row := append([]float64(nil), x.RawRowView(0)...)
			floats.Scale(-2, row)
			x.SetRow(1, row)
			y[1] = y[0]
		}
		_, err := numerics.HardMarginSVM(x, y, nil)
		require.ErrorIs(t, err, numerics.ErrNotSeparable)
		var ns *numerics.NotSeparableError
		require.True(t, errors.As(err, &ns))
		require.InDelta(t, 1, floats.Sum(ns.Certificate), 1e-12)
		comb := make([]float64, d)
		maxNorm := 0.0
		for i := 0; i < n; i++ {
			require.GreaterOrEqual(t, ns.Certificate[i], 0.0)
			floats.AddScaled(comb, ns.Certificate[i]*y[i], x.RawRowView(i))
			maxNorm = math.Max(maxNorm, floats.Norm(x.RawRowView(i), 2))
		}
		require.LessOrEqual(t, floats.Norm(comb, 2)/maxNorm, numerics.DefaultSeparabilityTol)
		require.InDelta(t, floats.Norm(comb, 2)/maxNorm, ns.Residual, 1e-14)
		require.Contains(t, err.Error(), "not separable")
	}
}

// TestKernelSVMMatchesLinear: the kernel solver on K = XXᵀ gives the linear
// solver's dual and margin, also when d < N (K singular). (d ≥ 2: in one
// dimension every unit sample lies on the margin and α is not unique.)
func TestKernelSVMMatchesLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for trial := 0; trial < 100; trial++ {
		n, d := 2+r.IntN(25), 2+r.IntN(9)
		x, y, _ := separableData(r, n, d, 0.05)
		lin, err := numerics.HardMarginSVM(x, y, nil)
		require.NoError(t, err)
		var k mat.SymDense
		k.SymOuterK(1, x)
		ker, err := numerics.KernelSVM(&k, y, nil)
		require.NoError(t, err, "trial %d n=%d d=%d", trial, n, d)
		require.InDelta(t, lin.Margin, ker.Margin, 1e-9*lin.Margin)
		require.Equal(t, lin.Support, ker.Support)
		require.InDelta(t, 0, floats.Distance(lin.Alpha, ker.Alpha, math.Inf(1))/floats.Max(lin.Alpha), 1e-8)
		require.InDeltaSlice(t, lin.Decision, ker.Decision, 1e-9)
		require.InDelta(t, 1/ker.Margin, floats.Norm(ker.W, 2), 1e-9/ker.Margin)
	}
}

func TestSVMScaleInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	x, y, _ := separableData(r, 20, 4, 0.05)
	base, err := numerics.HardMarginSVM(x, y, nil)
	require.NoError(t, err)
	for _, s := range []float64{1e-6, 1e6} {
		var xs mat.Dense
		xs.Scale(s, x)
		sol, err := numerics.HardMarginSVM(&xs, y, nil)
		require.NoError(t, err)
		assert.InDelta(t, base.Margin*s, sol.Margin, 1e-12*base.Margin*s)
		assert.Less(t, angle(base.W, sol.W), 1e-12)
	}
}

// TestSVMDuplicateSupport: a support vector repeated twice makes α
// non-unique (Q_SS singular); the solver must still meet the KKT tolerance.
func TestSVMDuplicateSupport(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 50; trial++ {
		x, y, _ := separableData(r, 12, 3, 0.05)
		sol, err := numerics.HardMarginSVM(x, y, nil)
		require.NoError(t, err)
		s := sol.Support[0]
		x2 := mat.NewDense(13, 3, nil)
		x2.Slice(0, 12, 0, 3).(*mat.Dense).Copy(x)
		x2.SetRow(12, x.RawRowView(s))
		y2 := append(append([]float64(nil), y...), y[s])
		sol2, err := numerics.HardMarginSVM(x2, y2, nil)
		require.NoError(t, err)
		checkKKT(t, x2, y2, sol2, numerics.DefaultSVMTol)
		assert.InDelta(t, sol.Margin, sol2.Margin, 1e-12*sol.Margin)
	}
}

func TestSVMInputErrors(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, -1})
	_, err := numerics.HardMarginSVM(x, []float64{1}, nil)
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
	_, err = numerics.HardMarginSVM(x, []float64{1, 0}, nil)
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
	_, err = numerics.HardMarginSVM(mat.NewDense(2, 1, []float64{1, math.NaN()}), []float64{1, 1}, nil)
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
	// An indefinite "kernel".
	_, err = numerics.KernelSVM(mat.NewSymDense(2, []float64{1, 2, 2, 1}), []float64{1, -1}, nil)
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
	assert.Contains(t, err.Error(), "positive semi-definite")
	// All-zero features: nothing separates.
	_, err = numerics.HardMarginSVM(mat.NewDense(2, 2, nil), []float64{1, -1}, nil)
	assert.ErrorIs(t, err, numerics.ErrNotSeparable)
	_, err = numerics.KernelSVM(mat.NewSymDense(2, nil), []float64{1, -1}, nil)
	assert.ErrorIs(t, err, numerics.ErrNotSeparable)
}

func BenchmarkHardMarginSVM(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	x, y, _ := separableData(r, 100, 50, 0.05)
	var sink float64
	b.ReportAllocs()
	for b.Loop() {
		sol, err := numerics.HardMarginSVM(x, y, nil)
		if err != nil {
			b.Fatal(err)
		}
		sink += sol.Margin
	}
	_ = sink
}

// TestKernelSVMNotSeparable: a kernel of non-separable data (a point with
// both labels, K = XXᵀ of rank < N) is reported as such: the eigenvalues at
// rounding level are 0, so the features do not tell the two copies apart.
func TestKernelSVMNotSeparable(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for trial := 0; trial < 50; trial++ {
		n, d := 3+r.IntN(15), 1+r.IntN(6)
		x, y, _ := separableData(r, n, d, 0.02)
		x.SetRow(1, x.RawRowView(0))
		y[1] = -y[0]
		var k mat.SymDense
		k.SymOuterK(1, x)
		_, err := numerics.KernelSVM(&k, y, nil)
		require.ErrorIs(t, err, numerics.ErrNotSeparable, "trial %d n=%d d=%d", trial, n, d)
	}
}

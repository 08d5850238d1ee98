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

// randomSplitData draws nSep unit vectors labelled by a unit u with margin
// ≥ 0.05 and adds, inside a k-dimensional subspace orthogonal to u, pairs
// (z, +1), (z, −1): non-separable exactly on the pairs.
func randomSplitData(r *rand.Rand, d, nSep, pairs int) (*mat.Dense, []float64, []int) {
	u := unit(r, d)
	var rows [][]float64
	var y []float64
	for len(rows) < nSep {
		x := unit(r, d)
		if p := floats.Dot(u, x); math.Abs(p) >= 0.05 {
			rows = append(rows, x)
			y = append(y, math.Copysign(1, p))
		}
	}
	var sc []int
	for p := 0; p < pairs; p++ {
		z := unit(r, d)
		floats.AddScaled(z, -floats.Dot(z, u), u) // ⟂ u
		floats.Scale(1/floats.Norm(z, 2), z)
		sc = append(sc, len(rows), len(rows)+1)
		rows = append(rows, z, append([]float64(nil), z...))
		y = append(y, 1, -1)
	}
	x := mat.NewDense(len(rows), d, nil)
	for i, row := range rows {
		x.SetRow(i, row)
	}
	return x, y, sc
}

// TestSplitSeparableRandom: on 200 random instances the split is the
// constructed one (the pairs are exactly Sc) and both certificates hold.
func TestSplitSeparableRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for it := 0; it < 200; it++ {
		d := 2 + r.IntN(6)
		x, y, sc := randomSplitData(r, d, 3+r.IntN(10), r.IntN(3))
		sp, err := numerics.SplitSeparable(x, y, 0)
		require.NoError(t, err, "instance %d", it)
		if len(sc) == 0 {
			sc = nil
		}
		require.Equal(t, sc, sp.Sc, "instance %d", it)
		n, _ := x.Dims()
		require.Equal(t, n, len(sp.S)+len(sp.Sc))
		for _, i := range sp.Sc {
			assert.GreaterOrEqual(t, sp.Lambda[i], 1.0)
		}
		if len(sp.S) > 0 {
			assert.Greater(t, sp.MinMargin, 1e-9)
		}
	}
}

func TestSplitSeparableEdgeCases(t *testing.T) {
	// Separable: S is everything, Sc empty.
	x := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1})
	sp, err := numerics.SplitSeparable(x, []float64{1, 1, 1}, 0)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, sp.S)
	assert.Empty(t, sp.Sc)
	// Nothing separable: x and −x with the same label, and a zero row.
	x = mat.NewDense(3, 2, []float64{1, 2, -1, -2, 0, 0})
	sp, err = numerics.SplitSeparable(x, []float64{1, 1, -1}, 0)
	require.NoError(t, err)
	assert.Empty(t, sp.S)
	assert.Equal(t, []int{0, 1, 2}, sp.Sc)
	// Bad input.
	_, err = numerics.SplitSeparable(x, []float64{1, 2, 1}, 0)
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
	_, err = numerics.SplitSeparable(mat.NewDense(1, 1, []float64{math.NaN()}), []float64{1}, 0)
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
}

// TestMinimizeNonSepStationary: the minimizer's gradient vanishes on the
// span, and it fails on separable samples (F unbounded below).
func TestMinimizeNonSepStationary(t *testing.T) {
	x := mat.NewDense(3, 3, []float64{1, 0, 0, 1, 0, 0, 0, 1, 1})
	y := []float64{1, -1, 1}
	_, err := numerics.MinimizeNonSep(x, y, []float64{1, 2, 1})
	require.Error(t, err, "sample 3 alone is separable: F has no minimizer")
	x = mat.NewDense(4, 3, []float64{1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1})
	y = []float64{1, -1, 1, -1}
	w := []float64{1, 3, 2, 0.5}
	mn, err := numerics.MinimizeNonSep(x, y, w)
	require.NoError(t, err)
	// ∂F/∂θ₁ = −w₁e^{−θ₁} + w₂e^{θ₁} = 0 ⇒ θ₁ = ½ log(w₁/w₂); likewise along (0,1,1)/√2.
	assert.InDelta(t, 0.5*math.Log(1.0/3), mn.Theta[0], 1e-14)
	s := 0.5 * math.Log(2/0.5) / 2 // θ·(0,1,1) = ½ log(w₃/w₄), split evenly
	assert.InDelta(t, s, mn.Theta[1], 1e-14)
	assert.InDelta(t, s, mn.Theta[2], 1e-14)
	_, err = numerics.MinimizeNonSep(x, y, []float64{1, 0, 1, 1})
	assert.ErrorIs(t, err, numerics.ErrSVMInput)
}

// TestPolyTailDirection: u(q) is stationary on the sphere, depends on q,
// and tends to the hard-margin SVM direction as α → ∞ (Φ^{1/α} → 1/min
// margin).
func TestPolyTailDirection(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for it := 0; it < 50; it++ {
		d := 2 + r.IntN(4)
		x, y, _ := randomSplitData(r, d, 3+r.IntN(6), 0)
		n, _ := x.Dims()
		z := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				z.Set(i, j, y[i]*x.At(i, j))
			}
		}
		q1, q2 := make([]float64, n), make([]float64, n)
		for i := range q1 {
			q1[i], q2[i] = 1, 0.1+r.Float64()
		}
		p1, err := numerics.PolyTailDirection(z, q1, 1)
		require.NoError(t, err)
		p2, err := numerics.PolyTailDirection(z, q2, 1)
		require.NoError(t, err)
		// The decrement test stops at ‖v − v*‖ ≲ 1e-12‖v*‖; the gradient
		// there is that times ‖∇²G‖ = O(10).
		assert.LessOrEqual(t, p1.Gradient, 1e-10)
		assert.LessOrEqual(t, p2.Gradient, 1e-10)
		// Φ at u(q) is below Φ at nearby unit vectors.
		for k := 0; k < 5; k++ {
			v := append([]float64(nil), p1.U...)
			floats.AddScaled(v, 1e-3, unit(r, d))
			floats.Scale(1/floats.Norm(v, 2), v)
			var phi float64
			ok := true
			for i := 0; i < n; i++ {
				m := floats.Dot(z.RawRowView(i), v)
				ok = ok && m > 0
				phi += q1[i] / m
			}
			if ok {
				assert.GreaterOrEqual(t, phi, p1.Phi*(1-1e-14))
			}
		}
		svm, err := numerics.HardMarginSVM(x, y, nil)
		require.NoError(t, err)
		pBig, err := numerics.PolyTailDirection(z, q2, 30)
		require.NoError(t, err)
		t.Logf("∠(u, ŵ): α = 1 %.3g, α = 30 %.3g", angle(p2.U, svm.W), angle(pBig.U, svm.W))
		assert.Less(t, angle(pBig.U, svm.W), angle(p2.U, svm.W)+1e-12)
	}
	// Not separable.
	z := mat.NewDense(2, 1, []float64{1, -1})
	_, err := numerics.PolyTailDirection(z, []float64{1, 1}, 1)
	assert.True(t, errors.Is(err, numerics.ErrNotSeparable))
}

// TestMultiClassSVM: with two classes the multi-class problem is the binary
// SVM with θ₁ = −θ₀ = w/2; with K ≥ 3 every constraint holds with equality
// on the support.
func TestMultiClassSVM(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	x, y, _ := randomSplitData(r, 3, 8, 0)
	n, d := x.Dims()
	class := make([]int, n)
	for i, v := range y {
		if v > 0 {
			class[i] = 1
		}
	}
	bin, err := numerics.HardMarginSVM(x, y, nil)
	require.NoError(t, err)
	mc, err := numerics.MultiClassSVM(x, class, 2)
	require.NoError(t, err)
	for j := 0; j < d; j++ {
		assert.InDelta(t, -bin.W[j]/2, mc.W[j], 1e-10)
		assert.InDelta(t, bin.W[j]/2, mc.W[d+j], 1e-10)
	}
	// Three classes from a random linear teacher.
	k := 3
	teacher := make([]float64, k*d)
	for i := range teacher {
		teacher[i] = r.NormFloat64()
	}
	xs := mat.NewDense(12, d, nil)
	cls := make([]int, 12)
	for i := 0; i < 12; i++ {
		row := unit(r, d)
		xs.SetRow(i, row)
		best := 0
		for c := 1; c < k; c++ {
			if floats.Dot(teacher[c*d:(c+1)*d], row) > floats.Dot(teacher[best*d:(best+1)*d], row) {
				best = c
			}
		}
		cls[i] = best
	}
	mc, err = numerics.MultiClassSVM(xs, cls, k)
	require.NoError(t, err)
	for i := 0; i < 12; i++ {
		row := xs.RawRowView(i)
		for c := 0; c < k; c++ {
			if c != cls[i] {
				m := floats.Dot(mc.W[cls[i]*d:(cls[i]+1)*d], row) - floats.Dot(mc.W[c*d:(c+1)*d], row)
				assert.GreaterOrEqual(t, m, 1-1e-9)
			}
		}
	}
	_, err = numerics.MultiClassSVM(xs, cls, 1)
	assert.Error(t, err)
	cls[0] = 7
	_, err = numerics.MultiClassSVM(xs, cls, k)
	assert.Error(t, err)
}

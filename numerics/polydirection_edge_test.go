package numerics_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// TestPolyTailDirectionFields: U is a unit vector; Phi and Margins are
// Σ q_i⟨U, z_i⟩^{−α} and ⟨U, z_i⟩ recomputed from U (1e-13 relative);
// u(q) does not change when q is scaled (Φ is linear in q), also by 1e6,
// where the minimizer v* of G = Φ + ½‖v‖² has ‖v*‖ = (αΦ(u))^{1/(α+2)} of
// order 10² — the stationarity residual is relative to ‖v*‖ and stays at
// 1e-10; Iterations is a count (≥ 0).
func TestPolyTailDirectionFields(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for it := 0; it < 10; it++ {
		d := 2 + r.IntN(3)
		x, y, _ := randomSplitData(r, d, 4+r.IntN(4), 0)
		n, _ := x.Dims()
		z := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				z.Set(i, j, y[i]*x.At(i, j))
			}
		}
		q := make([]float64, n)
		for i := range q {
			q[i] = 0.2 + r.Float64()
		}
		for _, alpha := range []float64{0.5, 2} {
			p, err := numerics.PolyTailDirection(z, q, alpha)
			require.NoError(t, err)
			assert.InDelta(t, 1, floats.Norm(p.U, 2), 1e-15)
			assert.GreaterOrEqual(t, p.Iterations, 0)
			var phi float64
			for i := 0; i < n; i++ {
				m := floats.Dot(z.RawRowView(i), p.U)
				assert.InDelta(t, m, p.Margins[i], 1e-15)
				phi += q[i] * math.Pow(m, -alpha)
			}
			assert.InDelta(t, phi, p.Phi, 1e-13*phi)
			big := make([]float64, n)
			floats.ScaleTo(big, 1e6, q)
			pb, err := numerics.PolyTailDirection(z, big, alpha)
			require.NoError(t, err)
			assert.LessOrEqual(t, pb.Gradient, 1e-10)
			for j := range p.U {
				assert.InDelta(t, p.U[j], pb.U[j], 1e-10, "α = %g: u(10⁶q) = u(q)", alpha)
			}
		}
	}
}

// TestPolyTailDirectionWeights: a weight of 0 drops its point from Φ and
// from the cone (it need not be separable with the rest: here it is the
// negative of another point); a negative weight, α ≤ 0 and all-zero
// weights are errors.
func TestPolyTailDirectionWeights(t *testing.T) {
	z := mat.NewDense(3, 2, []float64{1, 0.2, 0.3, 1, -1, -0.2})
	p, err := numerics.PolyTailDirection(z, []float64{1, 2, 0}, 1)
	require.NoError(t, err)
	assert.Less(t, p.Margins[2], 0.0)
	two := mat.NewDense(2, 2, []float64{1, 0.2, 0.3, 1})
	p2, err := numerics.PolyTailDirection(two, []float64{1, 2}, 1)
	require.NoError(t, err)
	assert.InDeltaSlice(t, p2.U, p.U, 1e-14)
	for _, bad := range []struct {
		q     []float64
		alpha float64
	}{{[]float64{1, 2, -1}, 1}, {[]float64{1, 2, 0}, 0}, {[]float64{1, 2, 0}, -1}, {[]float64{0, 0, 0}, 1}} {
		_, err := numerics.PolyTailDirection(z, bad.q, bad.alpha)
		assert.ErrorIs(t, err, numerics.ErrSVMInput, "q = %v, α = %g", bad.q, bad.alpha)
	}
}

// TestMultiClassConstraintsClass: a class label must be in 0…K−1: K itself
// is rejected, with the range in the message.
func TestMultiClassConstraintsClass(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	_, err := numerics.MultiClassConstraints(x, []int{0, 3}, 3)
	assert.ErrorContains(t, err, "outside 0…2")
	_, err = numerics.MultiClassConstraints(x, []int{0, -1}, 3)
	assert.ErrorContains(t, err, "outside 0…2")
	a, err := numerics.MultiClassConstraints(x, []int{0, 2}, 3)
	require.NoError(t, err)
	// Sample 0 (class 0) against classes 1, 2; sample 1 (class 2) against 0, 1.
	want := []float64{
		1, 0, -1, 0, 0, 0,
		1, 0, 0, 0, -1, 0,
		0, -1, 0, 0, 0, 1,
		0, 0, 0, -1, 0, 1,
	}
	assert.Equal(t, want, a.RawMatrix().Data)
}

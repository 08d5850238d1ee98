package cases

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/implicitbias/implicitbias/losses"
)

// TestPairwisePolyGradient compares ZD-B's control loss with central
// differences of ℓ = e^{LogLoss} (gonum's fd.Gradient), at scores with every
// pairwise margin ≥ 0 (β = 0: the polynomial piece) and at a shift of
// log ℓ, where the scaled gradient is O(1). Tolerance: the differences'
// truncation h²ℓ‴/6 ≈ 1e-10 (h = 1e-5, |ℓ‴| ≤ α(α+1)(α+2) ≈ 2) and rounding
// ε·ℓ/h ≈ 1e-11, with room: 1e-8.
func TestPairwisePolyGradient(t *testing.T) {
	l := NewPairwisePoly()
	for _, tc := range []struct {
		s []float64
		y float64
	}{
		{[]float64{2, 0.5, -1}, 0},
		{[]float64{-0.3, 1.7, 0.2, 1.1}, 1},
		{[]float64{0, 0, 5}, 2},
	} {
		f := func(s []float64) float64 { return math.Exp(l.LogLoss(s, tc.y)) }
		want := fd.Gradient(nil, f, tc.s, &fd.Settings{Formula: fd.Central, Step: 1e-5})
		got := make([]float64, len(tc.s))
		shift := l.LogLoss(tc.s, tc.y)
		l.ScaledGrad(got, tc.s, tc.y, shift)
		for j := range got {
			if w := want[j] * math.Exp(-shift); !scalar.EqualWithinAbsOrRel(got[j], w, 1e-8, 1e-8) {
				t.Errorf("s = %v, y = %v: ∂ℓ/∂s_%d e^{−shift} = %v, differences %v", tc.s, tc.y, j, got[j], w)
			}
		}
	}
}

// TestPairwisePolyBatch: the batch (losses.Batch) gives LogLoss's bits, the
// margins, and ScaledGrad at shift log ℓ to a few ulps (the same terms,
// multiplied in another order).
func TestPairwisePolyBatch(t *testing.T) {
	l := NewPairwisePoly()
	b := l.(losses.Batch)
	s := []float64{2, 0.5, -1, -0.3, 1.7, 0.2, 0, 0, 5, -40, 3e6, 7}
	y := []float64{0, 1, 2, 1}
	const k = 3
	ll, q, dlog := make([]float64, 4), make([]float64, 4), make([]float64, 12)
	b.LogLosses(ll, q, dlog, s, y, make([]float64, 8))
	for i := range y {
		row := s[i*k : (i+1)*k]
		assert.Equal(t, l.LogLoss(row, y[i]), ll[i], "sample %d", i)
		c, best := int(y[i]), math.Inf(-1)
		for j, v := range row {
			if j != c {
				best = max(best, v)
			}
		}
		assert.Equal(t, row[c]-best, q[i], "sample %d", i)
		want := make([]float64, k)
		l.ScaledGrad(want, row, y[i], ll[i])
		for j := range want {
			assert.InDelta(t, want[j], dlog[i*k+j], 1e-14*math.Abs(want[j])+1e-300, "sample %d score %d", i, j)
		}
	}
}

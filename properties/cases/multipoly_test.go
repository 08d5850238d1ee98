package cases

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
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

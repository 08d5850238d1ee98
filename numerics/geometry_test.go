package numerics

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAngle(t *testing.T) {
	for _, tc := range []struct {
		name string
		u, v []float64
		want float64
	}{
		{"equal", []float64{1, 2}, []float64{2, 4}, 0},
		{"orthogonal", []float64{1, 0}, []float64{0, 3}, math.Pi / 2},
		{"opposite", []float64{1, 1}, []float64{-2, -2}, math.Pi},
		{"sixty degrees", []float64{1, 0}, []float64{0.5, math.Sqrt(3) / 2}, math.Pi / 3},
		// ∠ = 1e-9 exactly to first order: (1, 1e-9) against (1, 0); the
		// acos form would return 0 here.
		{"tiny", []float64{1, 1e-9}, []float64{1, 0}, math.Atan(1e-9)},
	} {
		// Full accuracy for small angles; √ε near π (documented).
		tol := 4e-16 * math.Max(1, tc.want)
		if tc.want > 3 {
			tol = 3e-8
		}
		assert.InDelta(t, tc.want, Angle(tc.u, tc.v), tol, tc.name)
		if tc.want > 0 {
			assert.InEpsilon(t, tc.want, Angle(tc.u, tc.v), 1e-7, tc.name)
		}
	}
	assert.True(t, math.IsNaN(Angle([]float64{0, 0}, []float64{1, 0})))
}

func TestKLDivergence(t *testing.T) {
	// Normalized first: proportional vectors are at divergence 0.
	assert.InDelta(t, 0, KLDivergence([]float64{1, 2}, []float64{2, 4}), 1e-15)
	assert.InDelta(t, 0.5*math.Log(0.5/0.25)+0.5*math.Log(0.5/0.75), KLDivergence([]float64{1, 1}, []float64{1, 3}), 1e-15)
	// 0·log 0 = 0; q_i = 0 < p_i gives +Inf.
	assert.InDelta(t, math.Log(2), KLDivergence([]float64{1, 0}, []float64{1, 1}), 1e-15)
	assert.True(t, math.IsInf(KLDivergence([]float64{1, 1}, []float64{1, 0}), 1))
}

func ExampleAngle() {
	// ∠((1, 1e-12), (1, 0)) = atan(1e-12): acos of the cosine would give 0.
	fmt.Printf("%.6g\n", Angle([]float64{1, 1e-12}, []float64{1, 0}))
	fmt.Printf("%.6g\n", math.Acos(1/math.Hypot(1, 1e-12)))
	// Output:
	// 1e-12
	// 0
}

package numerics_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/fixtures"
	"github.com/implicitbias/implicitbias/numerics"
)

// Acceptance criteria of the cross-check against ../shared/reference (the
// issue's): the direction within 1e-6 rad, the margin within 1e-8
// relative. The reference solutions are themselves polished to KKT
// residuals of about 1e-12 (reference README), so these leave a wide margin
// for both solvers' rounding.
const (
	refAngleTol  = 1e-6
	refMarginTol = 1e-8
)

// angle returns the angle between u and v as 2 asin(‖û − v̂‖/2), accurate
// for tiny angles (the reference's formula).
func angle(u, v []float64) float64 {
	a := append([]float64(nil), u...)
	b := append([]float64(nil), v...)
	floats.Scale(1/floats.Norm(a, 2), a)
	floats.Scale(1/floats.Norm(b, 2), b)
	floats.Sub(a, b)
	return 2 * math.Asin(math.Min(1, floats.Norm(a, 2)/2))
}

func TestHardMarginSVMReference(t *testing.T) {
	cases, err := fixtures.LinearSVMCases()
	require.NoError(t, err)
	require.Len(t, cases, 12)
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			x := mat.NewDense(c.N, c.D, fixtures.Flat(c.X))
			sol, err := numerics.HardMarginSVM(x, c.Y, nil)
			require.NoError(t, err)
			a := angle(sol.W, c.WDir)
			rel := math.Abs(sol.Margin-c.GammaStar) / c.GammaStar
			t.Logf("angle %.2g rad, margin rel. error %.2g, KKT residual %.2g, support %v (reference %v)", a, rel, sol.KKTResidual, sol.Support, c.Support)
			require.LessOrEqual(t, a, refAngleTol)
			require.LessOrEqual(t, rel, refMarginTol)
			require.LessOrEqual(t, sol.KKTResidual, numerics.DefaultSVMTol)
			require.Equal(t, c.Support, refSupport(sol.Alpha))
		})
	}
}

// refSupport lists the indices with α_n > 1e-6, the reference's definition
// of the support.
func refSupport(alpha []float64) []int {
	var s []int
	for i, a := range alpha {
		if a > 1e-6 {
			s = append(s, i)
		}
	}
	return s
}

func TestKernelSVMReference(t *testing.T) {
	cases, err := fixtures.KernelSVMCases()
	require.NoError(t, err)
	require.Len(t, cases, 6)
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			k := mat.NewSymDense(c.N, fixtures.Flat(c.K))
			sol, err := numerics.KernelSVM(k, c.Y, nil)
			require.NoError(t, err)
			// Directions in feature space: w = Gᵀ(α∘y), with the reference's
			// features G (the solver saw only K).
			g := mat.NewDense(c.N, c.P, fixtures.Flat(c.G))
			w := func(alpha []float64) []float64 {
				ay := make([]float64, c.N)
				floats.MulTo(ay, alpha, c.Y)
				v := mat.NewVecDense(c.P, nil)
				v.MulVec(g.T(), mat.NewVecDense(c.N, ay))
				return v.RawVector().Data
			}
			a := angle(w(sol.Alpha), w(c.Alpha))
			rel := math.Abs(sol.Margin-c.Margin) / c.Margin
			t.Logf("angle %.2g rad, margin rel. error %.2g, KKT residual %.2g, support %v (reference %v)", a, rel, sol.KKTResidual, sol.Support, c.Support)
			require.LessOrEqual(t, a, refAngleTol)
			require.LessOrEqual(t, rel, refMarginTol)
			require.LessOrEqual(t, sol.KKTResidual, numerics.DefaultSVMTol)
			require.Equal(t, c.Support, refSupport(sol.Alpha))
		})
	}
}

package numerics_test

import (
	"fmt"

	"github.com/implicitbias/implicitbias/numerics"
)

// Two samples in three dimensions, x₁ = (1, 0, 0), x₂ = (1, 1, 0), with
// targets 1 and 3. From θ₀ = (0, 0, 2), every GRW run on the squared loss
// converges to the interpolator in θ₀ + span{x₁, x₂}; the third coordinate
// keeps its start. With μ > 0 the weights matter. (By hand: XXᵀ =
// [[1,1],[1,2]], coef = (XXᵀ)⁻¹y = (−1, 2); for q = (½, ½) the 2×2 system
// [[1.1, 0.5],[0.5, 0.6]]δ = (2, 1.5) gives δ = (0.45, 0.65)/0.41; for
// q = (0.9, 0.1), [[1.1, 0.1],[0.1, 0.2]]δ = (1.2, 0.3) gives δ = (1, 1).)
func ExampleMinNormInterpolator() {
	x := []float64{1, 0, 0, 1, 1, 0}
	y := []float64{1, 3}
	theta0 := []float64{0, 0, 2}
	theta, coef, err := numerics.MinNormInterpolator(x, 2, 3, y, theta0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("θ* = %.4f, coef = %.4f\n", theta, coef)
	for _, q := range [][]float64{{0.5, 0.5}, {0.9, 0.1}} {
		reg, err := numerics.RegularizedInterpolator(x, 2, 3, y, theta0, q, 0.1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("μ = 0.1, q = %v: θ = %.4f\n", q, reg)
	}
	// Output:
	// θ* = [1.0000 2.0000 2.0000], coef = [-1.0000 2.0000]
	// μ = 0.1, q = [0.5 0.5]: θ = [1.0976 1.5854 2.0000]
	// μ = 0.1, q = [0.9 0.1]: θ = [1.0000 1.0000 2.0000]
}

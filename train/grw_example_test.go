package train_test

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// Generalized reweighting on an overparameterized regression (ZD Thm 1):
// whatever the weights, GD from θ₀ = 0 ends at the interpolator in
// span{x_i}. Here x₁ = (1, 1, 0), x₂ = (0, 1, 1), y = (1, 3): XXᵀ =
// [[2, 1], [1, 2]], coef = (XXᵀ)⁻¹y = (−1/3, 5/3), θ* = Xᵀcoef =
// (−1/3, 4/3, 5/3). Adam interpolates too, but its coordinate-wise steps
// leave the span.
func ExampleWeighting() {
	d := &dataset.Dataset{N: 2, D: 3, X: []float64{1, 1, 0, 0, 1, 1}, Y: []float64{1, 3}, Groups: []int{0, 1}}
	model, _ := models.NewLinear(3, 1)
	obj, _ := train.NewObjective(model, losses.Squared{}, d)
	gdro, _ := train.NewGroupDRO(0.5, nil)
	chi2, _ := train.NewChiSquareDRO(1)
	cvar, _ := train.NewCVaRDRO(0.5)
	for _, w := range []train.Weighting{&train.ERM{}, &train.ImportanceWeighting{}, &train.Static{W: []float64{9, 1}}, gdro, chi2, cvar} {
		gd, _ := train.NewGD(0.3)
		theta := make([]float64, 3)
		if _, err := train.Run(obj, gd, theta, train.Config{Steps: 3000, Every: 3000, Weighting: w}); err != nil {
			panic(err)
		}
		fmt.Printf("%-6s θ = %.6f\n", w.Scheme(), theta)
	}
	adam, _ := train.NewAdam(0.01, 0, 0, 1e-3)
	theta := make([]float64, 3)
	if _, err := train.Run(obj, adam, theta, train.Config{Steps: 5000, Every: 5000, Weighting: &train.ERM{}}); err != nil {
		panic(err)
	}
	fmt.Println("adam lands elsewhere:", floats.Distance(theta, []float64{-1.0 / 3, 4.0 / 3, 5.0 / 3}, 2) > 1e-3)
	// Output:
	// erm    θ = [-0.333333 1.333333 1.666667]
	// iw     θ = [-0.333333 1.333333 1.666667]
	// static θ = [-0.333333 1.333333 1.666667]
	// gdro   θ = [-0.333333 1.333333 1.666667]
	// chi2   θ = [-0.333333 1.333333 1.666667]
	// cvar   θ = [-0.333333 1.333333 1.666667]
	// adam lands elsewhere: true
}

package kkt_test

import (
	"fmt"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// The KKT residuals of the max-margin problem (P) for a linear model on four
// points whose SVM is w = (1, 1): along the SVM direction θ̃ is an exact KKT
// point; along another separating direction it is not.
func ExampleMeasureKKT() {
	d := &dataset.Dataset{N: 4, D: 2, X: []float64{1, 0, 0, 1, -2, 0, 1, -3}, Y: []float64{1, 1, -1, -1}}
	m, _ := models.NewLinear(2, 1)
	l, _ := losses.ByName("exp")
	obj, _ := train.NewObjective(m, l, d)
	for _, θ := range [][]float64{{7, 7}, {7, 5}} {
		k, err := kkt.MeasureKKT(obj, θ, 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("θ = %v: ε = %.3f, δ = %.3f, λ = %.3f, ∠(θ, SVM) = %.3f\n", θ, k.Epsilon, k.Delta, k.Lambda, k.SVMAngle)
	}
	// Output:
	// θ = [7 7]: ε = 0.000, δ = 0.000, λ = [1.000 1.000 0.000 0.000], ∠(θ, SVM) = 0.000
	// θ = [7 5]: ε = 0.400, δ = 0.400, λ = [1.000 1.000 0.000 0.000], ∠(θ, SVM) = 0.165
}

package homogeneity_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
)

// ExampleEulerIdentity checks ⟨θ, ∇Φ⟩ = L·Φ on a bias-free ReLU network, and
// on the same network with bias terms, declaring the bias-free degree.
func ExampleEulerIdentity() {
	x := []float64{0.3, -1.2, 0.8, 0.5}
	for _, spec := range []string{"mlp:relu:3x8", "mlp:relu:3x8+bias"} {
		m, err := models.Parse(spec, len(x))
		if err != nil {
			panic(err)
		}
		theta := make([]float64, m.NumParams())
		m.Init(rand.New(rand.NewPCG(1, 1)), theta)
		v := homogeneity.EulerIdentity(homogeneity.PointCase{Model: m, Degree: 3, Theta: theta, X: x, N: 1})
		fmt.Printf("%-18s %s\n", spec, v.Status)
	}
	// Output:
	// mlp:relu:3x8       holds
	// mlp:relu:3x8+bias  violated
}

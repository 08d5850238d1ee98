package models_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
)

// Parse reads a spec; the degree comes from the architecture. For 10 inputs,
// cnn:relu:4c3-max2:8/3 has a conv of 4·3 weights (10 → 8 positions, max
// pooling → 4, flattened 16), a dense layer 16·8 and an output layer 8·3.
func ExampleParse() {
	for _, spec := range []string{"mlp:relu:3x8", "mlp:relu2:3x8", "cnn:relu:4c3-max2:8/3"} {
		m, err := models.Parse(spec, 10)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-22s %4d parameters, %d output(s), %v\n", m, m.NumParams(), m.Out(), m.Degree())
	}
	_, err := models.Parse("mlp:lrelu2:3x8", 10)
	fmt.Println(err)
	// Output:
	// mlp:relu:3x8            152 parameters, 1 output(s), L=3 (blocks 1+1+1)
	// mlp:relu2:3x8           152 parameters, 1 output(s), L=7 (blocks 4+2+1)
	// cnn:relu:4c3-max2:8/3   164 parameters, 3 output(s), L=3 (blocks 1+1+1)
	// model "mlp:lrelu2:3x8": activation "lrelu2": leaky slope must be a number in (0, 1)
}

func ExampleNetwork_Degree() {
	for _, spec := range []string{"mlp:relu:3x8", "mlp:relu:3x8+bias@1", "mlp:relu:3x8+bias", "mlp:tanh:3x8"} {
		m, _ := models.Parse(spec, 4)
		fmt.Printf("%-20s %v\n", m, m.Degree())
	}
	// Output:
	// mlp:relu:3x8         L=3 (blocks 1+1+1)
	// mlp:relu:3x8+bias@1  L=3 (blocks 1+1+1)
	// mlp:relu:3x8+bias    not homogeneous: bias term of layer 2 has degree 1 but its weight term has degree 2
	// mlp:tanh:3x8         not homogeneous: activation tanh is not homogeneous
}

// Euler's identity ⟨θ, ∇_θΦ⟩ = L·Φ (LL Thm B.3) for a network of degree 7,
// and the per-block identities ⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ.
func ExampleGrader() {
	m, _ := models.Parse("mlp:relu2:3x4", 3)
	theta := make([]float64, m.NumParams())
	m.Init(rand.New(rand.NewPCG(1, 1)), theta)
	x := []float64{0.5, -1, 2}

	g := models.NewGrader(m)
	grad := make([]float64, m.NumParams())
	phi := g.Grad(theta, x, 0, grad)
	d := m.Degree()
	fmt.Printf("L·Φ       = %.6f\n", d.Order*phi)
	fmt.Printf("⟨θ, ∇Φ⟩   = %.6f\n", floats.Dot(theta, grad))
	for i, b := range m.Blocks() {
		w, gw := theta[b.Offset:b.Offset+b.Len], grad[b.Offset:b.Offset+b.Len]
		fmt.Printf("block %d: k=%g, ⟨w,∇_wΦ⟩/Φ = %.6f\n", i+1, d.Blocks[i], floats.Dot(w, gw)/phi)
	}
	// Output:
	// L·Φ       = 1.206007
	// ⟨θ, ∇Φ⟩   = 1.206007
	// block 1: k=4, ⟨w,∇_wΦ⟩/Φ = 4.000000
	// block 2: k=2, ⟨w,∇_wΦ⟩/Φ = 2.000000
	// block 3: k=1, ⟨w,∇_wΦ⟩/Φ = 1.000000
}

// A batch goes through Forward, and Backward accumulates the gradient of
// Σ_i gOut_i·Φ(θ; x_i) over the batch, here the gradient of the mean output.
func ExampleNetwork_Backward() {
	m, _ := models.Parse("linear", 2)
	theta := []float64{2, -1}
	x := []float64{
		1, 0,
		0, 1,
		3, 3,
	}
	ws := m.NewWorkspace(3)
	y := m.Forward(ws, theta, x, 3)
	fmt.Println("Φ:", y)
	grad := make([]float64, m.NumParams())
	m.Backward(ws, theta, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, grad)
	fmt.Printf("∇ mean Φ: [%.4f %.4f]\n", grad[0], grad[1])
	// Output:
	// Φ: [2 -1 3]
	// ∇ mean Φ: [1.3333 1.3333]
}

package engines_test

import (
	"context"
	"fmt"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/models"
)

// A model spec's nn.Sequential: what the client sends a PyTorch engine.
func ExampleSequentialOf() {
	m, _ := models.Parse("cnn2d:8x8x1:relu:3c3-valid-max2", 64)
	s, _ := engines.SequentialOf(m)
	for _, mod := range s.Modules {
		fmt.Println(mod.Text)
	}
	fmt.Println(s.Params, s.InputShape)
	// Output:
	// Conv2d(1, 3, kernel_size=(3, 3), stride=(1, 1), bias=False)
	// ReLU()
	// MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
	// Flatten(start_dim=1, end_dim=-1)
	// Linear(in_features=27, out_features=1, bias=False)
	// [{0.weight [3 1 3 3]} {4.weight [1 27]}] [1 8 8]
}

// Our engine behind the Engine interface: a GD case, records at 0, 1, 5, 6
// and the last step. By hand: both margins are a_t = θ_t[0], with
// a_{t+1} = a_t + η/(1 + e^{a_t}) (η = 0.5), a_1 = 0.25, a_5 = 0.9832, and
// 𝓛 = 2 log(1 + e^{−a}).
func ExampleLocal() {
	c := &engines.Case{Name: "xor-free", Model: "linear", In: 2, N: 2,
		X: []float64{1, 0, 0, 1}, Y: []float64{1, -1}, Theta0: []float64{0, 0},
		Loss: engines.Logistic, Rule: engines.StepRule{Kind: engines.GD, LR: 0.5},
		Steps: 8, Record: engines.Schedule{Every: 5, Pairs: true}}
	var e engines.Engine = engines.Local{}
	tr, err := e.Train(context.Background(), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range tr.Records {
		fmt.Printf("step %d: θ = [%.4f %.4f], log 𝓛 = %.4f\n", r.Step, r.Theta[0], r.Theta[1], r.LogLoss)
	}
	// Output:
	// step 0: θ = [0.0000 0.0000], log 𝓛 = 0.3266
	// step 1: θ = [0.2500 -0.2500], log 𝓛 = 0.1414
	// step 5: θ = [0.9832 -0.9832], log 𝓛 = -0.4532
	// step 6: θ = [1.1194 -1.1194], log 𝓛 = -0.5708
	// step 8: θ = [1.3544 -1.3544], log 𝓛 = -0.7783
}

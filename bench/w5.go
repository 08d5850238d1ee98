package bench

import (
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/models"
)

// W5 is LL's MNIST CNN (App. J) at full width, without bias but in layer 1:
// one SGD step on a batch of N = 100 images of 28×28×1 in float64 —
// forward, backward and update — on the mean cross-entropy over 10
// classes, with LL's constant rate η = 0.01 (their Fig. 1a). It is not in
// Workloads (W1–W4 share the MLP problem form); Lookup finds it.
var W5 = Workload{Name: "W5", N: 100, D: 28 * 28, Steps: 5, CNN: true}

// w5Spec is W5's network (see docs/cnn.md).
const w5Spec = "cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1"

// w5Classes is the number of classes of W5's labels.
const w5Classes = 10

// w5LR is LL's constant step size on the mean loss (LL Fig. 1a).
const w5LR = 0.01

// w5FLOPs counts the products of one W5 step, a multiply-add as 2, every
// filter tap (the zeros of the "same" padding too, as a direct convolution
// computes them): for each conv and dense layer the forward product and the
// weight gradient, and the input gradient for every layer but the first.
// Per sample: conv1 28·28·25·1·32, conv2 14·14·9·32·64, dense 3136·1024
// and 1024·10 multiply-adds; 4.35 GFLOP for the batch of 100.
func w5FLOPs(n int) float64 {
	first := 28.0 * 28 * 25 * 1 * 32
	rest := 14.0*14*9*32*64 + 3136*1024 + 1024*10
	return 2 * float64(n) * (2*first + 3*rest)
}

// generateW5 draws W5's problem from seed: images whose pixels are k/255
// for k uniform in 0…255 (the values of a scaled 8-bit image, LL App. J),
// labels uniform in 0…9, and θ₀ from the model's He-normal initialization
// (all from one PCG stream). Random labels keep every step's gradient of
// the same size; the timing does not depend on what the data mean.
func generateW5(w Workload, seed uint64) (*Problem, error) {
	m, err := models.Parse(w5Spec, w.D)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x62656e6368)) // "bench"
	p := &Problem{Workload: w, Seed: seed, LR: w5LR, X: make([]float64, w.N*w.D), Y: make([]float64, w.N)}
	for i := range p.X {
		p.X[i] = float64(r.IntN(256)) / 255
	}
	for i := range p.Y {
		p.Y[i] = float64(r.IntN(w5Classes))
	}
	p.Theta0 = make([]float64, m.NumParams())
	m.Init(r, p.Theta0)
	return p, nil
}

package faults

import (
	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// Registry returns every fault, freshly built (no package state), grouped
// by the component it breaks. The claims each fault must break, and why,
// are declared by the claims' entries (properties.Entry.Faults); `go test
// ./properties/... -run TestFaultPower` measures them.
func Registry() []Fault {
	return append([]Fault{
		{
			Name: "preconditioner", Component: "optimizer",
			Effect:    "after every step, one coordinate (the largest |∂𝓛/∂θ_k| at the first step) moves 3 more steps: a stray diagonal preconditioner with a 4 there",
			optimizer: func(o train.Optimizer) train.Optimizer { return &preconditioned{wrapped{o}, 3, -1} },
		},
		{
			Name: "loss-factor-dropped", Component: "optimizer",
			Effect:    "the step is −η·Dir: the factor e^{log 𝓛} is dropped when leaving log domain (normalized GD)",
			optimizer: func(o train.Optimizer) train.Optimizer { return unscaled{wrapped{o}} },
		},
		{
			Name: "stale-gradient", Component: "optimizer",
			Effect: "every step uses the previous step's gradient direction (an off-by-one in the gradient buffer)",
			optimizer: func(o train.Optimizer) train.Optimizer {
				return &stale{wrapped: wrapped{o}}
			},
		},
		{
			Name: "missing-zero-grad", Component: "optimizer",
			Effect:    "GD's gradient buffer is never cleared (PyTorch's missing optimizer.zero_grad()): each step is −η times the sum of every gradient since the start",
			optimizer: withoutZeroGrad,
		},
		{
			Name: "momentum-misindexed", Component: "optimizer",
			Effect:    "heavy ball's velocity of coordinate 0 decays with β² instead of β",
			optimizer: withMisindexedMomentum,
		},
		{
			Name: "weights-ignored", Component: "reweighting",
			Effect:  "the objective applies uniform weights whatever the scheme wrote (every GRW runs as ERM)",
			weights: ignoreWeights,
		},
		{
			Name: "weights-ignored-reported", Component: "reweighting",
			Effect:  "the objective applies uniform weights whatever the scheme wrote, and the records say uniform too: a GRW run that silently became ERM and reports itself as ERM",
			weights: ignoreWeights, honest: true,
		},
		{
			Name: "weights-squared", Component: "reweighting",
			Effect:  "the objective applies q_i² (rescaled) instead of q_i",
			weights: squareWeights,
		},
		{
			Name: "sample-dropped", Component: "reweighting",
			Effect:  "the weight of sample 0 is applied as 0 (an off-by-one in a group index)",
			weights: dropFirst,
		},
		{
			Name: "backward-first-block", Component: "model",
			Effect: "the backward pass returns twice the gradient of the first parameter block",
			model:  func(m models.Model) models.Model { return wrapModel(m, faultyModel{gradScale: 2}) },
		},
		{
			Name: "backward-mean", Component: "model",
			Effect: "the batched backward pass returns the gradient of the mean over the batch (÷N), single-sample gradients right",
			model:  func(m models.Model) models.Model { return wrapModel(m, faultyModel{batchMean: true}) },
		},
		{
			Name: "degree-plus-one", Component: "model",
			Effect: "the model declares homogeneity order L + 1 (and k₁ + 1)",
			model:  func(m models.Model) models.Model { return wrapModel(m, faultyModel{degreeShift: 1}) },
		},
		{
			Name: "fprime-branch", Component: "loss",
			Effect: "the margin loss's f′ is doubled on its q > 0 branch while f is right",
			loss:   withBranchFPrime,
		},
		{
			Name: "loss-underflow", Component: "loss",
			Effect: "the loss leaves log domain: ℓ = e^{log ℓ} in float64, floored at the smallest subnormal, so past q ≈ 709–745 every loss reads the same floor and f′ reads 0",
			loss:   withUnderflow,
		},
		{
			Name: "flow-error-underreported", Component: "integrator",
			Effect:     "the flow integrator's error estimate is 10⁶ times too small (error scale 1e-6, train.Flow.PlantFault): its steps are far too long",
			errorScale: 1e-6,
		},
		{
			Name: "tableau-b1-misplaced", Component: "integrator",
			Effect:   "the flow integrator's Dormand–Prince solution weight b₁ is 35/38.4 for 35/384 (enginefault.MisplacedB1), the error row intact: Σ b_i = 1.82, the local error estimate does not see it, θ stays near the path while the recorded flow times drift",
			solution: enginefault.MisplacedB1,
		},
		{
			Name: "l2-gradient-uncentred", Component: "regularizer",
			Effect:      "the L2 regularizer's gradient is μθ instead of μ(θ − θ₀) (its value is right)",
			regularizer: withUncentredGradient,
		},
	}, ntkFaults()...)
}

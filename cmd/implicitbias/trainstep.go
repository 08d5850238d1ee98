package main

import (
	"errors"
	"math"

	"github.com/implicitbias/implicitbias/train"
)

// probeHalvings bounds how often the default step is halved (a factor
// 2¹⁰ ≈ 1000): a run that diverges at every step down to that is left to
// diverge at the default, with divergenceHint's advice (raw pixels under a
// summed exponential loss diverge at step 1 at any useful step).
const probeHalvings = 10

// probeSteps is the length of the probe runs (at most the run's own).
const probeSteps = 1000

// defaultStep returns the gradient-descent step train uses without --lr:
// the largest lr·2^{−k}, k = 0…probeHalvings, whose probe run — the same
// objective from the same θ₀ for min(steps, probeSteps) steps, nothing
// recorded — stays finite; lr itself when none does. Gradient descent on a
// logistic or cross-entropy loss is stable far beyond 2/λ_max(H(θ₀)) once
// the curvature falls with the loss (the shipped digits, linear/10 on the
// mean: λ(θ₀) gives 1.0 and does not separate in 1000 steps, 0.1·n = 179.7
// does), while a ReLU net can diverge at the summed run's 0.1 (digits 3
// against 8, 357 standardized images, mlp:relu:2x16 on the mean: 0.1·n =
// 35.7 diverged at step 94; the probe halves it to 8.9, which separates):
// so the default is the old one where it trains and the largest stable
// fraction of it where it does not. Deterministic (the probe is the run's
// own arithmetic). The probes start at lr·2^{−from}: train runs the first
// itself when it is the run (runProbes in train.go) and asks for the
// others only if it diverged.
func defaultStep(obj *train.Objective, optName string, theta []float64, lr float64, steps, from int) float64 {
	n := min(steps, probeSteps)
	if n == 0 {
		return lr
	}
	for k := from; k <= probeHalvings; k++ {
		eta := lr * math.Ldexp(1, -k)
		opt, err := train.NewOptimizer(optName, train.OptimizerOptions{LR: eta})
		if err != nil {
			return lr
		}
		th := append([]float64(nil), theta...)
		_, err = train.Run(obj, opt, th, train.Config{Steps: n, Every: n})
		if err == nil {
			return eta
		}
		if !errors.Is(err, train.ErrNonFinite) {
			return lr
		}
	}
	return lr
}

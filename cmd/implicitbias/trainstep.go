package main

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/train"
)

// stableStep returns the default gradient-descent step of train (without
// --lr): 1/λ, λ the largest |eigenvalue| of the objective's Hessian at θ₀
// (as reduced: the mean's Hessian is the sum's over n). Gradient descent on
// the local quadratic model is stable for η < 2/λ; 1/λ keeps a factor 2 for
// the curvature growing early in training. λ is found by power iteration
// (stableStepIters) on Hessian–vector products taken as central
// differences of the gradient, from the fixed start (1, …, 1)/√P, so the
// default is deterministic. The caller takes min(0.1, 1/λ) on the sum's
// scale: the old default where it is stable (small data, where 0.1 is well
// below 1/λ), the stable step where it is not (digits 3 vs 8, 357
// standardized images, mlp:relu:2x16: 0.1·n = 35.7 on the mean diverged at
// step 94; 1/λ separates in 3000 steps). false when λ cannot be measured
// (a non-finite gradient, λ = 0).
func stableStep(obj *train.Objective, theta []float64) (float64, bool) {
	P := len(theta)
	v := make([]float64, P)
	for i := range v {
		v[i] = 1 / math.Sqrt(float64(P))
	}
	grad := func(th []float64) ([]float64, bool) {
		ev, err := obj.Evaluate(th, true)
		if err != nil {
			return nil, false
		}
		g := make([]float64, P)
		floats.ScaleTo(g, math.Exp(ev.LogObjective), ev.Dir)
		return g, true
	}
	h := 1e-5 * math.Max(1, floats.Norm(theta, 2))
	plus, minus := make([]float64, P), make([]float64, P)
	lambda := 0.0
	for range stableStepIters {
		floats.AddScaledTo(plus, theta, h, v)
		floats.AddScaledTo(minus, theta, -h, v)
		gp, ok1 := grad(plus)
		gm, ok2 := grad(minus)
		if !ok1 || !ok2 {
			return 0, false
		}
		floats.Sub(gp, gm)
		floats.Scale(1/(2*h), gp) // Hv
		lambda = floats.Norm(gp, 2)
		if !(lambda > 0) || math.IsInf(lambda, 0) {
			return 0, false
		}
		floats.ScaleTo(v, 1/lambda, gp)
	}
	return 1 / lambda, true
}

// stableStepIters is the number of power iterations of stableStep: the
// default needs λ to a factor, not to digits (the iteration approaches λ
// from below; 30 steps reach within a few percent of it when the two
// largest eigenvalues are 10% apart).
const stableStepIters = 30

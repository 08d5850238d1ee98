package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
)

// predictLogTime returns θ at s1 from θ0 at s0 along dθ/ds = e^{s}F(θ),
// and the integrator's error estimate: the distance between the results
// with n and 2n classical Runge–Kutta steps (numerics.RK4; its error at
// 2n steps is about 1/15 of it). curv bounds ‖∂F/∂θ‖ at θ0; the steps
// follow flowStiffStep and flowMinSteps.
func predictLogTime(field func(dst, theta []float64), curv float64, theta0 []float64, s0, s1 float64) (pred []float64, errEst float64) {
	jac := math.Exp(s1) * curv
	n := int(math.Ceil((s1 - s0) * math.Max(flowMinSteps, jac/flowStiffStep)))
	n = min(max(n, 4), flowMaxSteps)
	// dθ/ds = e^{s}·F(θ): the flow dθ/dT = F(θ) read in log time s = log T,
	// where the flows of GD on separable data are smooth and of size
	// O(‖ŵ‖) (Soudry et al. 2018, proof of Thm 3).
	rhs := func(dst []float64, s float64, th []float64) {
		field(dst, th)
		floats.Scale(math.Exp(s), dst)
	}
	return numerics.RK4(rhs, theta0, s0, s1, &numerics.RK4Settings{Steps: n})
}

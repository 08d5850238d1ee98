package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// integrateLogTime advances θ (in place) along dθ/ds = e^{s}·F(θ) from s0
// to s1 by n classical Runge–Kutta steps: a flow dθ/dT = F(θ) read in log
// time s = log T, where the flows of GD on separable data are smooth and
// of size O(‖ŵ‖) (Soudry et al. 2018, proof of Thm 3). field writes F(θ)
// into dst.
func integrateLogTime(field func(dst, theta []float64), theta []float64, s0, s1 float64, n int) {
	d := len(theta)
	k1, k2, k3, k4, tmp := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	h := (s1 - s0) / float64(n)
	rhs := func(dst []float64, s float64, th []float64) {
		field(dst, th)
		floats.Scale(math.Exp(s), dst)
	}
	for i := 0; i < n; i++ {
		s := s0 + float64(i)*h
		rhs(k1, s, theta)
		floats.AddScaledTo(tmp, theta, h/2, k1)
		rhs(k2, s+h/2, tmp)
		floats.AddScaledTo(tmp, theta, h/2, k2)
		rhs(k3, s+h/2, tmp)
		floats.AddScaledTo(tmp, theta, h, k3)
		rhs(k4, s+h, tmp)
		for j := range theta {
			theta[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
		}
	}
}

// predictLogTime returns θ at s1 from θ0 at s0 along dθ/ds = e^{s}F(θ),
// and the integrator's error estimate: the distance between the results
// with n and 2n steps (RK4's error at 2n steps is about 1/15 of it). curv
// bounds ‖∂F/∂θ‖ at θ0; the steps follow flowStiffStep and flowMinSteps.
func predictLogTime(field func(dst, theta []float64), curv float64, theta0 []float64, s0, s1 float64) (pred []float64, errEst float64) {
	jac := math.Exp(s1) * curv
	n := int(math.Ceil((s1 - s0) * math.Max(flowMinSteps, jac/flowStiffStep)))
	n = min(max(n, 4), flowMaxSteps)
	coarse := append([]float64(nil), theta0...)
	integrateLogTime(field, coarse, s0, s1, n)
	pred = append([]float64(nil), theta0...)
	integrateLogTime(field, pred, s0, s1, 2*n)
	return pred, floats.Distance(coarse, pred, 2)
}

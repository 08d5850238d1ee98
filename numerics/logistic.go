package numerics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LogisticRidge returns the unique minimizer of the weighted, L2-regularized
// logistic loss
//
//	F(θ) = Σ_i q_i log(1 + e^{−y_i⟨θ, x_i⟩}) + (μ/2)‖θ − θ₀‖²,   μ > 0,
//
// (strongly convex, so the minimizer exists and is unique) and F there, by
// Newton's method with the exact Hessian
//
//	∇²F = Σ_i q_i σ(m_i)σ(−m_i) x_i x_iᵀ + μI,   m_i = y_i⟨θ, x_i⟩,
//
// factored by Cholesky, and a backtracking line search. It stops when the
// Newton decrement λ² = ∇Fᵀ(∇²F)⁻¹∇F falls below 1e-28·(1 + |F|), where F
// is then within λ²/2 of its minimum and θ within λ/√μ of the minimizer
// (standard self-concordance-free bounds for μ-strongly convex F).
// x is n×d row-major, y_i = ±1, q_i ≥ 0; theta0 nil means 0.
func LogisticRidge(x []float64, n, d int, y, q, theta0 []float64, mu float64) (theta []float64, f float64, err error) {
	if n < 1 || d < 1 || len(x) != n*d || len(y) != n || len(q) != n || (theta0 != nil && len(theta0) != d) {
		return nil, 0, fmt.Errorf("%w: logistic ridge with n = %d, d = %d", ErrShape, n, d)
	}
	if !(mu > 0) || math.IsInf(mu, 0) {
		return nil, 0, fmt.Errorf("numerics: μ must be a finite number > 0, got %v", mu)
	}
	th0 := theta0
	if th0 == nil {
		th0 = make([]float64, d)
	}
	// The signed samples z_i = y_i x_i: m_i = ⟨θ, z_i⟩, ∇F = −Σ q_i σ(−m_i) z_i
	// + μ(θ − θ₀), and z_i z_iᵀ = x_i x_iᵀ in the Hessian.
	z := make([]float64, n*d)
	for i := 0; i < n; i++ {
		floats.ScaleTo(z[i*d:(i+1)*d], y[i], x[i*d:(i+1)*d])
	}
	obj := func(th []float64) float64 {
		var s float64
		for i := 0; i < n; i++ {
			m := floats.Dot(z[i*d:(i+1)*d], th)
			s += q[i] * Log1pExp(-m)
		}
		var r float64
		for j := range th {
			r += (th[j] - th0[j]) * (th[j] - th0[j])
		}
		return s + 0.5*mu*r
	}
	theta = append([]float64(nil), th0...)
	f = obj(theta)
	g := make([]float64, d)
	step := make([]float64, d)
	trial := make([]float64, d)
	h := mat.NewSymDense(d, nil)
	for iter := 0; iter < 200; iter++ {
		for j := range g {
			g[j] = mu * (theta[j] - th0[j])
		}
		h.Zero()
		for i := 0; i < n; i++ {
			zi := z[i*d : (i+1)*d]
			m := floats.Dot(zi, theta)
			// σ(−m) = 1/(1 + e^m), σ(m)σ(−m) = e^{−|m|}/(1 + e^{−|m|})².
			sm := 1 / (1 + math.Exp(m))
			e := math.Exp(-math.Abs(m))
			floats.AddScaled(g, -q[i]*sm, zi)
			h.SymRankOne(h, q[i]*e/((1+e)*(1+e)), mat.NewVecDense(d, zi))
		}
		for j := 0; j < d; j++ {
			h.SetSym(j, j, h.At(j, j)+mu)
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return nil, 0, &NotPositiveDefiniteError{Dim: d, Mu: mu}
		}
		sv := mat.NewVecDense(d, step)
		if err := ch.SolveVecTo(sv, mat.NewVecDense(d, g)); err != nil && !isCondition(err) {
			return nil, 0, err
		}
		dec := floats.Dot(g, step) // λ²
		if dec <= 1e-28*(1+math.Abs(f)) {
			return theta, f, nil
		}
		if dec <= 1e-12*(1+math.Abs(f)) {
			// The Armijo test cannot resolve a decrease of λ²/2 this far
			// below the rounding of F; Newton's full step converges
			// quadratically here (F is smooth and strongly convex).
			floats.AddScaled(theta, -1, step)
			f = obj(theta)
			continue
		}
		// Backtracking (Armijo, c = 1/4) along −step, t = 1, ½, …, 2⁻⁶⁰.
		t, stepped := 1.0, false
		for range 61 {
			floats.AddScaledTo(trial, theta, -t, step)
			if ft := obj(trial); ft <= f-0.25*t*dec {
				copy(theta, trial)
				f = ft
				stepped = true
				break
			}
			t /= 2
		}
		if !stepped {
			// No decrease representable: at the minimum to rounding.
			return theta, f, nil
		}
	}
	return nil, 0, fmt.Errorf("numerics: Newton's method for the logistic ridge did not converge in 200 iterations")
}

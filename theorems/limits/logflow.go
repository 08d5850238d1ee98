package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// gdFlow is the flow that constant-step gradient descent follows on the
// weighted risk of a linear model, 𝓛(θ) = Σ_n q_n ℓ(⟨θ, z_n⟩), z_n = y_n x_n
// (or the multi-class constraint vectors): with V = −∇𝓛 = Σ_n q_n
// (−ℓ′(u_n)) z_n, u_n = ⟨θ, z_n⟩, GD's step θ ← θ + ηV is the explicit Euler
// step of dθ/dT = V (T = Σ η), and by backward error analysis (Hairer,
// Lubich & Wanner, Geometric Numerical Integration, §IX.1) it follows the
// modified flow
//
//	dθ/dT = V − (η/2)·V′V,   V′V = −∇²𝓛·V = −Σ_n q_n ℓ″(u_n)⟨z_n, V⟩ z_n,
//
// with a local error of order η³ per step instead of Euler's η². Soudry et
// al. (2018, proof of Thm 3) read the same flow in log time s = log T,
// dθ/ds = T·V: with θ = ŵ s + r the support vectors' terms balance ŵ and r
// tends to the computed offset (ResidualLimit). The flow is integrated here
// in s, where it is smooth and of size O(‖ŵ‖).
type gdFlow struct {
	z    *mat.Dense
	tail *marginTail
	eta  float64
	q    []float64 // weight of every row of z
	// scratch: margins, V, the correction Σ q ℓ″⟨z, V⟩z
	u, v, corr []float64
}

func newGDFlow(z *mat.Dense, tail *marginTail, eta float64) *gdFlow {
	n, d := z.Dims()
	return &gdFlow{z: z, tail: tail, eta: eta, u: make([]float64, n), v: make([]float64, d), corr: make([]float64, d)}
}

// velocity sets f.u to the margins at θ and f.v to V(θ), and returns the
// curvature bound Σ_n q_n ℓ″(u_n)‖z_n‖² ≥ ‖∇²𝓛(θ)‖.
func (f *gdFlow) velocity(theta []float64) float64 {
	n, _ := f.z.Dims()
	for i := range f.v {
		f.v[i] = 0
	}
	var h float64
	for k := 0; k < n; k++ {
		zk := f.z.RawRowView(k)
		f.u[k] = floats.Dot(zk, theta)
		if f.q[k] == 0 {
			continue
		}
		floats.AddScaled(f.v, f.q[k]*f.tail.slope(f.u[k]), zk)
		h += f.q[k] * f.tail.curv(f.u[k]) * floats.Dot(zk, zk)
	}
	return h
}

// field writes the modified field V − (η/2)V′V at θ into dst and returns
// ‖V′V‖ (GD's first-order departure from dθ/dT = V, per unit of η/2).
func (f *gdFlow) field(dst, theta []float64) float64 {
	n, _ := f.z.Dims()
	f.velocity(theta)
	copy(dst, f.v)
	corr := f.corr
	for i := range corr {
		corr[i] = 0
	}
	for k := 0; k < n; k++ {
		if f.q[k] == 0 {
			continue
		}
		zk := f.z.RawRowView(k)
		floats.AddScaled(corr, f.q[k]*f.tail.curv(f.u[k])*floats.Dot(zk, f.v), zk)
	}
	// −(η/2)V′V = +(η/2)Σ q ℓ″⟨z, V⟩z.
	floats.AddScaled(dst, f.eta/2, corr)
	return floats.Norm(corr, 2)
}

// flowSteps bounds the RK4 steps per unit of s: the log-time field's
// Jacobian has norm ≤ T·Σ q ℓ″‖z‖², and h·‖J‖ ≤ 1/20 keeps RK4's error
// (∝ (h‖J‖)⁴ per step) far below the budgets it is compared with; at least
// 20 steps per unit of s for the field's own variation (e^{s}).
const (
	flowStiffStep = 0.05
	flowMinSteps  = 20
	flowMaxSteps  = 200000
)

// predict returns θ at s1 from θ0 at s0 along the modified flow, and the
// integrator's error estimate: the distance between the results with n and
// 2n steps (RK4's error at 2n steps is about 1/15 of it).
func (f *gdFlow) predict(theta0 []float64, s0, s1 float64) (pred []float64, errEst float64) {
	return predictLogTime(func(dst, th []float64) { f.field(dst, th) }, f.velocity(theta0), theta0, s0, s1)
}

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

package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// ceFlow is the flow that constant-step gradient descent follows on the
// weighted softmax cross-entropy of a linear K-class model (ZD App. B),
//
//	𝓛(Θ) = Σ_n q_n log(1 + Σ_{j≠c_n} e^{−u_{n,j}}),   u_{n,j} = ⟨Θ, a_{n,j}⟩,
//
// a_{n,j} = (e_{c_n} − e_j) ⊗ x_n the constraint vectors of the multi-class
// SVM (numerics.MultiClassConstraints: the K − 1 rows of sample n are
// rows n(K−1) … n(K−1) + K − 2). With π_{n,j} = e^{−u_{n,j}}/(1 + Σ_k
// e^{−u_{n,k}}), the softmax probability of the wrong class j,
//
//	V = −∇𝓛 = Σ_n q_n Σ_j π_{n,j} a_{n,j},
//	∇²𝓛 = Σ_n q_n A_nᵀ(diag π_n − π_n π_nᵀ)A_n ⪯ Σ_n q_n Σ_j π_{n,j} a_{n,j}a_{n,j}ᵀ,
//
// and GD follows the modified flow dΘ/dT = V + (η/2)∇²𝓛·V (backward error
// analysis, as gdFlow for binary margin losses). Each row's slope π_{n,j}
// tends to e^{−u_{n,j}} as the margins grow (tail constant 1): the
// cross-entropy is, to first order, the exponential loss on the rows, with
// the weight q_n shared by the K − 1 rows of a sample, and
// π_{n,j} − e^{−u_{n,j}} = −e^{−u_{n,j}}·σ_n/(1 + σ_n), σ_n = Σ_k e^{−u_{n,k}},
// is its tail's departure.
type ceFlow struct {
	a   *mat.Dense
	per int // K − 1
	eta float64
	q   []float64 // weight of every sample
	// scratch: margins and slopes of the rows, V, ∇²𝓛·V, a sample's
	// exponents
	u, pi, v, hv, e []float64
}

func newCEFlow(a *mat.Dense, per int, eta float64) *ceFlow {
	rows, d := a.Dims()
	return &ceFlow{a: a, per: per, eta: eta, u: make([]float64, rows), pi: make([]float64, rows),
		v: make([]float64, d), hv: make([]float64, d), e: make([]float64, per+1)}
}

// velocity sets f.u and f.pi to the rows' margins and slopes π at Θ and
// f.v to V(Θ), and returns the curvature bound Σ_n q_n Σ_j π_{n,j}‖a_{n,j}‖²
// ≥ ‖∇²𝓛(Θ)‖.
func (f *ceFlow) velocity(theta []float64) float64 {
	rows, _ := f.a.Dims()
	for i := range f.v {
		f.v[i] = 0
	}
	var h float64
	for n := 0; n*f.per < rows; n++ {
		r0 := n * f.per
		f.e[0] = 0
		for j := 0; j < f.per; j++ {
			f.u[r0+j] = floats.Dot(f.a.RawRowView(r0+j), theta)
			f.e[j+1] = -f.u[r0+j]
		}
		lse := numerics.LogSumExp(f.e) // log(1 + σ_n)
		for j := 0; j < f.per; j++ {
			aj := f.a.RawRowView(r0 + j)
			f.pi[r0+j] = math.Exp(-f.u[r0+j] - lse)
			if f.q[n] == 0 {
				continue
			}
			floats.AddScaled(f.v, f.q[n]*f.pi[r0+j], aj)
			h += f.q[n] * f.pi[r0+j] * floats.Dot(aj, aj)
		}
	}
	return h
}

// field writes the modified field V + (η/2)∇²𝓛·V at Θ into dst and
// returns ‖∇²𝓛·V‖ (GD's first-order departure from dΘ/dT = V, per unit of
// η/2).
func (f *ceFlow) field(dst, theta []float64) float64 {
	rows, _ := f.a.Dims()
	f.velocity(theta)
	for i := range f.hv {
		f.hv[i] = 0
	}
	for n := 0; n*f.per < rows; n++ {
		if f.q[n] == 0 {
			continue
		}
		r0 := n * f.per
		// (diag π − ππᵀ)c with c_j = ⟨a_j, V⟩: π_j(c_j − Σ_k π_k c_k).
		var mean float64
		for j := 0; j < f.per; j++ {
			f.e[j] = floats.Dot(f.a.RawRowView(r0+j), f.v)
			mean += f.pi[r0+j] * f.e[j]
		}
		for j := 0; j < f.per; j++ {
			floats.AddScaled(f.hv, f.q[n]*f.pi[r0+j]*(f.e[j]-mean), f.a.RawRowView(r0+j))
		}
	}
	copy(dst, f.v)
	floats.AddScaled(dst, f.eta/2, f.hv)
	return floats.Norm(f.hv, 2)
}

// tailDev returns |π_{n,j} − e^{−u_{n,j}}| = e^{−u_{n,j}}σ_n/(1 + σ_n) of
// row r at the margins velocity last set.
func (f *ceFlow) tailDev(r int) float64 {
	r0 := r - r%f.per
	f.e[0] = 0
	for j := 0; j < f.per; j++ {
		f.e[j+1] = -f.u[r0+j]
	}
	lse := numerics.LogSumExp(f.e)
	logSigma := numerics.LogSumExp(f.e[1:])
	return math.Exp(-f.u[r] + logSigma - lse)
}

// maxSampleSpeed returns max_n ‖Σ_j π_{n,j} a_{n,j}‖ at the margins
// velocity last set: the most one sample of weight 1 moves Θ per unit of T.
func (f *ceFlow) maxSampleSpeed() float64 {
	return floats.Max(f.sampleSpeeds())
}

// sampleSpeeds returns ‖Σ_j π_{n,j} a_{n,j}‖ for every sample n at the
// margins velocity last set: how fast sample n of weight 1 moves Θ per
// unit of T.
func (f *ceFlow) sampleSpeeds() []float64 {
	rows, d := f.a.Dims()
	g := make([]float64, d)
	out := make([]float64, rows/f.per)
	for n := range out {
		for i := range g {
			g[i] = 0
		}
		for j := 0; j < f.per; j++ {
			floats.AddScaled(g, f.pi[n*f.per+j], f.a.RawRowView(n*f.per+j))
		}
		out[n] = floats.Norm(g, 2)
	}
	return out
}

// predict returns Θ at s1 from θ0 at s0 along the modified flow, and the
// integrator's error estimate, at most tol where the steps allow
// (predictLogTime).
func (f *ceFlow) predict(theta0 []float64, s0, s1, tol float64) ([]float64, float64) {
	return predictLogTime(func(dst, th []float64) { f.field(dst, th) }, f.velocity(theta0), theta0, s0, s1, tol)
}

package models

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MexicanHat is the homogeneous "Mexican hat" of LL App. I, a C^∞ model on
// θ = (x, y, z) ∈ ℝ³ whose gradient flow does not converge in direction:
//
//	Φ(θ; ·) = h(θ) = ρ^L (1 − f(u, v)),   ρ = ‖θ‖,  (u, v, w) = θ/ρ,
//
// with Absil, Mahony and Andrews' (2005) Mexican hat, in polar coordinates
// (u, v) = (r cos φ, r sin φ):
//
//	f = e^{−1/(1−r²)} (1 − C(r) sin(φ − 1/(1−r²)))  for r < 1,   f = 0 for r ≥ 1,
//	C(r) = 4r⁴ / (4r⁴ + (1 − r²)⁴).
//
// h ignores its input: every sample has q_n = h(θ) (LL Thm I.1 trains
// 𝓛 = Σ_n e^{−h(θ)}), so a dataset of N samples labelled +1 (any features)
// trains it. Φ is L-homogeneous in θ for any real L > 0 (one block of
// degree L).
//
// Thm I.1 starts the flow on the curve ψ = φ − 1/(1−r²) = 0 and argues that
// it stays there (dψ/dt = 0), so that r → 1 forces φ → ∞. That argument
// holds for Absil et al.'s planar flow, where ṙ = −∂f/∂r, but θ̂ moves on the
// sphere: projecting ∇h onto the tangent space gives
//
//	ṙ = −ρ^{L−2}(1 − r²) ∂f/∂r,   φ̇ = −ρ^{L−2} r^{−2} ∂f/∂φ
//
// (LL App. I derives both), and with them dψ/dt = 0 on ψ = 0 requires
//
//	C(r) = 4r⁴ / (4r⁴ + (1 − r²)³),
//
// not Absil's (1 − r²)⁴ in the denominator: LL's final step drops the
// factor (1 − r²) of ṙ. HatInvariant uses the corrected C, for which the
// theorem's argument goes through; HatLL the C printed in LL (ψ = 0 is then
// not invariant, see TestMexicanHatInvariantCurve); HatFlat has C ≡ 0:
// f = e^{−1/(1−r²)} is rotationally symmetric, (u, v) moves radially and θ̂
// converges — the negative control of LL-I1.
type MexicanHat struct {
	l       float64
	in      int
	variant HatVariant
}

// HatVariant selects the twist C(r) of the Mexican hat.
type HatVariant int

const (
	// HatInvariant: C(r) = 4r⁴/(4r⁴ + (1−r²)³), for which ψ = 0 is
	// invariant under the flow of h.
	HatInvariant HatVariant = iota
	// HatLL: C(r) = 4r⁴/(4r⁴ + (1−r²)⁴) as printed in LL App. I (Absil et
	// al.'s planar Mexican hat).
	HatLL
	// HatFlat: C ≡ 0, no twist.
	HatFlat
)

// NewMexicanHat returns the Mexican hat of order L > 0 for inputs of
// dimension in ≥ 1 (ignored), with the twist of the given variant.
func NewMexicanHat(L float64, in int, variant HatVariant) (*MexicanHat, error) {
	if !(L > 0) || math.IsInf(L, 0) {
		return nil, fmt.Errorf("models: Mexican hat needs a finite order L > 0, got %v", L)
	}
	if in < 1 {
		return nil, fmt.Errorf("models: input dimension must be ≥ 1, got %d", in)
	}
	if variant < HatInvariant || variant > HatFlat {
		return nil, fmt.Errorf("models: unknown Mexican hat variant %d", variant)
	}
	return &MexicanHat{l: L, in: in, variant: variant}, nil
}

// In returns the (ignored) input dimension.
func (m *MexicanHat) In() int { return m.in }

// Out returns 1.
func (m *MexicanHat) Out() int { return 1 }

// NumParams returns 3.
func (m *MexicanHat) NumParams() int { return 3 }

// Degree returns L: h(cθ) = c^L h(θ).
func (m *MexicanHat) Degree() Degree {
	return Degree{Homogeneous: true, Order: m.l, Blocks: []float64{m.l}}
}

// Blocks returns the single block θ = (x, y, z).
func (m *MexicanHat) Blocks() []Block { return []Block{{Name: "theta", Offset: 0, Len: 3}} }

// String returns "mexicanhat:L", "mexicanhat-ll:L" or "mexicanhat-flat:L".
func (m *MexicanHat) String() string {
	return fmt.Sprintf("%s:%g", [...]string{"mexicanhat", "mexicanhat-ll", "mexicanhat-flat"}[m.variant], m.l)
}

type hatWorkspace struct {
	cap  int
	out  []float64
	grad [3]float64
}

func (w *hatWorkspace) Cap() int { return w.cap }

// NewWorkspace returns buffers for batches of up to n samples.
func (m *MexicanHat) NewWorkspace(n int) Workspace {
	return &hatWorkspace{cap: n, out: make([]float64, n)}
}

// Forward writes h(θ) for each of the n samples (x is ignored).
func (m *MexicanHat) Forward(ws Workspace, theta, x []float64, n int) []float64 {
	w := ws.(*hatWorkspace)
	if n > w.cap {
		panic(fmt.Sprintf("models: batch of %d exceeds workspace capacity %d", n, w.cap))
	}
	h := m.eval(theta, &w.grad)
	out := w.out[:n]
	for i := range out {
		out[i] = h
	}
	return out
}

// Backward writes (Σ_i gOut_i)·∇h(θ) into grad.
func (m *MexicanHat) Backward(ws Workspace, theta, gOut, grad []float64) {
	w := ws.(*hatWorkspace)
	var s float64
	for _, g := range gOut {
		s += g
	}
	for i := range 3 {
		grad[i] = s * w.grad[i]
	}
}

// Init draws a start on the curve ψ = 0 of Thm I.1 with ρ = 1: r uniform in
// [0.3, 0.6], φ = 1/(1 − r²), z = √(1 − r²).
func (m *MexicanHat) Init(r *rand.Rand, theta []float64) {
	rr := 0.3 + 0.3*r.Float64()
	phi := 1 / (1 - rr*rr)
	theta[0] = rr * math.Cos(phi)
	theta[1] = rr * math.Sin(phi)
	theta[2] = math.Sqrt(1 - rr*rr)
}

// hatF returns f(u, v) and its partial derivatives f_u, f_v.
func (m *MexicanHat) hatF(u, v float64) (f, fu, fv float64) {
	r2 := u*u + v*v
	if r2 >= 1 {
		return 0, 0, 0
	}
	a := 1 / (1 - r2)
	// e^{−a}·a⁴ < 1e-300 beyond a = 700: f and its derivatives are 0 in
	// float64 there (and a⁴·0 must not become NaN).
	if a > 700 {
		return 0, 0, 0
	}
	E := math.Exp(-a)
	r := math.Sqrt(r2)
	if r == 0 {
		return E, 0, 0
	}
	phi := math.Atan2(v, u)
	// C and C′ = dC/dr, with s = 1 − r²:
	//	invariant: C = 4r⁴/(4r⁴ + s³),  C′ = 8r³s²(2s + 3r²)/(4r⁴ + s³)²
	//	LL:        C = 4r⁴/(4r⁴ + s⁴),  C′ = 16r³s³(1 + r²)/(4r⁴ + s⁴)²
	var C, dC float64
	s := 1 - r2
	switch m.variant {
	case HatInvariant:
		den := 4*r2*r2 + s*s*s
		C = 4 * r2 * r2 / den
		dC = 8 * r2 * r * s * s * (2*s + 3*r2) / (den * den)
	case HatLL:
		den := 4*r2*r2 + s*s*s*s
		C = 4 * r2 * r2 / den
		dC = 16 * r2 * r * s * s * s * (1 + r2) / (den * den)
	}
	sinPsi, cosPsi := math.Sincos(phi - a)
	da := 2 * r * a * a // da/dr
	f = E * (1 - C*sinPsi)
	// ∂f/∂r = −(da/dr)E(1 − C sin ψ) − E C′ sin ψ + E C cos ψ·(da/dr)
	// (ψ = φ − a, ∂ψ/∂r = −da/dr); ∂f/∂φ = −E C cos ψ.
	fr := -da*E*(1-C*sinPsi) - E*dC*sinPsi + E*C*cosPsi*da
	fphi := -E * C * cosPsi
	cosPhi, sinPhi := u/r, v/r
	fu = cosPhi*fr - sinPhi*fphi/r
	fv = sinPhi*fr + cosPhi*fphi/r
	return f, fu, fv
}

// eval returns h(θ) and writes ∇h(θ) into g (LL App. I):
//
//	∂h/∂x = ρ^{L−1}(L u(1 − f) − (1 − u²) f_u + u v f_v)
//	∂h/∂y = ρ^{L−1}(L v(1 − f) + u v f_u − (1 − v²) f_v)
//	∂h/∂z = ρ^{L−1}(L w(1 − f) + u w f_u + v w f_v)
func (m *MexicanHat) eval(theta []float64, g *[3]float64) float64 {
	x, y, z := theta[0], theta[1], theta[2]
	rho := math.Sqrt(x*x + y*y + z*z)
	if rho == 0 {
		*g = [3]float64{}
		return 0
	}
	u, v, w := x/rho, y/rho, z/rho
	f, fu, fv := m.hatF(u, v)
	rl := math.Pow(rho, m.l)
	p := rl / rho
	L := m.l
	g[0] = p * (L*u*(1-f) - (1-u*u)*fu + u*v*fv)
	g[1] = p * (L*v*(1-f) + u*v*fu - (1-v*v)*fv)
	g[2] = p * (L*w*(1-f) + u*w*fu + v*w*fv)
	return rl * (1 - f)
}

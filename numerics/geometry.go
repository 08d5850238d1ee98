package numerics

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Angle returns the angle ∠(u, v) ∈ [0, π] between two non-zero vectors of
// equal length as
//
//	∠(u, v) = 2·asin(‖û − v̂‖/2),  û = u/‖u‖,
//
// which keeps full relative accuracy for tiny angles, where acos⟨û, v̂⟩
// loses half the digits (at ∠ = 1e-8, ⟨û, v̂⟩ = 1 − 5e-17 rounds to 1).
// The price is at the other end: near π, asin is flat at 1 and the error
// grows to √ε ≈ 1.5e-8 (the checks measure angles to a limit, small).
//
// Special cases: a zero vector gives NaN.
func Angle(u, v []float64) float64 {
	if len(u) != len(v) {
		panic("numerics: Angle of vectors of unequal length")
	}
	nu, nv := floats.Norm(u, 2), floats.Norm(v, 2)
	var s float64
	for i := range u {
		d := u[i]/nu - v[i]/nv
		s += d * d
	}
	return 2 * math.Asin(math.Min(1, math.Sqrt(s)/2))
}

// KLDivergence returns the Kullback–Leibler divergence of the
// distributions p/Σp and q/Σq,
//
//	KL(p‖q) = Σ_i p̄_i log(p̄_i/q̄_i),
//
// with 0·log 0 = 0. Entries must be ≥ 0 with positive sums.
//
// Special cases: KL = +Inf when some q_i = 0 < p_i.
func KLDivergence(p, q []float64) float64 {
	if len(p) != len(q) {
		panic("numerics: KLDivergence of vectors of unequal length")
	}
	sp, sq := floats.Sum(p), floats.Sum(q)
	var kl float64
	for i, v := range p {
		if v <= 0 {
			continue
		}
		a, b := v/sp, q[i]/sq
		if b <= 0 {
			return math.Inf(1)
		}
		kl += a * math.Log(a/b)
	}
	return kl
}

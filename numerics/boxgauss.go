package numerics

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// BoxSet is a product set B = I_1 × … × I_d whose factors I_j are finite
// unions of disjoint closed intervals [a, b]. Gaussians with identity
// covariance restricted to such a set keep independent coordinates, so
// their masses, χ² divergences and samples are products of one-dimensional
// ones (XY-T1's synthetic covariate shift).
type BoxSet [][][2]float64

// Validate checks that every factor is a non-empty list of intervals with
// finite a < b, disjoint and in increasing order.
func (b BoxSet) Validate() error {
	if len(b) == 0 {
		return fmt.Errorf("numerics: empty box set")
	}
	for j, f := range b {
		if len(f) == 0 {
			return fmt.Errorf("numerics: box factor %d is empty", j)
		}
		for k, iv := range f {
			if !(iv[0] < iv[1]) || math.IsInf(iv[0], 0) || math.IsInf(iv[1], 0) {
				return fmt.Errorf("numerics: box factor %d interval %d is %v", j, k, iv)
			}
			if k > 0 && !(f[k-1][1] < iv[0]) {
				return fmt.Errorf("numerics: box factor %d intervals overlap or are unsorted", j)
			}
		}
	}
	return nil
}

// phiDiff returns Φ(b) − Φ(a) for a < b without cancellation: through the
// upper tail erfc(x/√2)/2 when a ≥ 0, the lower tail when b ≤ 0.
func phiDiff(a, b float64) float64 {
	switch {
	case a >= 0:
		return 0.5 * (math.Erfc(a/math.Sqrt2) - math.Erfc(b/math.Sqrt2))
	case b <= 0:
		return 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
	}
	return 1 - 0.5*math.Erfc(b/math.Sqrt2) - 0.5*math.Erfc(-a/math.Sqrt2)
}

// LogGaussMass returns log P(X ∈ B) for X ~ N(m, I):
//
//	P = Π_j Σ_{[a,b] ∈ I_j} (Φ(b − m_j) − Φ(a − m_j)).
func (b BoxSet) LogGaussMass(m []float64) float64 {
	var s float64
	for j, f := range b {
		var p float64
		for _, iv := range f {
			p += phiDiff(iv[0]-m[j], iv[1]-m[j])
		}
		s += math.Log(p)
	}
	return s
}

// LogDensityRatio returns log η(x) = log p̃_t(x)/p̃_s(x) for the Gaussians
// N(μ_t, I), N(μ_s, I) restricted to B (x ∈ B):
//
//	log η(x) = ⟨μ_t − μ_s, x⟩ − (‖μ_t‖² − ‖μ_s‖²)/2 + log Z_s − log Z_t,
//
// with Z = P(N(μ, I) ∈ B) the normalizing masses.
func (b BoxSet) LogDensityRatio(x, muT, muS []float64, logZt, logZs float64) float64 {
	var s float64
	for j, v := range x {
		s += (muT[j]-muS[j])*v - 0.5*(muT[j]*muT[j]-muS[j]*muS[j])
	}
	return s + logZs - logZt
}

// Chi2 returns the Pearson χ² divergence D(P_t‖P_s) = ∫ p̃_t²/p̃_s − 1 of the
// restricted Gaussians, exactly: completing the square,
// p_t²/p_s = e^{‖μ_t − μ_s‖²}·φ(x − (2μ_t − μ_s)), so
//
//	D + 1 = (Z_s/Z_t²)·e^{‖μ_t − μ_s‖²}·P(N(2μ_t − μ_s, I) ∈ B).
func (b BoxSet) Chi2(muT, muS []float64) float64 {
	m := make([]float64, len(muT))
	var d2 float64
	for j := range m {
		m[j] = 2*muT[j] - muS[j]
		d2 += (muT[j] - muS[j]) * (muT[j] - muS[j])
	}
	logZt, logZs := b.LogGaussMass(muT), b.LogGaussMass(muS)
	return math.Exp(logZs-2*logZt+d2+b.LogGaussMass(m)) - 1
}

// Sample writes a draw of N(m, I) restricted to B into x, coordinate by
// coordinate (independent under the product structure) by rejection; it
// fails when a factor's mass is too small for rejection (< 1e-6).
func (b BoxSet) Sample(r *rand.Rand, m, x []float64) error {
	for j, f := range b {
		var mass float64
		for _, iv := range f {
			mass += phiDiff(iv[0]-m[j], iv[1]-m[j])
		}
		if mass < 1e-6 {
			return fmt.Errorf("numerics: box factor %d has mass %.3g under N(%g, 1): too small to sample", j, mass, m[j])
		}
		for {
			v := m[j] + r.NormFloat64()
			in := false
			for _, iv := range f {
				in = in || v >= iv[0] && v <= iv[1]
			}
			if in {
				x[j] = v
				break
			}
		}
	}
	return nil
}

// MaxNorm returns sup_{x∈B} ‖x‖ (the largest |endpoint| per factor).
func (b BoxSet) MaxNorm() float64 {
	var s float64
	for _, f := range b {
		var m float64
		for _, iv := range f {
			m = math.Max(m, math.Max(math.Abs(iv[0]), math.Abs(iv[1])))
		}
		s += m * m
	}
	return math.Sqrt(s)
}

package homogeneity

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// norm2 returns ‖x‖₂ as √⟨x, x⟩ (one pass of gonum's assembly dot product)
// when ⟨x, x⟩ is a normal number, and by gonum's scaled, overflow-free
// algorithm (floats.Norm) otherwise. The point identities take the norm of
// every single-sample gradient: on LL's CNN (3.2·10⁶ entries) the scaled
// algorithm, a division and a branch per entry, cost 44% of LL-B3 and
// LL-B3m, the dot product a seventh of that. The two differ by rounding
// (relative 10⁻¹⁶·√P at most in practice), in the denominator of a
// statistic compared to EulerBound = 1e-10.
func norm2(x []float64) float64 {
	ss := floats.Dot(x, x)
	if ss > 0x1p-1000 && ss < 0x1p1000 {
		return math.Sqrt(ss)
	}
	return floats.Norm(x, 2)
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGDMarginLambda checks λ against LL App. E.1's definition, written in
// the loss x = e^{−s} as LL does:
//
//	λ(x) = (1/L)·κ(x)⁻¹·x·(log 1/x)^{1−2/L},
//	κ(x) = x (log 1/x)^{2−2/L}  if L ≤ 1 or x ≤ e^{2/L−2},  κ_max otherwise,
//	κ_max = e^{(2−2/L)(ln(2−2/L)−1)}.
//
// TestGDMarginAgainstBruteForce shares λ with the code (its brute force
// integrates the code's h), so λ is checked here on its own: both regimes,
// and the switch at s = 2 − 2/L, for L on both sides of 1. The two
// expressions round differently (powers of s against powers of log(1/x)
// with x = e^{−s} rounded): 1e-13 relative is a few hundred ulps of
// e^{−s}·s^{…} for s ≤ 30.
func TestGDMarginLambda(t *testing.T) {
	for _, L := range []float64{0.5, 1, 2, 3, 7} {
		g, err := NewGDMargin(-0.1, L)
		require.NoError(t, err)
		for _, s := range []float64{0.05, 0.3, 0.9, 1, 1.2, 1.7, 2.5, 10, 30} {
			x := math.Exp(-s)
			lg := math.Log(1 / x)
			kappa := x * math.Pow(lg, 2-2/L)
			if L > 1 && x > math.Exp(2/L-2) {
				k := 2 - 2/L
				kappa = math.Exp(k * (math.Log(k) - 1))
			}
			want := x * math.Pow(lg, 1-2/L) / (L * kappa)
			require.InDelta(t, want, g.lambda(s), 1e-13*want, "L = %g, s = %g", L, s)
		}
	}
}

// TestGDMarginDomain: γ̂ needs 0 < 𝓛(t₀) < 1 (LL (A4)): log 𝓛(t₀) = 0 and
// −Inf are outside, as are L ≤ 0 and L = +Inf.
func TestGDMarginDomain(t *testing.T) {
	for _, tc := range [][2]float64{{0, 2}, {math.Inf(-1), 2}, {math.NaN(), 2}, {-1, 0}, {-1, math.Inf(1)}, {-1, math.NaN()}} {
		_, err := NewGDMargin(tc[0], tc[1])
		require.Error(t, err, "log 𝓛(t₀) = %g, L = %g", tc[0], tc[1])
	}
}

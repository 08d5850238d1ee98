package numerics_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/numerics"
)

// TestBoxSetChi2: the exact χ² divergence of two restricted Gaussians
// agrees with the Monte-Carlo mean of η² − 1 under the source (E_s[η²] =
// D + 1), the density ratio integrates to 1 under the source, and without
// truncation (a box of ±40) D = e^{‖Δ‖²} − 1.
func TestBoxSetChi2(t *testing.T) {
	b := numerics.BoxSet{{{-4, -1}, {1, 4}}, {{-1.5, 1.5}}}
	require.NoError(t, b.Validate())
	muS, muT := []float64{0.3, -0.2}, []float64{0.8, 0.4}
	d := b.Chi2(muT, muS)
	lzt, lzs := b.LogGaussMass(muT), b.LogGaussMass(muS)
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 2)
	var s1, s2 float64
	const n = 400000
	for i := 0; i < n; i++ {
		require.NoError(t, b.Sample(r, muS, x))
		e := math.Exp(b.LogDensityRatio(x, muT, muS, lzt, lzs))
		s1 += e
		s2 += e * e
	}
	// Monte-Carlo standard errors at n = 4·10⁵ are ~2e-3 for E[η] and
	// ~5e-3·(D + 1) for E[η²]; 5 standard errors.
	assert.InDelta(t, 1, s1/n, 0.01)
	assert.InDelta(t, d+1, s2/n, 0.025*(d+1))
	wide := numerics.BoxSet{{{-40, 40}}, {{-40, 40}}}
	assert.InDelta(t, math.Exp(0.25+0.36)-1, wide.Chi2(muT, muS), 1e-12)
	assert.InDelta(t, math.Sqrt(4*4+1.5*1.5), b.MaxNorm(), 1e-15)
	assert.Error(t, numerics.BoxSet{{{1, 0}}}.Validate())
	assert.Error(t, numerics.BoxSet{{{0, 2}, {1, 3}}}.Validate())
}

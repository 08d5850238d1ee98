package train

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/internal/bigref"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// bruteI computes I(u) of LL App. E.2 straight from its definition in the
// variable s: the running maximum of h on a grid geometric in s (uniform in
// v = log s) and the trapezoid rule in v on [u, S], plus the closed-form
// tail beyond S = max(s₀, u, 3) + 20 (where H = h because h is increasing
// past 3). It shares only lambda/h with GDMargin.
func bruteI(g *GDMargin, u float64) float64 {
	S := math.Max(math.Max(g.S0, u), 3) + 20
	const n = 200_000
	// Running maximum of h on [s₀, u].
	H := g.h(u)
	if u > g.S0 {
		dv := math.Log(u/g.S0) / n
		for i := 0; i <= n; i++ {
			H = math.Max(H, g.h(g.S0*math.Exp(float64(i)*dv)))
		}
	}
	// ∫_u^S (1/s − e^{H(s)−s}) ds in v = log s (ds = s dv).
	dv := math.Log(S/u) / n
	var sum, prev float64
	for i := 0; i <= n; i++ {
		s := u * math.Exp(float64(i)*dv)
		H = math.Max(H, g.h(s))
		f := (1/s - math.Exp(H-s)) * s
		if i > 0 {
			sum += 0.5 * (f + prev) * dv
		}
		prev = f
	}
	return sum - g.S0*(1/S+1/(2*g.L*S*S))
}

// bruteRefs memoizes bruteI (2e5 trapezoid steps per value, 1.8 s for the
// whole table) for repeated runs of the suite, as internal/bigref's cache
// does for the big-float references: by default every value is computed and
// checked against testdata/bruteI-cache.txt; IMPLICITBIAS_BIGREF=cache reads
// it. The key holds S₀, L, u and a fingerprint of h at 64 points of [s₀, S],
// so a change of h (bruteI's only use of the code under test) recomputes.
var bruteRefs = bigref.NewCache("testdata/bruteI-cache.txt", false)

func cachedBruteI(g *GDMargin, u float64) float64 {
	S := math.Max(math.Max(g.S0, u), 3) + 20
	f := fnv.New64a()
	for i := 0; i < 64; i++ {
		s := g.S0 * math.Pow(S/g.S0, float64(i)/63)
		binary.Write(f, binary.LittleEndian, math.Float64bits(g.h(s)))
	}
	label := fmt.Sprintf("bruteI/%x", f.Sum64())
	return bruteRefs.Float(label, func() float64 { return bruteI(g, u) }, g.S0, g.L, u)
}

func TestGDMarginAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct{ logL0, L float64 }{
		{-0.05, 1}, {-0.05, 2}, {-0.3, 3}, {-1, 7}, {-2.5, 4}, {-0.01, 0.5}, {-5, 2},
	} {
		g, err := NewGDMargin(tc.logL0, tc.L)
		require.NoError(t, err)
		for _, du := range []float64{0, 0.1, 0.7, 2, 5, 40} {
			u := g.S0 + du
			got, qerr := g.I(u)
			want := cachedBruteI(g, u)
			// The trapezoid rule with 2e5 steps in log s on a piecewise-
			// smooth integrand (kinks where H leaves h) is accurate to
			// ~1e-7 relative (1e-9 at 2e6 steps, checked once).
			assert.InDelta(t, want, got, 1e-6*math.Abs(want)+1e-12, "L=%g s0=%g u=%g", tc.L, g.S0, u)
			assert.Less(t, qerr, 1e-12)
			assert.Less(t, got, 0.0, "I < 0 (LL Lemma E.1(a))")
		}
	}
}

// TestGDMarginClosedForm: for 𝓛(t₀) ≤ e^{−3}, H = h everywhere and LL's own
// formula (19) is exact: I(x) = −log(1/𝓛(t₀))(1/log(1/x) + 1/(2L log²(1/x))).
func TestGDMarginClosedForm(t *testing.T) {
	g, err := NewGDMargin(-4, 2)
	require.NoError(t, err)
	for _, u := range []float64{4, 10, 1e3, 1e6} {
		i, _ := g.I(u)
		assert.InDelta(t, -4*(1/u+1/(4*u*u)), i, 1e-15*4/u)
	}
	// log γ̂ = log γ̃ + I: γ̂ < γ̃ and γ̂/γ̃ → 1 (LL Lemma E.1).
	lg, _, err := g.LogGammaHat(-1e4, 30)
	require.NoError(t, err)
	assert.InDelta(t, math.Log(1e4)-2*math.Log(30)-4*(1e-4+1/(4e8)), lg, 1e-12)
	_, _, err = g.LogGammaHat(-3, 1)
	assert.ErrorIs(t, err, ErrAboveT0)
	_, err = NewGDMargin(0.1, 2)
	assert.ErrorContains(t, err, "𝓛(t₀) < 1")
	_, err = NewGDMargin(-1, 0)
	assert.ErrorContains(t, err, "L > 0")
}

// TestGDMarginIncreasing: I(u) is increasing in u (its derivative is
// e^{H(u)−u} − 1/u > 0), the property that lets γ̂ absorb GD's
// discretization error.
func TestGDMarginIncreasing(t *testing.T) {
	g, err := NewGDMargin(-0.2, 3)
	require.NoError(t, err)
	prev := math.Inf(-1)
	for u := g.S0; u < 50; u *= 1.01 {
		i, _ := g.I(u)
		assert.Greater(t, i, prev, "u = %g", u)
		prev = i
	}
}

// TestBlockSmoothedMargin: the multi-homogeneous γ̃ (LL Def. G.1) is
// invariant under block rescalings that leave Φ unchanged (w₁ → c w₁,
// w₂ → w₂/c for a (1, 1)-homogeneous net), while the plain γ̃ = g/ρ^L is
// not; with one block both agree.
func TestBlockSmoothedMargin(t *testing.T) {
	m, err := models.Parse("deeplinear:2x3", 2)
	require.NoError(t, err)
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0.2, -0.4, 1}, Y: []float64{1, -1}}
	obj, err := NewObjective(m, losses.NewBinary(losses.Logistic{}), d)
	require.NoError(t, err)
	theta := []float64{2, 0.5, -0.3, 1.5, 1.2, -0.8, 0.9, -1.1, 0.4}
	blocks, ks := m.Blocks(), m.Degree().Blocks
	ev, err := obj.Evaluate(theta, false)
	require.NoError(t, err)
	lg := LogBlockSmoothedMargin(losses.Logistic{}, ev.LogLoss, theta, blocks, ks)
	plain := LogSmoothedMargin(losses.Logistic{}, ev.LogLoss, floats.Norm(theta, 2), 2)
	scaled := append([]float64(nil), theta...)
	floats.Scale(3, scaled[blocks[0].Offset:blocks[0].Offset+blocks[0].Len])
	floats.Scale(1.0/3, scaled[blocks[1].Offset:blocks[1].Offset+blocks[1].Len])
	ev2, err := obj.Evaluate(scaled, false)
	require.NoError(t, err)
	assert.InDelta(t, ev.LogLoss, ev2.LogLoss, 1e-14, "Φ is unchanged")
	assert.InDelta(t, lg, LogBlockSmoothedMargin(losses.Logistic{}, ev2.LogLoss, scaled, blocks, ks), 1e-13)
	assert.NotEqual(t, plain, LogSmoothedMargin(losses.Logistic{}, ev2.LogLoss, floats.Norm(scaled, 2), 2))
	one := []models.Block{{Offset: 0, Len: len(theta)}}
	assert.InDelta(t, plain, LogBlockSmoothedMargin(losses.Logistic{}, ev.LogLoss, theta, one, []float64{2}), 1e-14)
	assert.True(t, math.IsNaN(LogSmoothedMargin(losses.Logistic{}, 0, 1, 2)), "𝓛 = 1 > log 2: not separated")
}

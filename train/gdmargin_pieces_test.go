package train

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGDMarginBelowKappa: for L > 1 and s₀ < 2 − 2/L with h increasing from
// s₀ (here s₀ = 1.7, L = 20: H = h from the start), I integrates λ's small-s
// formula (κ = κ_max) on [s₀, 2 − 2/L] and 1/(Ls) beyond; the brute force of
// TestGDMarginAgainstBruteForce checks both, with its tolerance.
func TestGDMarginBelowKappa(t *testing.T) {
	for _, tc := range []struct{ logL0, L float64 }{{-1.7, 20}, {-1.6, 100}} {
		g, err := NewGDMargin(tc.logL0, tc.L)
		require.NoError(t, err)
		require.Less(t, g.S0, g.kappaS)
		for _, du := range []float64{0, 0.1, 0.25, 2} {
			u := g.S0 + du
			got, qerr := g.I(u)
			want := cachedBruteI(g, u)
			assert.InDelta(t, want, got, 1e-6*math.Abs(want)+1e-12, "L=%g s0=%g u=%g", tc.L, g.S0, u)
			assert.Less(t, qerr, 1e-12)
		}
	}
}

// TestGDMarginPieces: the pieces GDMargin integrates over describe
// H(s) = max_{[s₀, s]} h: they tile [s₀, sC] in order; on a plateau piece
// [a, b] at level c, h(a) = h(b) = c and h < c inside; on an H = h piece h
// is at its running maximum; and there are as many plateaus as maximal runs
// of h below its running maximum on a fine grid of [s₀, sC + 1] (h is
// increasing beyond, LL App. E.2). Checked on the grid of (s₀, L) below,
// which has h decreasing and increasing at s₀, L below, at and above 1,
// s₀ on both sides of 2 − 2/L and of 3 (also one ulp below 3, where the
// peak search's grid is finer than rounding), and s₀ next to where
// h′(s₀) = 0.
func TestGDMarginPieces(t *testing.T) {
	for _, L := range []float64{0.5, 1, 2, 7, 20} {
		// s₀ where h turns from decreasing to increasing at s₀ itself: just
		// below it h decreases only briefly, and the plateau from s₀ is short.
		c := criticalS0(t, L)
		for _, s0 := range []float64{0.01, 0.3, 1, 1.7, 2.5, 2.95, math.Nextafter(3, 0), 4, c * (1 - 1e-4), c * (1 - 1e-6), c * (1 + 1e-6)} {
			g, err := NewGDMargin(-s0, L)
			require.NoError(t, err)
			at := func(s float64) string { return fmt.Sprintf("s0=%g L=%g s=%g", s0, L, s) }
			// Tiling.
			a := g.S0
			for _, p := range g.pieces {
				require.Equal(t, a, p.a, at(p.a))
				require.Less(t, p.a, p.b, at(p.a))
				a = p.b
			}
			require.Equal(t, a, g.sC, at(a))
			// Each piece against h on a grid.
			run := math.Inf(-1) // running maximum of h
			for _, p := range g.pieces {
				const n = 500
				if p.plateau {
					// h(a) and h(b) are c to the rounding of h (a few ulps of
					// |h| ≤ 10 here) and of the bisection that finds b
					// (1e-14·(1 + b) in s, times |h′| ≤ 10): 1e-12.
					assert.InDelta(t, p.c, g.h(p.a), 1e-12, at(p.a))
					assert.InDelta(t, p.c, g.h(p.b), 1e-12, at(p.b))
					for i := 1; i < n; i++ {
						s := p.a + (p.b-p.a)*float64(i)/n
						require.Less(t, g.h(s), p.c, at(s))
					}
					run = math.Max(run, p.c)
					continue
				}
				for i := 0; i <= n; i++ {
					s := p.a + (p.b-p.a)*float64(i)/n
					v := g.h(s)
					require.GreaterOrEqual(t, v, run-1e-12, at(s))
					run = math.Max(run, v)
				}
			}
			// Plateau count against a grid scan.
			// The grid is uniform plus geometric near s₀ (offsets 1e-12…1
			// of the span), so that a short plateau at s₀ is seen too.
			want, below := 0, false
			run = math.Inf(-1)
			const m = 3000
			span := g.sC + 1 - g.S0
			var grid []float64
			for i := 0; i <= m; i++ {
				grid = append(grid, g.S0+span*float64(i)/m, g.S0+span*math.Pow(10, -12+12*float64(i)/m))
			}
			sort.Float64s(grid)
			for _, s := range grid {
				v := g.h(s)
				// A run starts when h drops below its running maximum by
				// more than its rounding (a few ulps of |h| ≤ 10: 1e-14;
				// the short plateaus posed here are deeper than 1e-12) and
				// ends when h is back at the maximum.
				switch {
				case !below && v < run-1e-14:
					want++
					below = true
				case below && v >= run:
					below = false
				}
				run = math.Max(run, v)
			}
			got := 0
			for _, p := range g.pieces {
				if p.plateau {
					got++
				}
			}
			assert.Equal(t, want, got, "s0=%g L=%g: plateaus %+v", s0, L, g.pieces)
		}
	}
}

// criticalS0 returns the s₀ ∈ (0.01, 3) at which h (which depends on s₀)
// has h′(s₀) = 0, by bisection on the sign of a forward difference: h
// decreases at s₀ below it and increases above.
func criticalS0(t *testing.T, L float64) float64 {
	t.Helper()
	slope := func(s0 float64) float64 {
		g, err := NewGDMargin(-s0, L)
		require.NoError(t, err)
		return g.h(s0*(1+1e-9)) - g.h(s0)
	}
	lo, hi := 0.01, 3.0
	require.Less(t, slope(lo), 0.0)
	require.Greater(t, slope(hi), 0.0)
	for hi-lo > 1e-12 {
		mid := 0.5 * (lo + hi)
		if slope(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

package report

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLogRatio: y ≤ 0 exactly when the case holds (statistic ≤ bound),
// for positive, negative and zero bounds; no logarithm of a ratio ≤ 0.
func TestLogRatio(t *testing.T) {
	for _, tc := range []struct {
		stat, bound, y float64
		kind           ratioKind
	}{
		{1e-16, 1e-10, -6, ratioLog},
		{1e-8, 1e-10, 2, ratioLog},
		{0.5, 0.5, 0, ratioLog},
		{0, 1e-12, 0, ratioFloor},                             // an exact 0: holds, no log
		{-5700, 1, 0, ratioFloor},                             // LL-4.1's decrease, far on the holding side
		{-2000.1, -2000, math.Log10(2000 / 2000.1), ratioLog}, // LL-K1: holds, y < 0
		{-1000, -2000, math.Log10(2), ratioLog},               // violates, y > 0
		{3, -2000, 0, ratioCeiling},                           // the other sign of a negative bound: violates
		{-1, 0, 0, ratioFloor},
		{1, 0, 0, ratioCeiling},
		{math.NaN(), 1, 0, ratioNone},
		{1, math.Inf(1), 0, ratioNone},
	} {
		y, k := logRatio(tc.stat, tc.bound)
		assert.Equal(t, tc.kind, k, "%v vs %v", tc.stat, tc.bound)
		assert.InDelta(t, tc.y, y, 1e-12, "%v vs %v", tc.stat, tc.bound)
		holds := tc.stat <= tc.bound
		switch k {
		case ratioLog:
			assert.Equal(t, holds, y <= 0, "%v vs %v", tc.stat, tc.bound)
		case ratioFloor:
			assert.True(t, holds)
		case ratioCeiling:
			assert.False(t, holds)
		}
	}
}

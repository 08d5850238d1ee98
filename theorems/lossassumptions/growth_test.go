package lossassumptions

import (
	"math"
	"testing"
)

// TestGrowthShortSequence: fewer than three values give no two increments
// to compare: undecided, not a panic. (Collected from fuzzing the CLI:
// `implicitbias loss --evidence 1e3 'exp(-q)'` samples fewer decades and
// indexed v[−1].)
func TestGrowthShortSequence(t *testing.T) {
	for _, v := range [][]float64{nil, {1}, {1, 2}} {
		kind, limit, ratio := growth(v)
		if kind != growthUnknown || !math.IsNaN(limit) || !math.IsNaN(ratio) {
			t.Errorf("growth(%v) = %v, %v, %v; want unknown, NaN, NaN", v, kind, limit, ratio)
		}
	}
	// Three values are enough: increments 1 then 1 (ratio 1 ≥ 0.9) grow.
	if kind, _, _ := growth([]float64{1, 2, 3}); kind != growthUnbounded {
		t.Errorf("growth(1, 2, 3) = %v, want unbounded", kind)
	}
}

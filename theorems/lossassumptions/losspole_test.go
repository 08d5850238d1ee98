package lossassumptions

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems"
)

// TestLossPoles: a zero of even order of a divisor (no sign change) is a
// pole of ℓ and fails (B3.1) and everything that needs ℓ defined; a divisor
// that only comes close stays a pass, and training refuses exactly the
// losses that are not positive and non-increasing.
func TestLossPoles(t *testing.T) {
	for _, tc := range []struct {
		formula string
		pole    float64 // NaN: no pole
		// near is how close the witness must be to the pole: 1e-9·max(1, |pole|),
		// or, for the expanded divisor, √(4ε·0.01) ≈ 3e-9, the width over which
		// q² − 0.2q + 0.01 cancels to rounding.
		near   float64
		refuse string // the hypothesis TrainRefusal names, "" for none
	}{
		{"1/(1+q)^2", -1, 1e-9, theorems.HypB31},
		{"1/(q-0.1)^2", 0.1, 1e-9, theorems.HypB31},         // 0.1 is not a float64: |u| > 0 at every sample
		{"1/(q^2-0.2*q+0.01)", 0.1, 3e-9, theorems.HypB31},  // the same pole, expanded
		{"1/(q-1000)^2", 1000, 1e-6, theorems.HypB31},       // beyond the certified range, on the evidence grid
		{"1/(1+(q-0.3)^2)", math.NaN(), 0, theorems.HypB32}, // no pole; increasing for q < 0.3
		{"1/(1e-20+(q-0.1)^2)", math.NaN(), 0, theorems.HypB32},
		{"log(1+exp(-q))", math.NaN(), 0, ""},
		{"exp(-q^3)", math.NaN(), 0, ""}, // f′(0) = 0: strictly decreasing still
		{"exp(q)", math.NaN(), 0, theorems.HypB32},
		{"log(q)", math.NaN(), 0, theorems.HypB31},
	} {
		t.Run(tc.formula, func(t *testing.T) {
			fm, err := symbolic.NewFormula(tc.formula)
			require.NoError(t, err)
			r := ValidateLoss(fm, nil)
			b31, _ := r.Hypothesis(theorems.HypB31)
			if !math.IsNaN(tc.pole) {
				require.Equal(t, theorems.Violated, b31.Status, b31.Detail)
				assert.InDelta(t, tc.pole, b31.Witness.Q, tc.near)
				assert.Contains(t, b31.Detail, "pole")
				for _, id := range []string{theorems.HypSmooth, theorems.HypDecrease, theorems.HypConvex} {
					h, _ := r.Hypothesis(id)
					assert.Equal(t, theorems.Violated, h.Status, "%s: %s", id, h.Detail)
				}
			} else {
				assert.NotContains(t, b31.Detail, "pole")
			}
			why, refused := r.TrainRefusal()
			assert.Equal(t, tc.refuse != "", refused, why)
			if tc.refuse != "" {
				assert.Contains(t, why, "("+tc.refuse+")")
			}
		})
	}
}

// TestLossInfiniteConstant: a hypothesis that asks for a finite constant
// never holds with an infinite one (ZD-smooth "held" with L = +Inf).
func TestLossInfiniteConstant(t *testing.T) {
	for _, v := range []float64{math.Inf(1), math.Inf(-1)} {
		h := LossHypothesis{ID: theorems.HypSmooth, Status: theorems.Holds, ValueName: "L", Value: v, Detail: "L = sup|ℓ″| = +Inf", EvidenceTo: 1e6}
		refuseInfinite(&h)
		assert.Equal(t, theorems.Violated, h.Status)
		assert.Contains(t, h.Detail, "is not finite")
		assert.Equal(t, "fails", h.StatusText())
	}
	h := LossHypothesis{ID: theorems.HypSmooth, Status: theorems.Holds, ValueName: "L", Value: 0.25}
	refuseInfinite(&h)
	assert.Equal(t, theorems.Holds, h.Status)
}

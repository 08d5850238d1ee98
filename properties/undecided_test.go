package properties

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/floats/scalar"
)

// negBinTailSum is NegBinTail by its defining series, the independent value
// the incomplete-beta form is checked against: the terms C(n−1+j, j) p^j
// (1−p)^n for j > k, each from the last, summed until they no longer
// change the sum (no cancellation, unlike 1 − Σ_{j≤k}).
func negBinTailSum(n, k int, p float64) float64 {
	term := math.Pow(1-p, float64(n))
	for j := 1; j <= k+1; j++ {
		term *= float64(n-1+j) / float64(j) * p
	}
	s := 0.0
	for j := k + 1; s+term != s; j++ {
		s += term
		term *= float64(n+j) / float64(j+1) * p
	}
	return s
}

func TestNegBinTail(t *testing.T) {
	for _, c := range []struct {
		n, k int
		p    float64
	}{{8, 3, 0.063}, {8, 6, 0.063}, {8, 9, 0.17}, {8, 3, 0.5}, {8, 3, 0.023}, {100, 10, 0.1}, {1, 0, 0.3}} {
		got, want := NegBinTail(c.n, c.k, c.p), negBinTailSum(c.n, c.k, c.p)
		// Cephes' incbet, which gonum's RegIncBeta ports, documents a peak
		// relative error of 2.2e-13 for parameters in [0, 85] (its
		// accuracy table; n = 100 is a little beyond); the series' own
		// error is a few ulps.
		assert.True(t, scalar.EqualWithinRel(want, got, 2.2e-13), "n=%d k=%d p=%g: %v vs %v", c.n, c.k, c.p, got, want)
	}
	// Exact: one fair coin, more than 3 tails before the 8th head,
	// 1 − Σ_{j≤3} C(7+j, j)/2^{8+j} = 227/256.
	assert.InDelta(t, 227.0/256, NegBinTail(8, 3, 0.5), 1e-15)
	// One trial that fails with probability p: more than 0 failures before
	// the first success has probability p.
	assert.InDelta(t, 0.3, NegBinTail(1, 0, 0.3), 1e-15)
}

func TestRateUpper(t *testing.T) {
	// Closed forms of the Clopper–Pearson bound: for 0 of n the upper
	// bound solves (1−p)^n = 0.05, for n−1 of n it solves p^n = 0.95.
	assert.True(t, scalar.EqualWithinRel(Rate{0, 300}.Upper(), 1-math.Pow(0.05, 1.0/300), 1e-10))
	assert.True(t, scalar.EqualWithinRel(Rate{9, 10}.Upper(), math.Pow(0.95, 0.1), 1e-10))
	assert.Equal(t, 0.0, Rate{}.Upper())
	assert.Equal(t, 1.0, Rate{5, 5}.Upper())
	// The bound is above the point estimate.
	assert.Greater(t, Rate{19, 300}.Upper(), 19.0/300)
}

func TestDiscardAllowance(t *testing.T) {
	assert.Equal(t, 3, DiscardAllowance(8, Rate{}), "the default allowance")
	assert.Equal(t, 10, DiscardAllowance(100, Rate{}))
	for _, r := range []Rate{{1, 300}, {7, 300}, {19, 300}, {40, 300}} {
		k := DiscardAllowance(8, r)
		p := r.Upper()
		// The smallest allowance whose flake risk is within FlakeRisk.
		assert.LessOrEqual(t, NegBinTail(8, k, p), FlakeRisk, "%v", r)
		if k > 3 {
			assert.Greater(t, NegBinTail(8, k-1, p), FlakeRisk, "%v", r)
		}
	}
	assert.Equal(t, math.MaxInt, DiscardAllowance(8, Rate{3, 3}))
}

package limits

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestStepCoefficientsMarginDip is the false alarm of ZD-T7's coefficient
// part on a correct engine (check/roundtrip_test.go's χ²-DRO run), in
// small: two samples with ⟨z_1, z_2⟩ < 0, weights that move between two
// records (30 steps on sample 2 alone, then 5 on sample 1 alone, as
// χ²-DRO's q_n = 0 phases do), so that u_1 dips below both of its values
// at the records and GD's C_1 exceeds m_1·(the larger slope at the
// records). The slopes over the margins GD can meet (slopeRange) hold the
// exact run; a preconditioner (θ₀ += 3ηV₀) still breaks them.
func TestStepCoefficientsMarginDip(t *testing.T) {
	z := mat.NewDense(2, 2, []float64{
		1, 0,
		-0.6, 1,
	})
	const eta = 0.5
	tail := tailOf(lossNamed("exp"))
	theta0 := linearGDSteps(z, []float64{0.5, 0.5}, []float64{0, 0}, eta, 40, nil)
	segment := func(fault func([]float64, []float64)) []float64 {
		mid := linearGDSteps(z, []float64{0, 1}, theta0, eta, 30, fault)
		return linearGDSteps(z, []float64{1, 0}, mid, eta, 5, fault)
	}
	mass := []float64{5 * eta, 30 * eta} // ∫q dT over the 35 steps
	coef := newStepCoefficients(z, true)
	require.NotNil(t, coef)
	u := func(th []float64, n int) float64 { return floats.Dot(z.RawRowView(n), th) }

	theta1 := segment(nil)
	mid := linearGDSteps(z, []float64{0, 1}, theta0, eta, 30, nil)
	require.Less(t, u(mid, 0), math.Min(u(theta0, 0), u(theta1, 0)), "u_1 dips between the records")

	// The old rule, slopes at the records only: C_1 beyond its interval.
	cs, slack, ok := coef.solve(theta0, theta1, roundingBudget(35, theta0, theta1, 2))
	require.True(t, ok)
	endMax := math.Max(tail.slope(u(theta0, 0)), tail.slope(u(theta1, 0)))
	assert.Greater(t, cs[0]-slack, mass[0]*endMax*(1+slopeRelTol), "the records' slopes alone would call this run violated")

	round := roundingBudget(35, theta0, theta1, 2)
	assert.LessOrEqual(t, coef.weighted(theta0, cs, slack, mass, tail.slope, round), 1.0, "exact GD")
	assert.LessOrEqual(t, coef.cone(theta0, cs, slack, eta*35, 1, tail.slope, round), 1.0, "exact GD, cone")

	bad := segment(func(th, v []float64) { th[0] += 3 * eta * v[0] })
	badRound := roundingBudget(35, theta0, bad, 2)
	bcs, bslack, ok := coef.solve(theta0, bad, badRound)
	require.True(t, ok)
	assert.Greater(t, coef.weighted(theta0, bcs, bslack, mass, tail.slope, badRound), 1.0, "preconditioner")
}

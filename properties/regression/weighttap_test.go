package regression

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/stretchr/testify/assert"
)

func TestWeightFaultActs(t *testing.T) {
	for _, tc := range []struct {
		fault string
		q     []float64
		acts  bool
	}{
		{"weights-ignored", []float64{0.25, 0.25, 0.25, 0.25}, false},
		{"weights-ignored", []float64{0.4, 0.2, 0.2, 0.2}, true},
		{"weights-squared", []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, false},
		{"weights-squared", []float64{0.5, 0.3, 0.2}, true},
		{"sample-dropped", []float64{0, 0.5, 0.5}, false},
		{"sample-dropped", []float64{0.1, 0.45, 0.45}, true},
		{"preconditioner", []float64{0.5, 0.5}, true}, // not a reweighting fault
		{"no-such-fault", []float64{0.5, 0.5}, false},
	} {
		assert.Equal(t, tc.acts, weightFaultActs(tc.fault, tc.q), "%s on %v", tc.fault, tc.q)
	}
}

// ERM's weights are uniform: no reweighting fault acts on its cases, so a
// fault control never draws them; a static scheme's are not.
func TestRegressionCaseFaultActs(t *testing.T) {
	c := RegressionCase{N: 5, Ratio: 3, K: 2, Scheme: cases.SchemeERM, Opt: OptGD, Seed: 7}
	assert.False(t, c.FaultActs("weights-ignored"))
	assert.True(t, c.FaultActs("sample-dropped"))
	assert.False(t, c.FaultActs("momentum-misindexed"))
	c.Scheme = cases.SchemeStatic
	assert.True(t, c.FaultActs("weights-ignored"))
	c.Opt = OptMomentum
	assert.True(t, c.FaultActs("momentum-misindexed"))
}

package classification

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/properties/cases"
)

// TestFaultActsUniformFixedWeights: on fixed weights that are uniform (IW
// on balanced classes, or one class) every reweighting fault is a no-op —
// the run is ERM's with or without it — so none is drawn there,
// weights-ignored-reported included (seed 1's ZD-T8 fault control met the
// first case below when the fault controls began drawing the claim's
// cases); on IW with unbalanced classes they are.
func TestFaultActsUniformFixedWeights(t *testing.T) {
	for _, tc := range []struct {
		c    ClassCase
		acts bool
	}{
		{ClassCase{N: 4, Extra: 2, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeIW, Param: 0.222, Seed: 1876903070193812066}, false}, // y = (1, −1, 1, −1)
		{ClassCase{N: 3, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeIW, Seed: 63}, false},                                          // y = (1, 1, 1)
		{ClassCase{N: 5, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeIW, Seed: 7}, true},
	} {
		y := tc.c.Data().Y
		for _, f := range []string{"weights-ignored", "weights-squared", "weights-ignored-reported"} {
			assert.Equal(t, tc.acts, tc.c.FaultActs(f), "%s (y = %v): %s", tc.c, y, f)
		}
	}
}

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

// TestFaultActsGroupDROOneGroup: Group DRO on data of one class weighs one
// group, so its weights are 1/n at every step (ERM's) and
// weights-ignored-reported changes nothing there: not drawn (soak seed
// 1795881297730677's ZD-T8 case, the first below, held with the fault).
// With two groups it is drawn, and weights-ignored is
// not drawn on Group DRO at all.
func TestFaultActsGroupDROOneGroup(t *testing.T) {
	for _, tc := range []struct {
		c      ClassCase
		groups int
		acts   bool
	}{
		{ClassCase{N: 6, Extra: 2, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeGroupDRO, Param: 0.5830781401084099, Seed: 0xf947844a6244d53b}, 1, false}, // y all +1
		{ClassCase{N: 3, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeGroupDRO, Seed: 63}, 1, false},                                                      // y = (1, 1, 1), the soak's shrunk case
		{ClassCase{N: 4, Extra: 1, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeGroupDRO, Param: 0.9234053074321514, Seed: 0x399ae1389884be16}, 2, true},  // y = (−1, −1, −1, 1)
		{ClassCase{N: 6, Extra: 1, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeGroupDRO, Param: 0.20967897790790133, Seed: 0x9a266225aa510727}, 2, true}, // y = (−1, −1, 1, −1, 1, −1)
	} {
		y := tc.c.Data().Y
		assert.Equal(t, tc.groups, tc.c.groupCount(), "%s (y = %v)", tc.c, y)
		assert.Equal(t, tc.acts, tc.c.FaultActs("weights-ignored-reported"), "%s (y = %v)", tc.c, y)
		assert.False(t, tc.c.FaultActs("weights-ignored"), "%s (y = %v)", tc.c, y)
	}
}

package classification

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/properties/proptest"
)

// TestRaysSoakStall: the path of soak seed 1795881298007842's ZD-T8 case
// (n=8 d=11 gdro(0.933), under the preconditioned run's limit weights) stalled at R = 10³: its minimizer, at ‖∇‖∞ 6.5e-9, accepted a
// step below x's rounding and repeated it for 10 000 iterations. It now
// ends within 100× its tolerance, and the point's own precision bound
// (Residual/Multiplier, PathRay.Precision) is reported.
func TestRaysSoakStall(t *testing.T) {
	c := ClassCase{N: 8, Extra: 3, Indep: true, Loss: LossLogistic, Scheme: cases.SchemeGroupDRO, Param: 0.9332843829265626, LogM: 1.5545610557658298, Seed: 0xe38d14564a1ce3f, Fault: "preconditioner"}
	data, tr, err := c.trained(proptest.Runner(t), false, "direction", c.directionJudge)
	require.NoError(t, err)
	path, err := rays(data, c.LossOf(), tr.Final().Weights, pathRadii, "")
	require.NoError(t, err)
	for _, p := range path {
		assert.True(t, p.Precision > 0 && p.Precision < 1e-6*p.R, "R = %g: precision %g", p.R, p.Precision)
	}
}

package limits

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/numerics"
)

// TestPredictLogTimeSteps: predictLogTime keeps a cheaper step count only
// when its error estimate is within tol, and otherwise returns the full
// count's result (flowSteps) bit for bit; the exact solution of the linear
// flow dθ/ds = −e^{s}·c·θ lies within the estimate either way.
func TestPredictLogTimeSteps(t *testing.T) {
	const c, s0, s1 = 0.1, 5.0, 5.4
	field := func(dst, th []float64) {
		for i := range th {
			dst[i] = -c * th[i]
		}
	}
	theta0 := []float64{1, -2}
	// The full count and its result, as the flow's prediction had them
	// before the cheaper counts.
	n := int(math.Ceil((s1 - s0) * math.Max(flowMinSteps, math.Exp(s1)*c/flowStiffStep)))
	rhs := func(dst []float64, s float64, th []float64) {
		field(dst, th)
		for i := range dst {
			dst[i] *= math.Exp(s)
		}
	}
	full, fullErr := numerics.RK4(rhs, theta0, s0, s1, &numerics.RK4Settings{Steps: n})
	exact := math.Exp(-c * (math.Exp(s1) - math.Exp(s0)))
	tests := []struct {
		name    string
		tol     float64
		wantAll bool // the full count's result
	}{
		{"tol 0: the full count", 0, true},
		{"tol NaN: the full count", math.NaN(), true},
		{"tol below the cheap estimates", fullErr, true},
		{"tol 1e-6", 1e-6, false},
		{"tol +Inf: the cheapest count", math.Inf(1), false},
	}
	for _, tc := range tests {
		pred, est := predictLogTime(field, c, theta0, s0, s1, tc.tol)
		if tc.wantAll {
			assert.Equal(t, full, pred, tc.name)
			assert.Equal(t, fullErr, est, tc.name)
		} else {
			assert.NotEqual(t, full, pred, tc.name)
			assert.LessOrEqual(t, est, tc.tol, tc.name)
		}
		for i := range pred {
			assert.LessOrEqual(t, math.Abs(pred[i]-exact*theta0[i]), est+1e-15, tc.name)
		}
	}
}

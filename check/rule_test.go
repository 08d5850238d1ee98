package check

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/train"
)

// TestRule: a file with lr declares GD with the recorded step sizes, one
// with time a gradient flow.
func TestRule(t *testing.T) {
	gd := (&Trajectory{LR: []float64{0.1}}).Rule()
	assert.Equal(t, train.GDStep, gd.Kind)
	assert.True(t, math.IsNaN(gd.LR))
	assert.Equal(t, "gd (the recorded η)", gd.String())
	assert.Equal(t, train.StepRule{Kind: train.FlowStep}, (&Trajectory{Time: []float64{0}}).Rule())
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
)

func TestRunWindows(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	gd, _ := NewGD(0.1)
	theta := []float64{0.1, -0.2}
	tr, err := RunWindows(obj, gd, theta, WindowPlan{Steps: 100, Burst: 3, Growth: 2})
	require.NoError(t, err)
	var steps []int
	for _, r := range tr.Records {
		steps = append(steps, r.Step)
		require.NotNil(t, r.Theta)
		// Constant-step GD: T = η·step, and every record but step 0's
		// (window starts too) says the step that led to it was η.
		if r.Step > 0 {
			assert.InDelta(t, math.Log(0.1*float64(r.Step)), r.LogT, 1e-12)
			assert.Equal(t, math.Log(0.1), r.LogEta, "step %d", r.Step)
		}
	}
	assert.Equal(t, []int{0, 1, 2, 4, 5, 6, 8, 9, 10, 16, 17, 18, 32, 33, 34, 64, 65, 66, 100, 101, 102}, steps)
	// The same θ as one plain run of as many steps.
	plain := []float64{0.1, -0.2}
	_, err = Run(obj, gd, plain, Config{Steps: tr.Steps})
	require.NoError(t, err)
	assert.Equal(t, plain, tr.Theta)

	tr, err = RunWindows(obj, gd, []float64{0.1, -0.2}, WindowPlan{Steps: 50, Burst: 1, Every: 20})
	require.NoError(t, err)
	steps = steps[:0]
	for _, r := range tr.Records {
		steps = append(steps, r.Step)
	}
	assert.Equal(t, []int{0, 20, 40, 50}, steps)

	_, err = RunWindows(obj, gd, theta, WindowPlan{Steps: 10, Burst: 0, Every: 2})
	assert.Error(t, err)
	_, err = RunWindows(obj, gd, theta, WindowPlan{Steps: 10, Burst: 1})
	assert.Error(t, err)
}

package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
)

// A run ended by WindowPlan.Stop is bit for bit the full run's prefix: the
// records up to the step where it stopped, θ the last one's, and Stop was
// shown exactly that prefix (SoFar) after each window.
func TestRunWindowsStopIsPrefix(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	gd, _ := NewGD(0.1)
	for _, plan := range []WindowPlan{{Steps: 400, Burst: 3, Growth: 1.5}, {Steps: 400, Burst: 1, Growth: 1.5}, {Steps: 400, Burst: 4, Every: 50}} {
		full, err := RunWindows(obj, gd, []float64{0.1, -0.2}, plan)
		require.NoError(t, err)
		for _, at := range []int{0, 30, 100, 399} {
			var seen []*Trajectory
			p := plan
			p.Stop = func(tr *Trajectory) bool {
				seen = append(seen, tr)
				return tr.Steps >= at
			}
			got, err := RunWindows(obj, gd, []float64{0.1, -0.2}, p)
			require.NoError(t, err)
			assert.Equal(t, SoFar(full, got.Steps).Records, got.Records, "plan %+v, stop at %d", plan, at)
			assert.Equal(t, got.Records[len(got.Records)-1].Theta, got.Theta)
			for _, s := range seen {
				assert.Equal(t, SoFar(full, s.Steps).Records, s.Records)
			}
			if last := seen[len(seen)-1]; got.Steps < full.Steps { // stopped: where Stop said so
				assert.Equal(t, last.Records, got.Records)
				assert.Equal(t, got.Steps, last.Steps)
				assert.Equal(t, got.Theta, last.Theta)
			} else {
				assert.Equal(t, full, got, "never stopped: the full run")
			}
		}
	}
}

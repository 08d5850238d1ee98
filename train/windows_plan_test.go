package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
)

func windowSteps(tr *Trajectory) []int {
	var s []int
	for _, r := range tr.Records {
		s = append(s, r.Step)
	}
	return s
}

// TestWindowPlanSteps: the windows RunWindows records for plans the
// existing test does not pose. Growth 2 with single-step windows: the
// window after step t is at the first power of 2 above t, so windows sit at
// 0, 2, 4, 8, 16 (1 is skipped: windows are ≥ 2 steps apart) and the last
// at Steps. Every with bursts: windows start at multiples of Every, and
// the last at Steps. Every = 1
// (the smallest allowed) and Growth ≤ 1 with Every ≥ 1 are valid plans;
// Steps = 0 records the window at step 0 only.
func TestWindowPlanSteps(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	gd, err := NewGD(0.1)
	require.NoError(t, err)
	run := func(plan WindowPlan) *Trajectory {
		t.Helper()
		tr, err := RunWindows(obj, gd, []float64{0.1, -0.2}, plan)
		require.NoError(t, err, "%+v", plan)
		return tr
	}
	assert.Equal(t, []int{0, 2, 4, 8, 16, 20}, windowSteps(run(WindowPlan{Steps: 20, Burst: 1, Growth: 2})))
	// The last window starts at Steps and runs Burst − 1 steps past it.
	assert.Equal(t, []int{0, 1, 2, 10, 11, 12, 20, 21, 22, 25, 26, 27}, windowSteps(run(WindowPlan{Steps: 25, Burst: 3, Every: 10})))
	// Every = 1 with Burst 1: the gap is raised to 2.
	assert.Equal(t, []int{0, 2, 4, 5}, windowSteps(run(WindowPlan{Steps: 5, Burst: 1, Every: 1})))
	// Growth 1 is not > 1: Every decides.
	assert.Equal(t, []int{0, 4, 8}, windowSteps(run(WindowPlan{Steps: 8, Burst: 1, Growth: 1, Every: 4})))
	tr := run(WindowPlan{Steps: 0, Burst: 1, Every: 3})
	assert.Equal(t, []int{0}, windowSteps(tr))
	assert.Equal(t, 0, tr.Steps)

	// The trajectory names what was trained, as Run's does.
	assert.Equal(t, "linear", tr.Model)
	assert.Equal(t, obj.Loss, tr.Loss)
	assert.Equal(t, StepRule{Kind: GDStep, LR: gd.LR}, tr.Step)
	assert.Equal(t, 1.0, tr.Degree)

	for _, bad := range []WindowPlan{
		{Steps: 10, Burst: 1, Growth: 1},   // Growth must be > 1 when Every is unset
		{Steps: 10, Burst: 1, Growth: 0.5}, // likewise
		{Steps: -1, Burst: 1, Every: 2},
	} {
		_, err := RunWindows(obj, gd, []float64{0.1, -0.2}, bad)
		assert.Error(t, err, "%+v", bad)
	}
}

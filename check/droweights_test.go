package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestDROWitness: GRW runs of the linear model under CVaR-DRO
// (every record's weights move with the losses), exported with their
// `scheme`, get ZD-T7's verdict of the run without the field — the
// optimality conditions hold at every record to within the losses' error
// bars — while the same runs under weights-ignored-reported (uniform
// weights applied and recorded) are violated when the file states the
// scheme (issue 32). Sixteen datasets per level: no clean run is called
// violated (the false alarms the bars must prevent), every faulted one is.
func TestDROWitness(t *testing.T) {
	for c := range 48 {
		spec := []string{"cvar", "cvar:0.3", "cvar:0.7"}[c%3]
		data := twoClasses(uint64(5+c), 8, 5+c%9, 2+c%3, 0.3, 0.2)
		run := func(fault string) *Trajectory { return grwRun(t, data, spec, fault) }
		zdT7 := func(ft *Trajectory, scheme string) theorems.Verdict { return zdT7Stated(t, ft, scheme) }
		clean := run("")
		plain, witnessed := zdT7(clean, ""), zdT7(clean, spec)
		assert.Equal(t, plain.String(), witnessed.String(), "%s, case %d: the weights are the scheme's: ZD-T7 as without the field", spec, c)
		honest := zdT7(run("weights-ignored-reported"), spec)
		assert.Equal(t, theorems.Violated, honest.Status, "%s, case %d: %s", spec, c, honest)
		assert.Contains(t, honest.Detail, "not the scheme's", "%s, case %d", spec, c)
	}
}

// TestDROOptimality: the optimality conditions on hand-made cases.
func TestDROOptimality(t *testing.T) {
	l := []float64{1, 0.5, 0.2, 0.1}
	none := []float64{0, 0, 0, 0}
	const tol = 1e-15
	cvar := func(alpha float64, q, d []float64) string {
		w, err := train.NewCVaRDRO(alpha)
		require.NoError(t, err)
		return droWeightsOptimal(w, q, l, d, tol)
	}
	// α = 1/2 on 4 samples: cap 1/2 on the two largest.
	assert.Empty(t, cvar(0.5, []float64{0.5, 0.5, 0, 0}, none))
	assert.Contains(t, cvar(0.5, []float64{0.5, 0, 0.5, 0}, none), "under the cap")
	assert.Empty(t, cvar(0.5, []float64{0.5, 0, 0.5, 0}, []float64{0, 0.2, 0.2, 0}), "0.5 and 0.2 overlap within their bars")
	assert.Contains(t, cvar(0.5, []float64{0.25, 0.25, 0.25, 0.25}, none), "under the cap", "uniform weights are not CVaR's")
	assert.Contains(t, cvar(0.5, []float64{0.7, 0.3, 0, 0}, none), "outside")

	assert.True(t, informative(l, none))
	assert.False(t, informative(l, []float64{1, 1, 1, 1}))
}

package weightwitness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestRecordedWeights: on GD runs of a linear model under every kind of
// scheme, recorded at every step (Run) and through the objective's log
// domain, the recomputed weights agree with the records within rounding;
// under the fault weights-ignored-reported (uniform weights applied and
// recorded) they do not, for every scheme whose weights are not uniform
// (all but ERM); with weights-ignored (recorded as the scheme wrote them)
// the records are the scheme's, and the witness holds.
func TestRecordedWeights(t *testing.T) {
	d := &dataset.Dataset{N: 5, D: 3, X: []float64{
		1, 0.2, 0, 0.3, 1, -0.1, -0.5, 0.4, 1, 0.9, -0.2, 0.3, 0.1, 0.8, -0.6,
	}, Y: []float64{1, 1, -1, 1, -1}}
	schemes := []struct {
		name string
		new  func() train.Weighting
	}{
		{"erm", func() train.Weighting { return &train.ERM{} }},
		{"iw", func() train.Weighting { return &train.ImportanceWeighting{} }},
		{"static", func() train.Weighting { return &train.Static{W: []float64{1, 2, 3, 4, 5}} }},
		{"gdro", func() train.Weighting { w, _ := train.NewGroupDRO(0.5, nil); return w }},
		{"chi2", func() train.Weighting { w, _ := train.NewChiSquareDRO(0.5); return w }},
		{"cvar", func() train.Weighting { w, _ := train.NewCVaRDRO(0.5); return w }},
		{"schedule", func() train.Weighting {
			return &train.Schedule{At: func(t int, q []float64) {
				for i := range q {
					q[i] = 1 + float64((i+t)%3)
				}
			}}
		}},
		{"learned", func() train.Weighting {
			w, _ := train.NewLearnedWeighting(0.5, []float64{1, -0.5, 0.3}, 0)
			return w
		}},
	}
	run := func(t *testing.T, scheme train.Weighting, fault string) *train.Trajectory {
		m, err := models.NewLinear(3, 1)
		require.NoError(t, err)
		obj, err := train.NewObjective(m, losses.NewBinary(losses.Logistic{}), d)
		require.NoError(t, err)
		f, err := faults.Lookup(fault)
		require.NoError(t, err)
		f.Objective(obj)
		gd, err := train.NewGD(0.5)
		require.NoError(t, err)
		tr, err := train.Run(obj, gd, make([]float64, 3), train.Config{Steps: 40, Weighting: scheme, KeepWeights: true, KeepTheta: true})
		require.NoError(t, err)
		return tr
	}
	for _, s := range schemes {
		t.Run(s.name, func(t *testing.T) {
			m, _ := models.NewLinear(3, 1)
			replay := WeightReplay{Scheme: s.new(), Data: d, Model: m, Loss: losses.NewBinary(losses.Logistic{}), Theta0: make([]float64, 3)}
			v, ok := RecordedWeights(run(t, s.new(), ""), replay)
			assert.True(t, ok, "clean run: %v", v)

			replay.Scheme = s.new()
			v, ok = RecordedWeights(run(t, s.new(), "weights-ignored"), replay)
			assert.True(t, ok, "weights-ignored keeps the scheme's weights in the records: %v", v)

			replay.Scheme = s.new()
			v, ok = RecordedWeights(run(t, s.new(), "weights-ignored-reported"), replay)
			if s.name == "erm" {
				assert.True(t, ok, "ERM's weights are uniform: %v", v)
				return
			}
			assert.False(t, ok)
			assert.Equal(t, theorems.Violated, v.Status, v.String())
		})
	}
}

package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
)

// TestWeightSumRecords: each record's WeightSum is Σ_t η q^{(t)} over the
// steps since the previous record, the q^{(t)} those the scheme wrote at
// those steps (recorded at every step here, for the reference), under a
// scheme whose weights move (CVaR-DRO) and a fixed one; the first record
// has none.
func TestWeightSumRecords(t *testing.T) {
	cvar, err := NewCVaRDRO(0.5)
	require.NoError(t, err)
	for _, w := range []Weighting{cvar, &Static{W: []float64{1, 3, 0.5}}} {
		const eta = 0.5
		run := func(every int) *Trajectory {
			obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
			require.NoError(t, err)
			gd, err := NewGD(eta)
			require.NoError(t, err)
			tr, err := Run(obj, gd, []float64{0.2, -0.1}, Config{Steps: 7, Every: every, Weighting: w, KeepWeights: true})
			require.NoError(t, err)
			return tr
		}
		each, sparse := run(1), run(3) // records at every step; at 0, 3, 6, 7
		assert.Nil(t, sparse.Records[0].WeightSum)
		prev := 0
		for _, r := range sparse.Records[1:] {
			want := make([]float64, len(r.Weights))
			for s := prev; s < r.Step; s++ {
				for i, q := range each.Records[s].Weights {
					want[i] += eta * q
				}
			}
			assert.InDeltaSlice(t, want, r.WeightSum, 1e-14, "%s, step %d", w.Scheme(), r.Step)
			prev = r.Step
		}
	}
}

// TestWeightSumNoAllocation: adding a step allocates nothing after the
// first.
func TestWeightSumNoAllocation(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
	require.NoError(t, err)
	var s WeightSum
	s.Add(-1, obj)
	assert.Zero(t, testing.AllocsPerRun(100, func() { s.Add(-1, obj) }))
	assert.Len(t, s.Take(), obj.Data.N)
}

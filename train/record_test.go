package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
)

// TestFinalRecordGradNorm: every record's log ‖∇𝓛‖ is the gradient norm at
// that record's θ, the last one included (it was the previous step's:
// the last evaluation skipped the gradient), with and without a GRW scheme.
// The reference is a fresh objective evaluated at the recorded θ (and the
// recorded weights).
func TestFinalRecordGradNorm(t *testing.T) {
	for _, w := range []Weighting{nil, &Static{W: []float64{1, 3, 0.5}}} {
		obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
		require.NoError(t, err)
		gd, err := NewGD(0.5)
		require.NoError(t, err)
		tr, err := Run(obj, gd, []float64{0.2, -0.1}, Config{Steps: 7, Every: 3, KeepTheta: true, Weighting: w, KeepWeights: true})
		require.NoError(t, err)
		require.Len(t, tr.Records, 4) // steps 0, 3, 6, 7
		for _, r := range tr.Records {
			ref, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
			require.NoError(t, err)
			if w != nil {
				require.NoError(t, ref.SetWeights(r.Weights))
			}
			ev, err := ref.Evaluate(r.Theta, true)
			require.NoError(t, err)
			assert.InDelta(t, ev.LogGradNorm, r.LogGradNorm, 1e-14, "%v step %d", w, r.Step)
			assert.InDelta(t, ev.LogLoss, r.LogLoss, 1e-14, "%v step %d", w, r.Step)
		}
	}
}

package theorems

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/train"
)

// TestMarginMonotoneClockFault: a flow on one dimension (a straight path,
// where the path witness has nothing to see) holds with the clean
// integrator; under the registry's tableau fault (Σ b_i = 1.82, the error
// row intact) the path is right but the recorded flow times are not, and
// the clock witness reports it. (On the 2-D flow of
// TestMarginMonotoneOnAFlow the faulty integrator crawls: its error row
// sees the O(h²) error through the last stage and keeps h ~ 1e-4, and the
// flow does not separate within the 2000 steps.)
func TestMarginMonotoneClockFault(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		th0  []float64
	}{
		{"1-D, straight path", []float64{1, 0.5, 2}, []float64{1, 1, 1}, []float64{0.1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := linearObjective(t, losses.NewBinary(losses.Logistic{}), c.x, c.y)
			run := func(fault string) TrajectoryCase {
				fl, err := train.NewFlow(1e-9)
				require.NoError(t, err)
				f, err := faults.Lookup(fault)
				require.NoError(t, err)
				tr, err := train.Run(obj, f.Optimizer(fl), append([]float64(nil), c.th0...), train.Config{Steps: 2000, StopLogLoss: -20, KeepTheta: true})
				require.NoError(t, err)
				return TrajectoryCase{Obj: obj, Records: tr.Records}
			}
			v := MarginMonotone(run(""))
			assert.Equal(t, Holds, v.Status, v.String())
			v = MarginMonotone(run("tableau-solution-weight"))
			assert.Equal(t, Violated, v.Status, v.String())
			t.Log(v.String())
		})
	}
}

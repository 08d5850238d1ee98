package margins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	marginsth "github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// A flow fault control's stopped run (stoppedFlowRun) holds the full
// faulted flow's records up to where it ends, bit for bit, is violated
// there, and the clean flow of the same case holds up to the same loss.
func TestStoppedFlowIsPrefix(t *testing.T) {
	c := properties.Sample(GenFlow(smoothActs, []int{2}, []string{"exp", "logistic"}), 1, 1)[0]
	c.Fault = "tableau-b1-misplaced"
	n := lengths(properties.NewRunner(1, properties.Quick))
	judge := func(obj *train.Objective) func([]train.Record) theorems.Verdict {
		return func(recs []train.Record) theorems.Verdict {
			return marginsth.MarginMonotone(marginsth.TrajectoryCase{Obj: obj, Records: recs, Tol: monotoneFlowTol})
		}
	}
	planted := func(fl *train.Flow) { c.optimizer(fl) }
	cobj, ctheta, err := c.WithFault("").(FlowCase).Build()
	require.NoError(t, err)
	clean, err := faultyFlowRun(cobj, ctheta, n.flowTarget, n.flowSteps, monotoneFlowTol, nil)
	require.NoError(t, err)
	obj, theta, err := c.Build()
	require.NoError(t, err)
	got, decided, err := stoppedFlowRun(obj, append([]float64(nil), theta...), n.flowTarget, n.flowSteps, monotoneFlowTol, planted, judge(obj),
		func() ([]train.Record, error) { return clean.Records, nil }, judge(cobj))
	require.NoError(t, err)
	require.NotNil(t, decided, "the fault is decided early")
	full, err := faultyFlowRun(obj, theta, n.flowTarget, n.flowSteps, monotoneFlowTol, planted)
	require.NoError(t, err)
	require.Less(t, len(got), len(full.Records))
	assert.Equal(t, full.Records[:len(got)], got)
	last := got[len(got)-1]
	assert.Equal(t, *decided, judge(obj)(got))
	assert.Equal(t, theorems.Violated, decided.Status)
	assert.Equal(t, theorems.Holds, judge(cobj)(reachedLoss(clean.Records, last.LogLoss)).Status)
	t.Logf("%v: stopped at step %d of %d", c, last.Step, full.Steps)
}

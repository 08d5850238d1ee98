package properties

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/theorems"
)

// TestEngineVerdict: a failure of the engine or the link is an engine
// error, a case it cannot carry is not applicable, and a run's own failure
// (RunFailed, a diverged run) is left to the check, as on our engine.
func TestEngineVerdict(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want theorems.Status
		ok   bool
	}{
		{"none", nil, 0, false},
		{"crashed", &engines.CaseError{Engine: "e", Case: "c", Kind: engines.Crashed, Err: errors.New("exit 3")}, theorems.EngineError, true},
		{"timed out", &engines.CaseError{Engine: "e", Case: "c", Kind: engines.TimedOut, Err: errors.New("10s")}, theorems.EngineError, true},
		{"run failed", &engines.CaseError{Engine: "e", Case: "c", Kind: engines.RunFailed, Err: errors.New("NaN")}, 0, false},
		{"unsupported", fmt.Errorf("%w: conv", engines.ErrUnsupported), theorems.NotApplicable, true},
		{"not expressible", fmt.Errorf("%w: a regularizer", engines.ErrNotExpressible), theorems.NotApplicable, true},
		{"flow", fmt.Errorf("%w: a flow", ErrNoProtocol), theorems.NotApplicable, true},
		{"other", errors.New("diverged"), 0, false},
	} {
		v, ok := EngineVerdict(c.err)
		assert.Equal(t, c.ok, ok, c.name)
		if ok {
			assert.Equal(t, c.want, v.Status, c.name)
		}
	}
}

// TestNotApplicableOnEngine: under another engine, an entry whose runs the
// protocol does not express is not applicable without running a case, and
// so is a fault control planted in our engine; neither is a pass, and the
// same entries on our engine run as before.
func TestNotApplicableOnEngine(t *testing.T) {
	ran := 0
	claim := Property[int]{Name: "claim", Gen: Gen[int](gen.IntRange(0, 9)), Check: func(*Runner, int) theorems.Verdict {
		ran++
		return theorems.Compare(0, 1, "")
	}}
	control := Property[int]{Name: "fault", Fault: "preconditioner", Gen: claim.Gen, Check: func(*Runner, int) theorems.Verdict {
		ran++
		return theorems.Compare(2, 1, "")
	}}
	entry := func(id string) Entry {
		return Entry{Info: theorems.Info{ID: id}, Claims: []Prop{claim}, Controls: []Prop{control}, Cases: 3}
	}
	ctx := context.Background()
	r := NewRunner(1, Quick)
	r.Engine = engines.Local{}

	res := r.Run(ctx, entry(theorems.ZD_T8))
	assert.Equal(t, theorems.NotApplicable, res.Status())
	assert.Zero(t, ran, "no case runs")
	assert.Zero(t, res.Controls)
	assert.False(t, r.RunClaim(ctx, entry(theorems.ZD_T8), 0).Passed())

	res = r.Run(ctx, entry(theorems.LL_lin))
	assert.Equal(t, theorems.Holds, res.Status())
	assert.Equal(t, 3, ran, "the claim's cases run, the fault control's do not")
	assert.Zero(t, res.Controls)

	ran = 0
	res = NewRunner(1, Quick).Run(ctx, entry(theorems.ZD_T8))
	assert.Equal(t, theorems.Holds, res.Status(), "our engine")
	assert.Equal(t, 1, res.Controls)
	assert.Positive(t, ran)
}

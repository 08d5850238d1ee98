package kkt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	kktth "github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// A fault control's stopped run (stopped) is the full faulted run's
// prefix, bit for bit, ends at a milestone where its check is violated,
// and the claim's run of the same case without the fault holds there
// (cases.StopWhenViolated).
func TestStoppedFaultRunIsPrefix(t *testing.T) {
	kkt := func(b *KKTBuilt, tr *train.Trajectory) theorems.Verdict { return kktth.KKTConvergence(b.Obj, tr, 0) }
	lin := func(b *KKTBuilt, tr *train.Trajectory) theorems.Verdict { return grwclass.SVMDirection(b.Data, tr) }
	ntk := func(b *KKTBuilt, tr *train.Trajectory) theorems.Verdict { return kktth.NTKAlignment(b.Obj, tr, 0) }
	for _, tc := range []struct {
		id    string
		c     KKTCase
		src   source
		check func(*KKTBuilt, *train.Trajectory) theorems.Verdict
	}{
		{"LL-4.4", KKTCase{Family: KKTLinear, Width: 6, In: 3, N: 6, Loss: LossExp, Seed: 1, Fault: "preconditioner"}, stepRun, kkt},
		{"LL-lin", KKTCase{Family: KKTLinear, Width: 6, In: 4, N: 5, Loss: LossLogistic, Seed: 2, Fault: "missing-zero-grad"}, planRun, lin},
		{"LL-4.5", KKTCase{Family: KKTDeepLinear, Width: 6, In: 3, N: 6, Loss: LossExp, Seed: 3, Fault: "preconditioner"}, stepRun, ntk},
	} {
		t.Run(tc.id, func(t *testing.T) {
			r := properties.NewRunner(1, properties.Quick)
			p := tc.src.plan(tc.c, r)
			b, got, err := stopped(r, tc.c, p, tc.id, tc.check)
			require.NoError(t, err)
			_, full, err := Trained(r, tc.c, p)
			require.NoError(t, err)
			cb, clean, err := Trained(r, tc.c.WithFault("").(KKTCase), p)
			require.NoError(t, err)
			require.Less(t, got.Steps, full.Steps, "the fault is decided early")
			cut := train.SoFar(full, got.Steps)
			assert.Equal(t, cut.Records, got.Records)
			assert.Equal(t, cut.Theta, got.Theta)
			assert.Equal(t, theorems.Violated, tc.check(b, got).Status)
			assert.Equal(t, theorems.Holds, tc.check(cb, train.SoFar(clean, got.Steps)).Status)
			t.Logf("%v: stopped at step %d of %d", tc.c, got.Steps, full.Steps)
		})
	}
}

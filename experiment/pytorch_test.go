package experiment_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/internal/pyfork"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// torchServer is the package's one Python interpreter with torch and
// numpy imported: each run of ll_table1.py is forked from it, not an
// interpreter importing torch anew (about a CPU second each). One thread
// per script: on these toy sizes PyTorch's intra-op threads only wait for
// each other (a toy run to 1e-10 took 72 CPU s with 2 threads on a loaded
// 2-core machine, 5 s with 1). TestMain closes it.
var torchServer = &pyfork.Shared{Python: "/usr/bin/python3", Modules: []string{"torch", "numpy"}, Env: []string{"OMP_NUM_THREADS=1"}}

func TestMain(m *testing.M) {
	code := m.Run()
	torchServer.Close()
	os.Exit(code)
}

// pytorchTable1 runs examples/pytorch/ll_table1.py with args and checks the
// trajectory it writes with package check, as `implicitbias check --run`
// does. It skips without Debian's python3-torch and python3-numpy.
func pytorchTable1(t *testing.T, args ...string) *check.Report {
	t.Helper()
	if testing.Short() {
		t.Skip("runs PyTorch")
	}
	py, err := torchServer.Get()
	if err == nil {
		err = py.Missing(torchServer.Modules...)
	}
	if err != nil {
		t.Skipf("PyTorch is not installed (apt-get install -y python3-torch python3-numpy): %v", err)
	}
	out := filepath.Join(t.TempDir(), "run.npz")
	b, err := py.Output(".", append([]string{filepath.Join("..", "examples", "pytorch", "ll_table1.py"), "--out", out}, args...)...)
	require.NoError(t, err, "ll_table1.py: %s", b)
	t.Logf("ll_table1.py %v:\n%s", args, b)
	tr, err := check.ReadFile(out)
	require.NoError(t, err)
	m, err := check.MapModel(tr)
	require.NoError(t, err)
	tr = m.Apply(tr)
	model, err := models.Parse(m.Spec, m.In)
	require.NoError(t, err)
	loss, err := check.LossFor("", model.Out())
	require.NoError(t, err)
	data, err := check.Data(tr, loss)
	require.NoError(t, err)
	rep, err := check.Check(tr, model, data, check.Options{Name: "run.npz", Rows: true})
	require.NoError(t, err)
	assert.LessOrEqual(t, rep.OutputsDiff, 1e-12, "the mapping reproduces PyTorch's outputs")
	return rep
}

func statuses(rep *check.Report) map[string]theorems.Status {
	s := map[string]theorems.Status{}
	for _, r := range rep.Results {
		s[r.ID] = r.Claims.Status()
	}
	return s
}

// TestPyTorchTable1Toy runs LL's protocol (ll_table1.py) at its toy size —
// 7×7 images, one per class, width 1/8, full batch, the loss-based schedule
// to 1e-15 in log domain — and judges the recorded rows with check: every
// recorded step of the rows' pairs is −η∇𝓛 (the premise), the homogeneity
// identities hold at every row, the normalized margin check measures never
// decreases across the rows, and nothing is violated (LL-F, γ̃ non-decreasing,
// holds on this run).
func TestPyTorchTable1Toy(t *testing.T) {
	rep := pytorchTable1(t, "--toy", "--stop-log10-loss", "-15")
	assert.Equal(t, theorems.Holds, rep.Premise.Status, "premise: %s", rep.Premise)
	st := statuses(rep)
	for _, id := range []string{"LL-B3", "LL-B3m"} {
		assert.Equal(t, theorems.Holds, st[id], id)
	}
	for id, s := range st {
		assert.NotEqual(t, theorems.Violated, s, id)
	}
	// model-1 in a pair, model-2 at the last epoch (the run stops there):
	// ≥ 3 records, and the premise checked on the pair.
	require.GreaterOrEqual(t, len(rep.Rows), 3)
	// The rows are the records that do not follow the one before by a step
	// (the second of a pair is one step past its row): γ̄ is compared across
	// them, as LL's Table 1 does. Within a pair a loss-based step may lower
	// γ̄ slightly (1e-3 relative on this run): LL's monotonicity is γ̃'s under
	// the flow (LL-F), not γ̄'s under a step at the edge of stability.
	var rows []check.Row
	for i, r := range rep.Rows {
		require.False(t, math.IsNaN(r.GammaBar), "record %d (step %d) not separated", i, r.Step)
		if i > 0 {
			assert.Less(t, r.LogLoss, rep.Rows[i-1].LogLoss)
		}
		if i == 0 || r.Step != rep.Rows[i-1].Step+1 {
			rows = append(rows, r)
		}
	}
	require.GreaterOrEqual(t, len(rows), 2)
	for i := 1; i < len(rows); i++ {
		assert.GreaterOrEqual(t, rows[i].GammaBar, rows[i-1].GammaBar, "γ̄ fell from the row at step %d to the one at %d", rows[i-1].Step, rows[i].Step)
	}
	// The mean loss below 1e-15 is the summed loss (check's 𝓛) of the 10
	// images below 1e-14.
	assert.Less(t, rep.Rows[len(rep.Rows)-1].LogLoss, -14*math.Ln10, "the last row is below 1e-15")
}

// TestPyTorchTable1BiasControl: the same network with a bias in every
// layer (--bias) is not homogeneous, and check says so for the
// homogeneity claims (assumption-failed), whatever the run.
func TestPyTorchTable1BiasControl(t *testing.T) {
	rep := pytorchTable1(t, "--toy", "--bias", "--max-epochs", "20")
	st := statuses(rep)
	for _, id := range []string{"LL-B3", "LL-B3m"} {
		assert.Equal(t, theorems.AssumptionFailed, st[id], id)
	}
}

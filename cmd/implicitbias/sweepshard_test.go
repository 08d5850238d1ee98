package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/report"
)

// TestSweepShards: ZD-T4/L5's sweep split over two sweep shards through a
// store: each shard draws one case (an undecided one is not replaced: its
// other jobs are the other shard's) and the first alone is inconclusive; a
// run with the store and no sweep shard finds every job and gives the
// unsharded verdict (and JSON); bad flags are usage errors. At seed 3: the
// sweep's sizes are the quick budget's at every seed, its step budgets
// follow its case's data, and seed 3's case trains its 60 jobs in a third
// of seed 1's CPU time (1.2 s against 3.3 s; seed 4's takes 8 s), which
// the plumbing under test does not depend on.
func TestSweepShards(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	only := []string{"verify", "--only", "ZD-T4/L5", "--seed", "3", "--json"}
	for _, s := range []string{"0/2", "1/2"} {
		code, out, errOut := runCLI(append(only, "--sweep-store", dir, "--sweep-shard", s)...)
		require.Equal(t, exitOK, code, errOut)
		var d report.Document
		require.NoError(t, json.Unmarshal([]byte(out), &d))
		require.Len(t, d.Entries, 1)
		assert.Equal(t, 1, d.Entries[0].Cases, "shard %s: %s", s, d.Entries[0].Detail)
		if s == "0/2" {
			assert.Equal(t, "inconclusive", d.Entries[0].Status, "shard %s alone: %s", s, d.Entries[0].Detail)
		}
	}
	code, sharded, errOut := runCLI(append(only, "--sweep-store", dir)...)
	require.Equal(t, exitOK, code, errOut)
	code, whole, errOut := runCLI(only...)
	require.Equal(t, exitOK, code, errOut)
	assert.JSONEq(t, whole, sharded)
	var d report.Document
	require.NoError(t, json.Unmarshal([]byte(whole), &d))
	assert.Equal(t, "holds", d.Entries[0].Status)

	for _, args := range [][]string{{"--sweep-shard", "0/2"}, {"--sweep-store", dir, "--sweep-shard", "2/2"}, {"--sweep-store", dir, "--sweep-shard", "x"}} {
		code, _, _ := runCLI(append([]string{"verify", "--only", "LL-B2a"}, args...)...)
		assert.Equal(t, exitUsage, code, "%v", args)
	}
}

// TestTrainNTK: train takes ntk: specs (squared loss, L2 centred at θ₀).
func TestTrainNTK(t *testing.T) {
	p := filepath.Join(t.TempDir(), "reg.csv")
	require.NoError(t, os.WriteFile(p, []byte("0.5,1,0\n-0.25,0,1\n1,0.6,0.8\n"), 0o644))
	code, out, errOut := runCLI("train", "--data", p, "--model", "ntk:tanh:2x32", "--loss", "squared", "--lr", "1", "--steps", "200", "--l2", "1e-4")
	require.Equal(t, exitOK, code, errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Less(t, res["log_loss"].(float64), -5.0, out)
	code, _, errOut = runCLI("train", "--data", p, "--model", "ntk:tanh:2x32:beta=0", "--loss", "squared")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "β must be")
}

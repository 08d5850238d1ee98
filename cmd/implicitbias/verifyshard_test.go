package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterShards: a Slurm array task or a Kubernetes indexed Job
// completion runs the same shard, byte for byte, as --shard I/N; a malformed
// or incomplete environment is an error, not a full run.
func TestClusterShards(t *testing.T) {
	const only, n = "LL-B2a,LL-B2b,LL-B3,LL-B4", 3
	clear := func() {
		for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX", "JOB_COMPLETIONS"} {
			t.Setenv(v, "")
		}
	}
	for i := 0; i < n; i++ {
		clear()
		code, want, errOut := runCLI("verify", "--only", only, "--json", "--shard", fmt.Sprintf("%d/%d", i, n))
		require.Equal(t, exitOK, code, errOut)
		for _, env := range []map[string]string{
			{"SLURM_ARRAY_TASK_ID": fmt.Sprint(i), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)},
			{"SLURM_ARRAY_TASK_ID": fmt.Sprint(i + 1), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n), "SLURM_ARRAY_TASK_MIN": "1"},
			{"JOB_COMPLETION_INDEX": fmt.Sprint(i), "JOB_COMPLETIONS": fmt.Sprint(n)},
		} {
			clear()
			for k, v := range env {
				t.Setenv(k, v)
			}
			code, got, errOut := runCLI("verify", "--only", only, "--json")
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, want, got, "%v", env)
			assert.Contains(t, errOut, fmt.Sprintf("shard %d/%d from", i, n))
		}
	}
	// --shard wins over the environment.
	clear()
	t.Setenv("JOB_COMPLETION_INDEX", "5")
	code, _, errOut := runCLI("verify", "--only", "LL-B2a", "--shard", "0/1")
	assert.Equal(t, exitOK, code, errOut)
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, "SLURM_ARRAY_TASK_COUNT is not"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, `SLURM_ARRAY_TASK_ID="x" is not an integer`},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "2"}, "is not in 0…1"},
		{map[string]string{"JOB_COMPLETION_INDEX": "0"}, "JOB_COMPLETIONS is not"},
		{map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "2"}, `--shard "3/2"`},
	} {
		clear()
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		code, out, errOut := runCLI("verify", "--only", "LL-B2a")
		assert.Equal(t, exitUsage, code, "%v", tc.env)
		assert.Empty(t, out)
		assert.Contains(t, errOut, tc.want)
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchLine(t *testing.T) {
	code, out, errOut := runCLI("bench", "--workload", "W4", "--steps", "20")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `^bench workload=W4 impl=engine threads=1 steps=20 seconds=\S+ steps/s=\S+ GFLOP/s=\S+ final_loss=\S+\n$`, out)
}

// TestBenchExportInit: a run from an exported problem gives the same final
// loss, bit for bit, as a run from the seed; --threads does not change it.
func TestBenchExportInit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "w3.json")
	code, _, errOut := runCLI("bench", "--workload", "W3", "--seed", "5", "--export", file)
	require.Equal(t, exitOK, code, errOut)
	var results []benchResult
	for _, args := range [][]string{
		{"bench", "--workload", "W3", "--seed", "5", "--steps", "30", "--json"},
		{"bench", "--init", file, "--steps", "30", "--json"},
		{"bench", "--init", file, "--workload", "W3", "--steps", "30", "--threads", "2", "--json"},
	} {
		code, out, errOut := runCLI(args...)
		require.Equal(t, exitOK, code, errOut)
		var r benchResult
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		results = append(results, r)
	}
	for _, r := range results[1:] {
		assert.Equal(t, results[0].FinalLoss, r.FinalLoss)
		assert.Equal(t, "W3", r.Workload)
		assert.Equal(t, 30, r.Steps)
		assert.Greater(t, r.StepsPerS, 0.0)
	}
	assert.Equal(t, 2, results[2].Threads)
}

func TestBenchErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w4.json")
	code, _, _ := runCLI("bench", "--workload", "W4", "--export", file)
	require.Equal(t, exitOK, code)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"bench"}, "--workload W1|W2|W3|W4|W5 (or --init FILE) is required"},
		{[]string{"bench", "--workload", "W7"}, `unknown workload "W7"`},
		{[]string{"bench", "--workload", "W1", "--steps", "-1"}, "--steps must be ≥ 0"},
		{[]string{"bench", "--workload", "W1", "--threads", "0"}, "--threads must be ≥ 1"},
		{[]string{"bench", "--init", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"bench", "--init", file, "--workload", "W1"}, "holds W4"},
		{[]string{"bench", "--workload", "W1", "--export", filepath.Join(dir, "no", "dir.json")}, "no such file"},
	} {
		code, out, errOut := runCLI(tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Empty(t, out, "%v", tc.args)
		assert.Contains(t, errOut, tc.msg, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	}
}

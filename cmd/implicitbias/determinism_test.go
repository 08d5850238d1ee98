package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeterminism: the same seed gives bit-identical verify JSON and train
// traces with GOMAXPROCS=1 and GOMAXPROCS=2, and across repeated runs.
func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	dir := t.TempDir()
	var verify, trainOut, traces []string
	for i, procs := range []int{1, 2, 2, 1} {
		runtime.GOMAXPROCS(procs)
		code, out, errOut := runCLI("verify", "--json", "--only", "LL-B2b,LL-B3,LL-B4", "--seed", "5")
		require.Equal(t, exitOK, code, errOut)
		verify = append(verify, out)
		trace := filepath.Join(dir, "trace"+string(rune('a'+i))+".csv")
		code, out, errOut = runCLI("train", "--data", "testdata/sep2d.csv", "--model", "mlp:relu:2x8", "--loss", "logistic", "--lr", "0.05", "--steps", "200", "--record", "10", "--trace", trace)
		require.Equal(t, exitOK, code, errOut)
		trainOut = append(trainOut, out)
		b, err := os.ReadFile(trace)
		require.NoError(t, err)
		traces = append(traces, string(b))
	}
	for i := 1; i < len(verify); i++ {
		assert.Equal(t, verify[0], verify[i], "verify --json differs in run %d", i)
		assert.Equal(t, trainOut[0], trainOut[i], "train JSON differs in run %d", i)
		assert.Equal(t, traces[0], traces[i], "train trace differs in run %d", i)
	}
}

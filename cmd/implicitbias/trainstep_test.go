package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrainDefaultStepSeparatesDigits38: the shipped digits, 3 against 8
// (357 images), standardized, a width-16 ReLU MLP on the mean logistic loss
// with the default step: the run separates (the old default, 0.1·n = 35.7
// on the mean, diverged at step 94). The control: that old step, given as
// --lr, still diverges (exit 4), so the default is what changed.
func TestTrainDefaultStepSeparatesDigits38(t *testing.T) {
	data := digits38(t)
	args := []string{"train", "--data", data, "--model", "mlp:relu:2x16", "--loss", "logistic", "--reduce", "mean", "--standardize", "--steps", "3000"}
	code, out, errOut := runCLI(args...)
	require.Equal(t, exitOK, code, errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, true, res["separated"], "log_loss %v, q_min %v, lr %v", res["log_loss"], res["q_min"], res["lr"])
	code, _, errOut = runCLI(append(args, "--lr", "35.7")...)
	require.Equal(t, exitDiverged, code, errOut)
}

// digits38 writes the shipped digits 3 (label −1) and 8 (label 1).
func digits38(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "data", "digits.csv"))
	require.NoError(t, err)
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		label, rest, _ := strings.Cut(line, ",")
		switch label {
		case "3":
			b.WriteString("-1," + rest + "\n")
		case "8":
			b.WriteString("1," + rest + "\n")
		}
	}
	data := filepath.Join(t.TempDir(), "d38.csv")
	require.NoError(t, os.WriteFile(data, []byte(b.String()), 0o644))
	return data
}

// TestTrainDefaultStepRunFirst: a run of at most probeSteps steps at the
// default step is its own first probe (runProbes in train.go: trained
// first, the halvings probed only if it diverges); with --trace every
// probe runs first, as for longer runs. Both give the same JSON, where the
// default trains (sep2d) and where it diverges and is halved twice (digits
// 3 against 8 on the mean: 35.7 diverges at step 94, 8.925 trains).
func TestTrainDefaultStepRunFirst(t *testing.T) {
	for _, tc := range []struct {
		args []string
		lr   float64
	}{
		{[]string{"--data", "testdata/sep2d.csv", "--model", "mlp:relu:2x8", "--loss", "logistic"}, 0.1},
		{[]string{"--data", digits38(t), "--model", "mlp:relu:2x16", "--loss", "logistic", "--reduce", "mean", "--standardize", "--steps", "300"}, 35.7 / 4},
	} {
		var outs []map[string]any
		for _, trace := range []bool{false, true} {
			args := append([]string{"train"}, tc.args...)
			if trace {
				args = append(args, "--trace", filepath.Join(t.TempDir(), "trace.csv"))
			}
			code, out, errOut := runCLI(args...)
			require.Equal(t, exitOK, code, errOut)
			var res map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &res))
			outs = append(outs, res)
		}
		assert.Equal(t, outs[1], outs[0], "%v", tc.args)
		assert.InEpsilon(t, tc.lr, outs[0]["lr"], 1e-12, "%v", tc.args)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTrainDefaultStepSeparatesDigits38: the shipped digits, 3 against 8
// (357 images), standardized, a width-16 ReLU MLP on the mean logistic loss
// with the default step: the run separates (the old default, 0.1·n = 35.7
// on the mean, diverged at step 94). The control: that old step, given as
// --lr, still diverges (exit 4), so the default is what changed.
func TestTrainDefaultStepSeparatesDigits38(t *testing.T) {
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
	args := []string{"train", "--data", data, "--model", "mlp:relu:2x16", "--loss", "logistic", "--reduce", "mean", "--standardize", "--steps", "3000"}
	code, out, errOut := runCLI(args...)
	require.Equal(t, exitOK, code, errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, true, res["separated"], "log_loss %v, q_min %v, lr %v", res["log_loss"], res["q_min"], res["lr"])
	code, _, errOut = runCLI(append(args, "--lr", "35.7")...)
	require.Equal(t, exitDiverged, code, errOut)
}

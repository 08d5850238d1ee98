package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyFaultFlag: --fault narrows verify --faults to the named
// faults' pairs; a bad selection is a usage error that says what is valid.
func TestVerifyFaultFlag(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings of stdout
		noStdout []string // substrings stdout must not have
		stderr   string
	}{
		{name: "one fault of two", args: []string{"--faults", "--fault", "fprime-branch", "--only", "ENG-grad"},
			stdout: []string{"fprime-branch", "ENG-grad"}, noStdout: []string{"backward-first-block"}},
		{name: "both, comma-separated", args: []string{"--faults", "--fault", "fprime-branch,backward-first-block", "--only", "ENG-grad"},
			stdout: []string{"fprime-branch", "backward-first-block"}},
		{name: "unknown fault", args: []string{"--faults", "--fault", "nope"}, code: exitUsage, stderr: `unknown fault "nope"`},
		{name: "not declared on the selection", args: []string{"--faults", "--fault", "missing-zero-grad", "--only", "ENG-grad"},
			code: exitUsage, stderr: "it is declared on LL-4.2"},
		{name: "empty name in the list", args: []string{"--faults", "--fault", "fprime-branch,"}, code: exitUsage, stderr: "empty fault name"},
		{name: "without --faults", args: []string{"--fault", "fprime-branch"}, code: exitUsage, stderr: "add --faults"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(append([]string{"verify"}, tc.args...)...)
			require.Equal(t, tc.code, code, "stderr: %s", errOut)
			for _, s := range tc.stdout {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.noStdout {
				assert.NotContains(t, out, s)
			}
			if tc.stderr != "" {
				assert.True(t, strings.Contains(errOut, tc.stderr), "stderr %q lacks %q", errOut, tc.stderr)
			}
		})
	}
}

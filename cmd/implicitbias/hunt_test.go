package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHuntCounterexamples: only a case the claim's check reports violated
// is a counterexample. ZD-P17 without "psd" gives assumption-failed cases
// (the check sees a negative q_i and refuses to judge): issue 21's hunt
// printed one as a counterexample and exited 0. --json prints one object.
func TestHuntCounterexamples(t *testing.T) {
	for _, tc := range []struct {
		id, drop string
		found    bool
		code     int
	}{
		{"ZD-P17", "psd", false, exitViolated},
		{"LL-B3", "bias", true, exitOK},
	} {
		t.Run(tc.id, func(t *testing.T) {
			code, out, errOut := runCLI("verify", "--hunt", tc.id, "--drop", tc.drop, "--seed", "3")
			assert.Equal(t, tc.code, code, errOut)
			if !tc.found {
				assert.Contains(t, out, "No counterexample in 200 cases")
				assert.Contains(t, out, "reported assumption-failed: not a counterexample")
				assert.NotContains(t, out, "Reproduce")
			}
			code, out, errOut = runCLI("verify", "--hunt", tc.id, "--drop", tc.drop, "--seed", "3", "--json")
			assert.Equal(t, tc.code, code, errOut)
			var res huntResult
			require.NoError(t, json.Unmarshal([]byte(out), &res), out)
			assert.Equal(t, tc.found, res.Found)
			assert.Equal(t, tc.id, res.ID)
			if tc.found {
				assert.NotEmpty(t, res.Case)
				require.NotNil(t, res.Statistic)
				require.NotNil(t, res.Bound)
				assert.Greater(t, *res.Statistic, *res.Bound)
			} else {
				assert.Positive(t, res.AssumptionFailed)
				assert.Empty(t, res.Case)
			}
		})
	}
}

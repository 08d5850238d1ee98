package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLossPoleJSON: a pole is a failure of every hypothesis that needs ℓ
// defined, in the table and in the JSON (issue 21: (B3.1) "held" across the
// pole of 1/(1+q)² and ZD-smooth "held" with L = +Inf).
func TestLossPoleJSON(t *testing.T) {
	code, out, errOut := runCLI("loss", "--json", "1/(1+q)^2")
	require.Equal(t, exitViolated, code, errOut)
	var doc struct {
		Hypotheses []struct {
			ID      string   `json:"id"`
			Status  string   `json:"status"`
			Value   *float64 `json:"value"`
			Witness *struct {
				Q float64 `json:"q"`
			} `json:"witness"`
		} `json:"hypotheses"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	for _, h := range doc.Hypotheses {
		switch h.ID {
		case "B3.1", "B3.2", "ZD-convex", "ZD-smooth", "ZD-decreasing":
			assert.Equal(t, "violated", h.Status, h.ID)
			require.NotNil(t, h.Witness, h.ID)
			assert.Equal(t, -1.0, h.Witness.Q, h.ID)
		}
	}
	code, out, _ = runCLI("loss", "1/(1+q)^2")
	assert.Equal(t, exitViolated, code)
	assert.Contains(t, out, "(B3.1)           LL App. A.1                    fails at q = -1")
	assert.NotContains(t, out, "+Inf")
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/suite"
)

// TestVerifyFaultsJSON: `verify --faults --json` prints one object per
// declared pair of the selected entries, with the keys the docs name.
func TestVerifyFaultsJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"verify", "--faults", "--only", "LL-B3,LL-B3m", "--json"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	want := 0
	for _, p := range properties.FaultPairs(suite.Entries()) {
		if p.Claim == "LL-B3" || p.Claim == "LL-B3m" {
			want++
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, want)
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		for _, k := range []string{"fault", "claim", "cases", "violated", "caught"} {
			assert.Contains(t, m, k, l)
		}
		assert.Equal(t, 1.0, m["caught"], l)
	}
}

// TestVerifyFaultsTable: the text table names the fault, its component and
// the claim.
func TestVerifyFaultsTable(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"verify", "--faults", "--only", "LL-B3"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "FAULT")
	assert.Contains(t, out.String(), "degree-plus-one")
	assert.Contains(t, out.String(), "model")
}

package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/theorems"
)

func results() []theorems.Result {
	info, _ := theorems.Lookup("LL-B3")
	ok := theorems.Result{Info: info, Controls: 1, ControlsCaught: 1}
	ok.Claims.Add(theorems.Compare(1e-16, 1e-10, "fine"), "case A")
	info2, _ := theorems.Lookup("LL-B4")
	bad := theorems.Result{Info: info2, Controls: 1, ControlsCaught: 0, ControlMissed: "bias: case C gave holds"}
	bad.Claims.Add(theorems.Undecided("dead network"), "case B")
	return []theorems.Result{ok, bad}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, results()))
	out := b.String()
	assert.Contains(t, out, "LL-B3")
	assert.Contains(t, out, "1e-16 ≤ 1e-10")
	assert.Contains(t, out, "1/1 caught")
	assert.Contains(t, out, "0/1 caught")
	assert.Contains(t, out, "2 entries checked: 1 holds, 0 violated, 1 inconclusive")
	assert.Contains(t, out, "43 catalog entries have no check yet")
	assert.Contains(t, out, "negative control not caught: bias: case C gave holds")
	assert.Contains(t, out, "1 (1 undecided)")
}

// TestJSONNaN: statistics that could not be computed are null, not an
// encoding error.
func TestJSONNaN(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, NewDocument(3, "quick", results())))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	es := doc["entries"].([]any)
	require.Len(t, es, 2)
	assert.Nil(t, es[1].(map[string]any)["statistic"])
	assert.Equal(t, "inconclusive", es[1].(map[string]any)["status"])
	assert.Equal(t, 1e-16, es[0].(map[string]any)["statistic"])
	assert.True(t, strings.Contains(b.String(), `"assumption_failed": 0`))
	assert.True(t, math.IsNaN(results()[1].Claims.Worst.Statistic))
}

package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestConjectureRow: a conjecture's row shows its support frequency and an
// inconclusive (not violated) status.
func TestConjectureRow(t *testing.T) {
	info, ok := theorems.Lookup("XY-S5")
	require.True(t, ok)
	r := theorems.Result{Info: info, Controls: 1, ControlsCaught: 1}
	r.Claims.Add(theorems.Compare(0.2, 0.5, "supported"), "a")
	r.Claims.Add(theorems.Compare(0.9, 0.5, "not supported"), "b")
	assert.Equal(t, "2 (1/2 supported)", CasesOf(r))
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, []theorems.Result{r}))
	assert.Contains(t, b.String(), "2 (1/2 supported)")
	assert.Contains(t, b.String(), "0 violated, 1 inconclusive")
}

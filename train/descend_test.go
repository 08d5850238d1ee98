package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescendIsRun: Descend's steps are Run's, bit for bit, and allocate
// nothing.
func TestDescendIsRun(t *testing.T) {
	obj, theta := benchObjective(t, "mlp:relu:16", 40, 5)
	gd, err := NewGD(0.01)
	require.NoError(t, err)
	run := append([]float64(nil), theta...)
	tr, err := Run(obj, gd, run, Config{Steps: 50, Every: 50})
	require.NoError(t, err)
	require.NoError(t, Descend(obj, gd, theta, 50))
	assert.Equal(t, tr.Theta, theta)
	allocs := testing.AllocsPerRun(5, func() {
		if err := Descend(obj, gd, theta, 3); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

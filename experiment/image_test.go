package experiment

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
)

// TestDownsample: a 4×4 image averaged over 2×2 blocks, labels and groups
// kept; sizes that do not divide are refused. Fault caught: rows and
// columns swapped (the image is not symmetric).
func TestDownsample(t *testing.T) {
	d := &dataset.Dataset{N: 1, D: 16, Y: []float64{3}, Groups: []int{1}, X: []float64{
		0, 1, 2, 3,
		4, 5, 6, 7,
		8, 9, 10, 11,
		12, 13, 14, 15,
	}}
	s, err := Downsample(d, 4, 2)
	require.NoError(t, err)
	assert.Equal(t, []float64{2.5, 4.5, 10.5, 12.5}, s.X)
	assert.Equal(t, 4, s.D)
	assert.Equal(t, []float64{3}, s.Y)
	assert.Equal(t, []int{1}, s.Groups)
	same, err := Downsample(d, 4, 1)
	require.NoError(t, err)
	assert.Equal(t, d.X, same.X)
	for _, tc := range []struct {
		d            *dataset.Dataset
		side, factor int
	}{{nil, 4, 2}, {d, 5, 1}, {d, 4, 3}, {d, 4, 0}, {d, 0, 1}} {
		_, err := Downsample(tc.d, tc.side, tc.factor)
		assert.Error(t, err, "side %d factor %d", tc.side, tc.factor)
	}
}

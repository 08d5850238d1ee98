package train

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
)

// TestSetWeightsSubnormal: a weight below 2⁻¹⁰²² (a GRW weight sent to 0
// geometrically gets there) keeps its exact logarithm.
func TestSetWeightsSubnormal(t *testing.T) {
	d := regressionData(rand.New(rand.NewPCG(1, 1)), 2, 1)
	obj, err := NewObjective(mustLinear(t, 1), losses.Squared{}, d)
	require.NoError(t, err)
	require.NoError(t, obj.SetWeights([]float64{5e-324, 1}))
	assert.InDelta(t, -744.44007192138, obj.LogWeight(0), 1e-9)
}

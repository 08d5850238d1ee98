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

// TestWeightsReusedAndUnsummed: the shortcuts of a GRW step give what a
// fresh objective gives — weights equal to the last ones keep their logs
// (and new ones replace them), and an evaluation left unsummed for a
// Reweight is never returned from the cache by Evaluate.
func TestWeightsReusedAndUnsummed(t *testing.T) {
	obj, theta := tinyObjective(t, "linear", losses.NewBinary(losses.Logistic{}), 0)
	w1, w2 := make([]float64, obj.Data.N), make([]float64, obj.Data.N)
	for i := range w1 {
		w1[i], w2[i] = float64(i+1), float64(obj.Data.N-i)
	}
	fresh := func(w []float64) float64 {
		o, _ := tinyObjective(t, "linear", losses.NewBinary(losses.Logistic{}), 0)
		require.NoError(t, o.SetWeights(w))
		ev, err := o.Evaluate(theta, true)
		require.NoError(t, err)
		return ev.LogLoss
	}
	for _, w := range [][]float64{w1, w1, w2, w1, w1} {
		_, err := obj.evaluate(theta, false, false)
		require.NoError(t, err)
		ev, err := obj.Reweight(w, true)
		require.NoError(t, err)
		assert.Equal(t, fresh(w), ev.LogLoss)
	}
	_, err := obj.evaluate(theta, false, false)
	require.NoError(t, err)
	require.NoError(t, obj.SetWeights(w2))
	ev, err := obj.Evaluate(theta, false)
	require.NoError(t, err)
	assert.Equal(t, fresh(w2), ev.LogLoss)
	// Unsummed, then Evaluate at the same θ: summed, not the cache.
	_, err = obj.evaluate(theta, false, false)
	require.NoError(t, err)
	ev, err = obj.Evaluate(theta, false)
	require.NoError(t, err)
	assert.Equal(t, fresh(w2), ev.LogLoss)
}

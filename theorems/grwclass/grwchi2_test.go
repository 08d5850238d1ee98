package grwclass_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// TestGRWDirectionChi2MarginsDip is the run that check/roundtrip_test.go
// found reported violated by ZD-T7's coefficient part (worst ratio 1.74 at
// log T = 7.6) when it took the slopes at the records only: our own GD,
// χ²-DRO, logistic loss, 6 samples in 15 dimensions, a record every 20
// steps; χ² sets some q_n to 0 between records and their margins dip
// (296 (segment, sample) pairs after log T = 7). A correct engine holds.
func TestGRWDirectionChi2MarginsDip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	const n, d = 6, 15
	data := &dataset.Dataset{N: n, D: d}
	for i := range n {
		for range d {
			data.X = append(data.X, rng.NormFloat64()/math.Sqrt(d))
		}
		rng.NormFloat64() // the regression target of the roundtrip test's data
		data.Y = append(data.Y, float64(2*(i%2)-1))
	}
	lin, err := models.Parse("linear", d)
	require.NoError(t, err)
	gd, err := train.NewOptimizer("gd", train.OptimizerOptions{LR: 0.5})
	require.NoError(t, err)
	obj, err := train.NewObjective(lin, losses.NewBinary(losses.Logistic{}), data)
	require.NoError(t, err)
	w, err := train.ParseWeighting("chi2", nil)
	require.NoError(t, err)
	tr, err := train.Run(obj, gd, make([]float64, d), train.Config{Steps: 4000, Every: 20, KeepTheta: true, Weighting: w, KeepWeights: true})
	require.NoError(t, err)
	v := grwclass.GRWDirection(data, tr)
	assert.Equal(t, theorems.Holds, v.Status, "%s", v)
	assert.Contains(t, v.Detail, "within the bounds of the weights' integral over each segment")
}

package regression

import (
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/weightwitness"
	"github.com/implicitbias/implicitbias/train"
)

// The weights witness of the GRW claims (issue 32, weightwitness.RecordedWeights):
// before a claim reads a run's recorded weights, they are recomputed from
// the scheme the case asked for — a fresh instance of it, the case's model
// and loss, θ₀ = 0 as every GRW run here starts — and a mismatch is the
// claim's verdict (violated: the run is not the GRW run the case asked
// for). The fault weights-ignored-reported (uniform weights applied and
// recorded) is what it catches and the claims alone do not.

// weightsWitnessed recomputes the weights of the regression run tr (linear
// model, squared loss, from the case's θ₀) under the case's scheme.
func (c RegressionCase) weightsWitnessed(tr *train.Trajectory) (theorems.Verdict, bool) {
	ds, theta0 := c.Problem()
	w, err := c.Weighting(ds.N)
	if err != nil {
		return properties.BuildFailed(err), false
	}
	m, err := models.NewLinear(ds.D, 1)
	if err != nil {
		return properties.BuildFailed(err), false
	}
	return weightwitness.RecordedWeights(tr, weightwitness.WeightReplay{Scheme: w, Data: ds, Model: m, Loss: losses.Squared{}, Theta0: theta0})
}

package classification

import (
	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
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

// witnessWeights runs weightwitness.RecordedWeights on tr with the scheme w
// (fresh, built from the case), the model m and the loss l, from θ₀ = 0.
func witnessWeights(data *dataset.Dataset, tr *train.Trajectory, w train.Weighting, m models.Model, l losses.Loss) (theorems.Verdict, bool) {
	return weightwitness.RecordedWeights(tr, weightwitness.WeightReplay{Scheme: w, Data: data, Model: m, Loss: l, Theta0: make([]float64, m.NumParams())})
}

// weightsWitnessed recomputes the weights of the case's run tr under its
// own scheme.
func (c ClassCase) weightsWitnessed(data *dataset.Dataset, tr *train.Trajectory) (theorems.Verdict, bool) {
	w, err := c.Weighting()
	if err != nil {
		return properties.BuildFailed(err), false
	}
	return c.witnessedBy(data, tr, w)
}

// witnessedBy recomputes the weights of the case's run tr under the scheme
// w (fresh: not the instance that ran).
func (c ClassCase) witnessedBy(data *dataset.Dataset, tr *train.Trajectory, w train.Weighting) (theorems.Verdict, bool) {
	obj, err := LinearObjective(data, 1, c.LossOf())
	if err != nil {
		return properties.BuildFailed(err), false
	}
	return witnessWeights(data, tr, w, obj.Model, obj.Loss)
}

// learnedWitnessed recomputes the weights of XY-S5's run: the weighting
// model of the case (learnedWeighting), replayed from ψ₀.
func (c ClassCase) learnedWitnessed(data *dataset.Dataset, tr *train.Trajectory) (theorems.Verdict, bool) {
	lw, err := learnedWeighting(c)
	if err != nil {
		return properties.BuildFailed(err), false
	}
	return c.witnessedBy(data, tr, lw)
}

// weightsWitnessed recomputes the weights of the multi-class run tr (poly:
// the pairwise polynomial loss of the control) under the case's scheme.
func (c MultiCase) weightsWitnessed(data *dataset.Dataset, tr *train.Trajectory, poly bool) (theorems.Verdict, bool) {
	w, err := cases.NewScheme(c.Scheme, c.Param, c.Seed, data.N)
	if err != nil {
		return properties.BuildFailed(err), false
	}
	m, err := models.NewLinear(data.D, c.k())
	if err != nil {
		return properties.BuildFailed(err), false
	}
	var l losses.Loss = losses.CrossEntropy{}
	if poly {
		l = cases.NewPairwisePoly()
	}
	return witnessWeights(data, tr, w, m, l)
}

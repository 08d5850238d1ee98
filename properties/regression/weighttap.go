package regression

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/train"
)

// weightTap wraps a GRW scheme and records, outside the objective, what
// the scheme wrote: q^{(t)} of the first keep steps (the replay of
// regression.WeightsActed) and, when extremes is set, min_i and max_i of
// q^{(t)} at every step (the computed rate of regression.GRWRate). The engine
// applies the same q (train.Run passes it to Objective.Reweight); a
// reweighting fault rewrites its own copy there, so what the tap holds is
// what should have been applied.
type weightTap struct {
	train.Weighting
	keep       int
	extremes   bool
	first      [][]float64
	qmin, qmax []float64
}

func (w *weightTap) Update(t int, logLoss, q []float64) error {
	if err := w.Weighting.Update(t, logLoss, q); err != nil {
		return err
	}
	if t < w.keep {
		w.first = append(w.first, append([]float64(nil), q...))
	}
	if w.extremes {
		w.qmin = append(w.qmin, floats.Min(q))
		w.qmax = append(w.qmax, floats.Max(q))
	}
	return nil
}

// weightFaultActs reports whether the reweighting fault name changes the
// weights q that a scheme wrote (a non-reweighting fault acts always):
// weights-ignored is a no-op on uniform weights, sample-dropped on q_0 = 0.
func weightFaultActs(name string, q []float64) bool {
	f, err := faults.Lookup(name)
	if err != nil {
		return false
	}
	applied := append([]float64(nil), q...)
	if !f.RewriteWeights(applied) {
		return true
	}
	scale := floats.Max(q)
	for i := range q {
		if math.Abs(applied[i]-q[i]) > 1e-9*scale {
			return true
		}
	}
	return false
}

package grwclass

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// ConjectureDecay is the share of its peak that XY-S5's quantities must have
// fallen to by the end of a run for the conjecture to count as supported
// there: "concentrates" and "decays toward 0" are read as "at most half of
// the largest value seen". It is a reading of the paper's words (Fig. 4
// shows the spread and the correlation falling to a fraction of their
// peaks), not a derived bound: the entry is a conjecture and is reported as
// a frequency, never asserted.
const ConjectureDecay = 0.5

// LearnedWeightsConjecture reports XY-S5 (XY §5, Fig. 4) on a GD run under
// the learned weighting model (train.LearnedWeighting) whose records kept
// θ and the weights q^{(t)}: supported (holds) when
//
//   - the weights concentrate: their spread n·(max q − min q) at the end is
//     at most ConjectureDecay of its largest value, and
//   - their Pearson correlation with the margins y_i⟨θ, x_i⟩ first grows
//     then decays: |corr| peaks at a record strictly inside the run and
//     ends at most ConjectureDecay of the peak;
//
// not supported (violated) otherwise. The statistic is the larger of the
// two end-to-peak ratios, against ConjectureDecay.
func LearnedWeightsConjecture(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
	type point struct {
		step         int
		spread, corr float64
	}
	var pts []point
	margins := make([]float64, data.N)
	for _, r := range tr.Records {
		if r.Theta == nil || r.Weights == nil || len(r.Weights) != data.N {
			continue
		}
		for i := range margins {
			margins[i] = data.Y[i] * floats.Dot(data.Row(i), r.Theta)
		}
		c := stat.Correlation(r.Weights, margins, nil)
		pts = append(pts, point{r.Step, float64(data.N) * (floats.Max(r.Weights) - floats.Min(r.Weights)), c})
	}
	if len(pts) < 3 {
		return theorems.Undecided("%d records with θ and weights", len(pts))
	}
	last := pts[len(pts)-1]
	peakS, peakC, peakAt := 0.0, 0.0, -1
	for k, p := range pts {
		peakS = math.Max(peakS, p.spread)
		if a := math.Abs(p.corr); !math.IsNaN(a) && a > peakC {
			peakC, peakAt = a, k
		}
	}
	if !(peakS > 0) {
		return theorems.Undecided("the weights never spread (the model is constant)")
	}
	rs := last.spread / peakS
	rc := 1.0
	if peakAt > 0 && peakAt < len(pts)-1 && !math.IsNaN(last.corr) {
		rc = math.Abs(last.corr) / peakC
	}
	detail := fmt.Sprintf("spread n(max q − min q) %.3g at the peak → %.3g at step %d; |corr(q, margin)| %.3g at step %d (peak) → %.3g at the end",
		peakS, last.spread, last.step, peakC, pts[max(peakAt, 0)].step, math.Abs(last.corr))
	if peakAt <= 0 || peakAt == len(pts)-1 {
		detail += "; the correlation peaks at an end of the run (no rise-then-decay)"
	}
	v := theorems.Compare(math.Max(rs, rc), ConjectureDecay, detail)
	if v.Status == theorems.Holds {
		v.Detail = "supported: " + v.Detail
	} else {
		v.Detail = "not supported: " + v.Detail
	}
	return v
}

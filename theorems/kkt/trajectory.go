package kkt

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Windows splits the records of a trajectory that kept θ
// (train.Config.KeepTheta) into windows: maximal runs of records with
// consecutive step numbers. A run recorded sparsely gives windows of one
// record (pointwise measurements); one recorded in bursts of K consecutive
// steps gives windows of K (see MeasureKKTWindow). Records without θ are
// skipped. With separated set, only records with 𝓛 < ℓ(b_f) (t ≥ t0) are
// kept.
func Windows(tr *train.Trajectory, separated bool) [][]train.Record {
	var out [][]train.Record
	var cur []train.Record
	for _, r := range tr.Records {
		if r.Theta == nil || (separated && !r.Separated) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		if len(cur) > 0 && r.Step != cur[len(cur)-1].Step+1 {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// windowThetas returns the parameter vectors of a window.
func windowThetas(w []train.Record) [][]float64 {
	out := make([][]float64, len(w))
	for i, r := range w {
		out[i] = r.Theta
	}
	return out
}

// measureAll measures every window of tr after t0 (at least two) and
// returns the drift of θ̂ over the second half of the windows.
func measureAll(obj *train.Objective, tr *train.Trajectory, L float64) ([]*KKT, float64, *theorems.Verdict) {
	ws := Windows(tr, true)
	if len(ws) < 2 {
		v := theorems.Undecided("fewer than two recorded windows with θ after t0 (%d): record θ at more steps after the loss falls below ℓ(b_f) (t₀): a few dozen records after separation, e.g. spaced geometrically to the end of the run", len(ws))
		return nil, 0, &v
	}
	out := make([]*KKT, len(ws))
	for i, w := range ws {
		k, err := MeasureKKTWindowSVM(obj, windowThetas(w), L)
		if err != nil {
			v := measureVerdict(fmt.Errorf("window at step %d: %w", w[0].Step, err))
			return nil, 0, &v
		}
		out[i] = k
	}
	return out, secondHalfDrift(ws), nil
}

// peakRatio returns x(last)/max_i x(i) over the measured windows and the
// index of the peak: how far a quantity that should tend to 0 has come down
// from its largest value after t0. Comparing with the peak rather than the
// first window keeps an accidental good alignment at t0 (β can be close to
// 1 at separation and then drop before converging) from reading as growth.
func peakRatio(ks []*KKT, x func(*KKT) float64) (ratio float64, peak int) {
	for i, k := range ks {
		if x(k) > x(ks[peak]) {
			peak = i
		}
	}
	return x(ks[len(ks)-1]) / x(ks[peak]), peak
}

// secondHalfDrift returns the largest angle between θ at the last window
// and θ at the windows of the second half.
func secondHalfDrift(ws [][]train.Record) float64 {
	last := ws[len(ws)-1][0].Theta
	d := 0.0
	for _, w := range ws[len(ws)/2:] {
		d = math.Max(d, numerics.Angle(w[0].Theta, last))
	}
	return d
}

package margins

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/train"
)

// plantedDrop is the smallest decrease of log γ̃ between two consecutive
// records that counts as a violation actually present in a control run. It
// sits far above the rounding of log γ̃ (margins.MarginRounding·(u + log N)
// ≈ 1e-11 for the u ≤ 1e5 of these runs) and far below the drops the
// too-large step produces when it produces one (≥ 1e-3 in the runs seen).
const plantedDrop = 1e-6

// largestDrop returns the largest decrease of the smoothed margin
//
//	log γ̃ = log g(log 1/𝓛) − Σ_i k_i log ‖w_i‖
//
// (LL eq. (3); LL App. G for blocks; with one block θ of degree L unless
// multi) between consecutive records after the first separated one, and
// whether the loss rose back to 𝓛 ≥ ℓ(b_f) there. It is the control runs'
// oracle of whether a too-large step planted a violation at all: a plain
// recomputation from the records' log 𝓛 and θ, sharing nothing with
// margins.MarginMonotone but the loss's g (NaN: records without θ). On a
// few cases (4 in 5 000 LL-G control cases, all deep linear nets in 2-D) γ̃
// grows at every overshooting step, and there is nothing for the check to
// see.
func largestDrop(obj *train.Objective, records []train.Record, multi bool) (drop float64, unseparated bool) {
	mg, ok := losses.MarginOf(obj.Loss)
	if !ok {
		return math.NaN(), false
	}
	deg := obj.Model.Degree()
	blocks := obj.Model.Blocks()
	ks := deg.Blocks
	if !multi {
		ks = []float64{deg.Order}
	}
	logGamma := func(r train.Record) float64 {
		s := math.Log(mg.G(-r.LogLoss))
		if !multi {
			return s - deg.Order*math.Log(floats.Norm(r.Theta, 2))
		}
		for i, b := range blocks {
			s -= ks[i] * math.Log(floats.Norm(r.Theta[b.Offset:b.Offset+b.Len], 2))
		}
		return s
	}
	th := losses.LogThreshold(mg)
	drop = math.Inf(-1)
	prev, started := 0.0, false
	for _, r := range records {
		if len(r.Theta) != obj.Model.NumParams() {
			return math.NaN(), false
		}
		if !started {
			if r.LogLoss < th {
				prev, started = logGamma(r), true
			}
			continue
		}
		if !(r.LogLoss < th) {
			return drop, true
		}
		cur := logGamma(r)
		drop = math.Max(drop, prev-cur)
		prev = cur
	}
	return drop, false
}

// largestHatDrop is largestDrop for LL Thm 4.2's γ̂ under gradient descent
// on the exponential loss: log γ̂ = train.GDMargin's value at (log 𝓛, ρ),
// with t₀ the first record with 𝓛 < 1; a record whose loss rises above
// 𝓛(t₀) leaves γ̂'s domain (reported as unseparated: a violation is there).
// It shares γ̂'s formula with margins.GDMarginMonotone, not its monotonicity
// test or error bounds. NaN: records without θ, or γ̂ not computable.
func largestHatDrop(obj *train.Objective, records []train.Record) (drop float64, above bool) {
	L := obj.Model.Degree().Order
	drop = math.Inf(-1)
	var gm *train.GDMargin
	prev := 0.0
	for _, r := range records {
		if len(r.Theta) != obj.Model.NumParams() {
			return math.NaN(), false
		}
		if gm == nil {
			if r.LogLoss < 0 {
				var err error
				if gm, err = train.NewGDMargin(r.LogLoss, L); err != nil {
					return math.NaN(), false
				}
				prev, _, _ = gm.LogGammaHat(r.LogLoss, floats.Norm(r.Theta, 2))
			}
			continue
		}
		cur, _, err := gm.LogGammaHat(r.LogLoss, floats.Norm(r.Theta, 2))
		if errors.Is(err, train.ErrAboveT0) {
			return drop, true
		}
		if err != nil {
			return math.NaN(), false
		}
		drop = math.Max(drop, prev-cur)
		prev = cur
	}
	return drop, false
}

package train

import (
	"errors"
	"fmt"
)

// ErrNoEvaluation reports a Reweight before any Evaluate.
var ErrNoEvaluation = errors.New("train: Reweight needs a previous Evaluate")

// Reweight sets the sample weights to w (w_n ≥ 0, finite; copied) and
// returns the objective at the θ of the last Evaluate under the new
// weights, without a new forward pass: log 𝓛 = LSE_n(log w_n + log ℓ_n)
// is recomputed from the per-sample log-losses already at hand and, when
// grad is set, the gradient from the stored scores by one backward pass.
// This is how a GRW scheme (ZD §3) weighs the losses at θ_t and steps with
// the result for the price of one evaluation. It does not allocate after
// the first call.
func (o *Objective) Reweight(w []float64, grad bool) (*Eval, error) {
	if !o.cacheOK {
		return nil, ErrNoEvaluation
	}
	if len(w) != o.Data.N {
		return nil, fmt.Errorf("train: %d weights for %d samples", len(w), o.Data.N)
	}
	if err := o.setLogWeights(w); err != nil {
		o.cacheOK = false
		return nil, err
	}
	o.unsummed = false
	o.evaluations++
	ev := &o.ev
	o.sumLosses(ev)
	r := o.regularize(ev, o.lastθ())
	o.cacheGrd = false
	if grad {
		if err := o.gradient(o.lastθ(), ev, r); err != nil {
			o.cacheOK = false
			return nil, err
		}
		o.cacheGrd = true
	}
	return ev, nil
}

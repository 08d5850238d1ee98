package train

import (
	"math"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// WeightSum accumulates the integrated GRW weights between records,
//
//	∫ q dT = Σ_t η_t q^{(t)}   over the steps t since the last Take,
//
// the weights as the scheme set them (Objective.LogWeight: under a
// weight fault, as given, not as applied). The linear direction checks need
// it for schemes whose weights move between records (Group DRO, χ²- and
// CVaR-DRO, schedules): GD's step between two records is
// Σ_n C_n z_n with C_n = Σ_t η_t q_n^{(t)}(−ℓ′(u_n(t))), so C_n lies in
// [∫q_n dT · min slope, ∫q_n dT · max slope] whatever the weights did
// in between (the slopes' extremes over the margins the steps met, which
// theorems/limits/gdstep.go bounds from the coefficients), which the weights
// at the records alone cannot bound (theorems/limits/linearlimit.go). The zero value is ready; Add allocates once,
// on its first call (a sample count that changes reallocates).
type WeightSum struct {
	sum, buf []float64
	// in holds the exponents of the last Add and buf their exponentials:
	// a step of constant size under weights that do not move (GD under a
	// static scheme) adds the same terms, computed once.
	in []float64
	ok bool
}

// Add adds e^{logEta}·q_n^{(t)} for every sample: the step just taken
// with step size e^{logEta} from an objective weighted as obj is.
func (w *WeightSum) Add(logEta float64, obj *Objective) {
	n := obj.Data.N
	if len(w.sum) != n {
		w.sum, w.buf, w.in, w.ok = make([]float64, n), make([]float64, n), make([]float64, n), false
	}
	same := w.ok
	lw := obj.logWeights() // LogWeight's, read once
	for i := range w.in {
		v := logEta + 0
		if lw != nil {
			v = logEta + lw[i]
		}
		same = same && math.Float64bits(v) == math.Float64bits(w.in[i])
		w.in[i] = v
	}
	if !same {
		linalg.Exp(w.buf, w.in) // one batched call per step whose weights moved
		w.ok = true
	}
	for i, e := range w.buf {
		w.sum[i] += e
	}
}

// Take returns a copy of the sum so far (nil when nothing was added since
// the last Take) and restarts it at 0.
func (w *WeightSum) Take() []float64 {
	if w.sum == nil {
		return nil
	}
	out := append([]float64(nil), w.sum...)
	for i := range w.sum {
		w.sum[i] = 0
	}
	return out
}

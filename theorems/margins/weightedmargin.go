package margins

import (
	"math"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Weighted losses in LL's margin lemmas (claims LL-A5, LL-5.1, LL-4.1). For
// 𝓛 = Σ_n w_n ℓ(q_n) the proofs of Lemma A.5, B.4 and 5.1 go through with
// every sample counted w_n times, using e^{−f(q_n)} ≤ 𝓛 for each n, which
// holds when every w_n ≥ 1; then N becomes Σ_n w_n in Lemma A.5 ((a):
// f(q_min) − log Σw ≤ log 1/𝓛 ≤ f(q_min); (b): γ̄ − sup g′·log Σw/ρ^L ≤
// γ̃ ≤ γ̄). Weights below 1 make (a)'s upper side fail (a sum of small
// weights can be below e^{−f(q_min)}): the loss is then to be divided by
// the smallest weight first, which is the same gradient path with the step
// multiplied by it (package check does so for a run's declared weights).

// weightTotal returns Σ_n w_n, the N of LL Lemma A.5 for a weighted loss
// (N itself when unweighted).
func weightTotal(obj *train.Objective) float64 {
	s := 0.0
	for n := 0; n < obj.Data.N; n++ {
		s += math.Exp(obj.LogWeight(n))
	}
	return s
}

// weightsBelowOne returns an assumption-failed verdict when some sample
// weight is in (0, 1): the weighted Lemma A.5 above needs every w_n ≥ 1.
func weightsBelowOne(obj *train.Objective) *theorems.Verdict {
	for n := 0; n < obj.Data.N; n++ {
		if lw := obj.LogWeight(n); lw < 0 && !math.IsInf(lw, -1) {
			v := theorems.Assumption("LL Lemma A.5 for a weighted loss Σ w_n ℓ(q_n) needs every w_n ≥ 1 (sample %d has %.6g): divide the loss by the smallest weight (the same gradient path, the step times that weight)", n+1, math.Exp(lw))
			return &v
		}
	}
	return nil
}

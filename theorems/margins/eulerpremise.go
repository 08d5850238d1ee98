package margins

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
	"github.com/implicitbias/implicitbias/train"
)

// eulerPremise checks the identity every flow inequality of LL §B rests on
// (Thm B.4, Lemma B.1's first step; per block for LL App. G): for a model
// homogeneous of degree k_i in its block w_i and any loss of the scores,
//
//	⟨w_i, ∇_{w_i}𝓛⟩ = k_i·Σ_n w_n ⟨∂ℓ_n/∂s, s_n⟩,
//
// since ⟨w_i, ∇_{w_i} s_nk⟩ = k_i·s_nk (Euler). In log domain both sides are
// divided by 𝓛: the left is ⟨w_i, Dir_i⟩, the right k_i·Σ_n ⟨G_n, s_n⟩ with
// G_n = e^{−(log 𝓛 − log w_n)}∂ℓ_n/∂s (Loss.ScaledGrad). The left comes
// from the engine's backward pass, the right from its forward pass and the
// loss alone: a wrong backward pass or a wrong declared degree breaks it.
// Tolerance RadialBound (1e-10) relative to the larger of ‖w_i‖‖Dir_i‖ and
// k_i·Σ|terms|, as LL-B4 (rounding ≈ 4e-14). It returns nil when the
// identity holds, or the violated verdict.
func eulerPremise(obj *train.Objective, theta []float64, ev *train.Eval, blocks []models.Block, ks []float64) *theorems.Verdict {
	k := obj.Model.Out()
	g := make([]float64, k)
	sum, sumAbs := 0.0, 0.0
	for n := 0; n < obj.Data.N; n++ {
		s := ev.Scores[n*k : (n+1)*k]
		obj.Loss.ScaledGrad(g, s, obj.Data.Y[n], ev.LogLoss-obj.LogWeight(n))
		for j := range g {
			sum += g[j] * s[j]
			sumAbs += math.Abs(g[j] * s[j])
		}
	}
	for i, b := range blocks {
		w := theta[b.Offset : b.Offset+b.Len]
		d := ev.Dir[b.Offset : b.Offset+b.Len]
		lhs, rhs := floats.Dot(w, d), ks[i]*sum
		scale := math.Max(floats.Norm(w, 2)*floats.Norm(d, 2), math.Abs(ks[i])*sumAbs)
		if scale == 0 {
			continue
		}
		if e := math.Abs(lhs-rhs) / scale; !(e <= homogeneity.RadialBound) {
			v := theorems.Verdict{Status: theorems.Violated, Statistic: e, Bound: homogeneity.RadialBound, Detail: fmt.Sprintf(
				"the premise of the flow inequality (LL Thm B.4, Euler per block) fails in block %q: ⟨w, ∇𝓛⟩/𝓛 = %.17g but k·Σ_n⟨∂ℓ_n/∂s, s_n⟩/𝓛 = %.17g (k = %g): the engine's gradient or its degree is wrong",
				b.Name, lhs, rhs, ks[i])}
			return &v
		}
	}
	return nil
}

package homogeneity

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// RadialBound is LL-B4's relative error bound: both sides are sums of N terms
// computed through one forward and backward pass (relative rounding
// ≈ H·W·ε ≈ 4e-14, see EulerBound), compared relative to the larger of
// ‖θ‖‖∇𝓛‖ and L·Σ|terms of ν|.
const RadialBound = 1e-10

// RadialIdentity checks LL-B4 (Thm B.4, Cor E.6): for a binary margin loss
// ℓ = e^{−f} and an L-homogeneous model,
//
//	⟨θ, −∇𝓛(θ)⟩ = L·ν(θ),  ν = Σ_n w_n e^{−f(q_n)} f′(q_n) q_n.
//
// Both sides are divided by 𝓛 (log domain): −⟨θ, Dir⟩ = L Σ_n p_n f′(q_n) q_n
// with p_n = w_n ℓ_n/𝓛. degree is the declared L (0: derive it).
func RadialIdentity(obj *train.Objective, theta []float64, degree float64) theorems.Verdict {
	if obj.Reg != nil {
		return theorems.Assumption("LL-B4 is stated for the unregularized loss; the objective has a regularizer")
	}
	m, ok := losses.MarginOf(obj.Loss)
	if !ok || obj.Loss.Kind() != losses.Binary {
		return theorems.Assumption("LL-B4 needs a binary margin loss ℓ = e^{−f}, got %s", obj.Loss.Name())
	}
	L := degree
	if L == 0 {
		d := obj.Model.Degree()
		if !d.Homogeneous {
			return theorems.Assumption("(A2) homogeneity: model %s is %s", obj.Model, d)
		}
		L = d.Order
	}
	ev, err := obj.Evaluate(theta, true)
	if err != nil {
		return theorems.Invalid(err)
	}
	lhs := -floats.Dot(theta, ev.Dir)
	var nu, nuAbs float64
	for n, q := range ev.Margins {
		p := math.Exp(obj.LogWeight(n) + ev.LogSample[n] - ev.LogLoss)
		t := p * m.FPrime(q) * q
		nu += t
		nuAbs += math.Abs(t)
	}
	rhs := L * nu
	scale := math.Max(floats.Norm(theta, 2)*floats.Norm(ev.Dir, 2), L*nuAbs)
	if scale == 0 {
		return theorems.Undecided("degenerate point: ∇𝓛 = 0 and ν = 0")
	}
	e := math.Abs(lhs-rhs) / scale
	return theorems.Compare(e, RadialBound, fmt.Sprintf("⟨θ,−∇𝓛⟩/𝓛 = %.17g, L·ν/𝓛 = %.17g (L = %g, loss %s, log 𝓛 = %.6g)", lhs, rhs, L, obj.Loss.Name(), ev.LogLoss))
}

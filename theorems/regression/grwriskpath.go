package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
)

// The computed rate along the risk trace (ZD-T2).
//
// The rate bound of grwrate.go holds at every step, not only at T:
// ‖e_t‖ ≤ B_t + R_t ≤ P = max_{t≤T}(B_t + R_t), e_t = P_span(θ_t − θ*).
// Each recorded risk is a lower bound on ‖e_t‖: R̂_t = ‖Xθ_t − y‖²/(2n)
// (Risk: unweighted, 1/(2n)), Xθ* = y and X is 0 off span{x_i}, so
// Xθ_t − y = X e_t and, σ_max² = λ_max(XXᵀ) = λ_max(XᵀX),
//
//	‖e_t‖ ≥ ‖X e_t‖/σ_max = √(2n·R̂_t/λ_max).
//
// A run with √(2n·R̂_t/λ_max) > P at some recorded t is not GD on the
// weights the scheme wrote: violated. This decides a run whose risk
// oscillates without settling (the loss factor dropped under Group DRO:
// a sawtooth whose peaks no run length rules out), which the end point
// alone leaves within the rate. P is a maximum over all T steps, so the
// test needs no step index of the records; it is looser than the bound at
// the record's own step, never tighter.
//
// Rounding: λ_max is widened by rateSlack (as in rateBound). R̂_t is
// computed from θ_t in floating point: each residual ⟨x_i, θ_t⟩ − y_i to
// (d + 1)ε(‖x_i‖‖θ_t‖ + |y_i|), so ‖r̃ − r‖ ≤ (d + 1)ε(‖X‖_F‖θ_t‖ + ‖y‖)
// ≤ (d + 1)ε·σ_max(√n(‖θ*‖ + P) + ‖y‖/σ_max) (‖X‖_F ≤ √n·σ_max,
// ‖θ_t‖ ≤ ‖θ*‖ + ‖e_t‖ up to ZD-span's rounding); the sum of squares, the
// division and the square root add (n + 3)ε relatively. The bound is
// P(1 + γ) + γ(√n(‖θ*‖ + P) + ‖y‖/σ_max), γ = 2(d + n + 4)ε, the factor 2
// covering the span rounding and the cross terms. A correct engine stays
// below it (false-alarm rate 0 up to this rounding model).

// riskPathVerdict decides the recorded risks against the computed rate at
// every step: violated when some √(2n·R̂_t/λ_max) is above P plus rounding
// (statistic the largest such lower bound, bound P plus rounding); decided
// false otherwise, with the two numbers in v.
func (r *regression) riskPathVerdict(risks []float64, rate GRWRate) (v theorems.Verdict, decided bool) {
	_, _, peak, err := r.rateBound(rate)
	if err != nil {
		return theorems.Invalid(err), true
	}
	lmax := r.span.SMax * r.span.SMax * (1 + rateSlack)
	n := float64(r.N)
	gamma := 2 * float64(r.D+r.N+4) * 0x1p-53
	bound := peak*(1+gamma) + gamma*(math.Sqrt(n)*(floats.Norm(r.star, 2)+peak)+floats.Norm(r.Y, 2)/r.span.SMax)
	worst, at := 0.0, 0
	for j, risk := range risks {
		lower := math.Sqrt(2 * n * risk / lmax)
		if lower > worst || math.IsNaN(lower) {
			worst, at = lower, j
			if math.IsNaN(lower) {
				break
			}
		}
	}
	if worst > bound || math.IsNaN(worst) {
		return theorems.Compare(worst, bound, fmt.Sprintf("recorded risk %d of %d gives ‖P_span(θ_t − θ*)‖ ≥ √(2n·R̂_t/λ_max) = %.3g, above the most the computed rate allows at any of the %d steps, %.3g: the iterates are not GD on the weights the scheme wrote (ZD eqs. 29, 31)", at, len(risks), worst, len(rate.QMin), bound)), true
	}
	return theorems.Verdict{Statistic: worst, Bound: bound}, false
}

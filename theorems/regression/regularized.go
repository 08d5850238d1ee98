package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
)

// Bounds of ZD-T6lin.
const (
	// RegularizedLimitBound is the acceptance bound on ‖θ_T − θ_μ‖/‖θ_μ‖
	// between the limit of GD on the L2-regularized static GRW objective and
	// the closed form θ_μ = θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀), computed by
	// Cholesky with relative error κ·ε ≤ 1e-12 for the generated cases
	// (κ ≤ (‖X‖² + μ)/μ ≤ 1e4). Same bound as ZD-T1's.
	RegularizedLimitBound = InterpolatorBound
	// StationaryShare: the run has reached its limit (as far as the bound
	// can see) when its last recorded move ‖θ_T − θ_{T−k}‖ is below this
	// share of RegularizedLimitBound·‖θ_T‖. GD on a strongly convex
	// quadratic contracts linearly, so once r^k ≤ ½ the remaining distance
	// to the limit is at most the last move.
	StationaryShare = 0.01
	// gapRounding is the relative slack of Lemma 18's inequality
	// gap² ≤ 2nε/σ²_min, an exact inequality whose two sides are computed
	// from θ_μ, θ* and the SVD with relative errors ≤ 1e-12.
	gapRounding = 1e-9
)

// RegularizedRun is the end of one L2-regularized GRW run with strength μ
// after Steps steps: the last two recorded iterates (Prev some steps before
// Theta; nil when the run was stopped by its budget while still moving).
type RegularizedRun struct {
	Mu          float64
	Theta, Prev []float64
	Steps       int
}

// RegularizedGap checks ZD-T6lin, Thm 6 for a linear model (ZD §4.3 and
// Lemma 18): static GRW with weights q (q_i ≥ 0, Σq = 1) on
//
//	Σ_i q_i ½(⟨θ, x_i⟩ − y_i)² + (μ/2)‖θ − θ₀‖²
//
// converges to θ_μ = θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀), which depends on Q,
// and if its ERM training risk ε_μ = R̂(θ_μ) stays below ε (ZD eq. 14),
// its distance to the ERM interpolator θ* is O(√ε): since θ_μ − θ* lies in
// span{x_i}, Lemma 18 (eq. 119) gives
//
//	‖θ_μ − θ*‖² ≤ 2n·ε_μ/σ²_min(X),  i.e.  gap²/ε_μ ≤ 2n/σ²_min(X)
//
// for every μ. For each run the check verifies that θ_T − θ₀ stayed in
// span{x_i} (as ZD-span, violated otherwise), compares the GD limit with
// the closed form (RegularizedLimitBound; a run that has not stopped
// moving is inconclusive), tests the hypothesis ε_μ < eps (assumption-failed
// otherwise: large μ buys a big training risk) and reports the statistic
// max_μ gap²σ²_min/(2n ε_μ) against 1. The Detail also reports how far
// θ_μ moved with Q: ‖θ_μ(Q) − θ_μ(1/n)‖.
func RegularizedGap(c RegressionCase, q []float64, eps float64, runs []RegularizedRun) theorems.Verdict {
	r, v := c.prepare()
	if v != nil {
		return *v
	}
	if len(q) != c.N || len(runs) == 0 || !(eps > 0) {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-T6lin needs n weights, a risk budget ε > 0 and at least one run"))
	}
	nstar := floats.Norm(r.star, 2)
	uniform := make([]float64, c.N)
	for i := range uniform {
		uniform[i] = 1 / float64(c.N)
	}
	worst := 0.0
	detail := ""
	for _, run := range runs {
		if len(run.Theta) != c.D || (run.Prev != nil && len(run.Prev) != c.D) {
			return theorems.Invalid(fmt.Errorf("theorems: run with μ = %g has θ of %d entries, want %d", run.Mu, len(run.Theta), c.D))
		}
		closed, err := numerics.RegularizedInterpolator(c.X, c.N, c.D, c.Y, r.theta0, q, run.Mu)
		if err != nil {
			return theorems.Invalid(err)
		}
		// Lemma 18's first step: θ_t − θ₀ stays in span{x_i} under the
		// regularized update too (every term of the gradient is in it).
		// A run that left the span cannot converge to θ_μ, which is in it.
		diff := make([]float64, c.D)
		floats.SubTo(diff, run.Theta, r.theta0)
		perp := r.span.Orthogonal(diff, diff) / math.Max(floats.Norm(run.Theta, 2), floats.Norm(r.theta0, 2))
		if bound := SpanRoundingPerStep * float64(max(run.Steps, 1)); perp > bound {
			return theorems.Compare(perp, bound, fmt.Sprintf("μ = %g: the run left θ₀ + span{x_i}: ‖P⊥(θ_T − θ₀)‖ = %.3g relative after %d steps, so it cannot reach θ_μ", run.Mu, perp, run.Steps))
		}
		if run.Prev == nil {
			return theorems.Undecided("μ = %g: GD still moving when the budget ran out after %d steps", run.Mu, run.Steps)
		}
		move := floats.Distance(run.Theta, run.Prev, 2) / floats.Norm(run.Theta, 2)
		if move > StationaryShare*RegularizedLimitBound {
			return theorems.Undecided("μ = %g: GD still moving when the budget ran out (last move %.3g relative)", run.Mu, move)
		}
		if d := relDist(run.Theta, closed); d > RegularizedLimitBound {
			return theorems.Compare(d, RegularizedLimitBound, fmt.Sprintf("μ = %g: GD limit is %.3g (relative) from the closed form θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀)", run.Mu, d))
		}
		risk := c.Risk(closed)
		gap := floats.Distance(closed, r.star, 2)
		if risk >= eps {
			// Statistic: the gap; Bound: the largest gap Lemma 18 allows at
			// risk ε, √(2nε)/σ_min.
			v := theorems.Assumption("(14) training risk below ε fails: μ = %g gives R̂ = %.3g ≥ ε = %.3g, and the gap to the ERM interpolator is %.3g of ‖θ*‖", run.Mu, risk, eps, gap/nstar)
			v.Statistic, v.Bound = gap, math.Sqrt(2*float64(c.N)*eps)/r.span.SMin
			return v
		}
		erm, err := numerics.RegularizedInterpolator(c.X, c.N, c.D, c.Y, r.theta0, uniform, run.Mu)
		if err != nil {
			return theorems.Invalid(err)
		}
		stat := 0.0
		if risk > 0 {
			stat = gap * gap * r.span.SMin * r.span.SMin / (2 * float64(c.N) * risk)
		} else if gap > 0 {
			stat = math.Inf(1)
		}
		if detail == "" || stat > worst || math.IsNaN(stat) {
			worst = stat
			detail = fmt.Sprintf("μ = %g: gap ‖θ_μ − θ*‖ = %.3g, R̂(θ_μ) = %.3g, gap²σ²_min/(2nR̂) = %.4g; ‖θ_μ(Q) − θ_μ(ERM)‖ = %.3g",
				run.Mu, gap, risk, stat, floats.Distance(closed, erm, 2))
		}
	}
	return theorems.Compare(worst, 1+gapRounding, detail)
}

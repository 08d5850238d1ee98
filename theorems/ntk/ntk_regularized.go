package ntk

import (
	"errors"
	"fmt"
	"github.com/implicitbias/implicitbias/theorems"
	"math"
	"sort"
	"strings"
)

// RegRun is one (width, seed, μ) of a ZD-T6 sweep: a network trained from
// θ₀ by a GRW (Assumption 1 schedule) on the squared loss plus
// (μ/2)‖θ − θ₀‖² (ZD eq. 13), its linearization trained the same way, and
// the same network trained by unregularized ERM to interpolation.
type RegRun struct {
	Width int
	Seed  uint64
	// C labels μ's place in the grid (μ = C·q_min·λ_min(Θ^{(0)}), so μ itself
	// varies with the initialization); runs with the same C are fitted
	// together.
	C, Mu float64
	// LastLayerNorm, GramMin, GramMax, TestDiag and N as in GapRun.
	LastLayerNorm, GramMin, GramMax, TestDiag float64
	N                                         int
	// Risk is the ERM training risk (1/n)Σ½(f_reg(x_i) − y_i)² at the end
	// (the ε of eq. 14); LinRisk that of the linearized run.
	Risk, LinRisk float64
	// RegGap is max_x |f_reg(x) − f_ERM(x)| at the end (eq. 15).
	RegGap float64
	// LinRegGap is max_x |f_linreg(x) − f*(x)| at the end, f* the kernel
	// interpolator, the limit of linearized ERM (ZD Lemma 18).
	LinRegGap float64
	// ApproxGap is sup_t max_x |f_reg^{(t)}(x) − f_linreg^{(t)}(x)| (ZD
	// Lemma 16); ERMGap is max_x |f_ERM(x) − f*(x)| at the end of the ERM
	// run (Lemma 5 at t → ∞).
	ApproxGap, ERMGap float64
	// Drift bounds how far f_reg may still move on the test points after
	// the run: the last window's movement m₂ extrapolated geometrically
	// with the ratio ρ = m₂/m₁ to the window before, m₂ρ/(1 − ρ) (+Inf
	// when ρ ≥ 1).
	Drift float64
	// Converged reports that the ERM run interpolated (risk 1e-20).
	Converged bool
	// LinPath compares the regularized linearized run with GD on eq. (11)
	// + (μ/2)‖θ − θ₀‖² computed in function space; its Effect is the
	// distance of that path to the uniform weights' (the regularized
	// limit (QΘ + μI)⁻¹Q(y − f⁰) depends on the limit weights Q).
	LinPath LinPath
}

// DriftShare: a regularized run counts as at its limit when its estimated
// remaining drift is below this share of the smallest gap it enters
// (ApproxGap and RegGap); otherwise the limsup cannot be read off
// (inconclusive).
const DriftShare = 0.1

// RegularizedWidthGap checks ZD-T6 (Thm 6, App. D.4) on a sweep over
// widths and a grid of μ, with the risk budget eps of hypothesis (14). The
// proof's three steps are checked separately:
//
//   - The linearized runs are GD on eq. (11) + (μ/2)‖θ − θ₀‖² with their
//     weights: each must follow that GD computed in function space
//     (LinPath; an engine that ignored the weights or centred the
//     regularizer wrongly is violated there), and the weights must move it
//     visibly from the uniform weights' path.
//   - Lemma 18 (the linearized networks, exact): every linearized run ends
//     within LimitBound(·, its risk) of the kernel interpolator f*, the
//     limit of linearized ERM: |f_linreg − f*| ≤ ‖∇f^{(0)}(x)‖√(2nR̂/λ_min),
//     the O(√ε) of eq. (15). Farther is violated.
//   - Lemma 16 and Lemma 5 (approximation): sup_t |f_reg − f_linreg| (for
//     each μ of the grid) and |f_ERM − f*| fall with the width at least
//     like d̃^{−1/4}: the slopes are decided as in NTKApproximation.
//   - Hypothesis (14): a run whose network's risk is ≥ eps does not meet
//     it (assumption-failed); the verdict then compares its gap
//     |f_reg − f_ERM| with the largest gap Lemma 18 allows at risk eps
//     (Statistic, Bound): large μ buys a large risk and a large gap.
//
// The Detail tabulates |f_reg − f_ERM| against d̃^{−1/4} + √R̂ by μ.
func RegularizedWidthGap(runs []RegRun, eps float64) theorems.Verdict {
	return regularizedWidthGap(runs, eps, false)
}

// regularizedWidthGap is RegularizedWidthGap; a probe (one job,
// ProbeRegularized) skips the width requirement and stops before the fits.
func regularizedWidthGap(runs []RegRun, eps float64, probe bool) theorems.Verdict {
	if !(eps > 0) {
		return theorems.Invalid(errors.New("theorems: ZD-T6 needs a risk budget ε > 0"))
	}
	var widths []int
	for _, r := range runs {
		widths = append(widths, r.Width)
		if r.N < 1 {
			return theorems.Invalid(fmt.Errorf("theorems: width %d seed %d: no training samples", r.Width, r.Seed))
		}
		for _, v := range []float64{r.Mu, r.C, r.LastLayerNorm, r.GramMin, r.GramMax, r.TestDiag, r.Risk, r.LinRisk, r.RegGap, r.LinRegGap, r.ApproxGap, r.ERMGap, r.LinPath.Err, r.LinPath.Effect} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return theorems.Invalid(fmt.Errorf("theorems: width %d seed %d μ %g: a measurement is %v", r.Width, r.Seed, r.Mu, v))
			}
		}
	}
	if ws := distinctWidths(widths); len(ws) < MinWidths && !probe {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-T6 needs ≥ %d widths, got %v", MinWidths, ws))
	}
	for _, r := range runs {
		if r.LastLayerNorm != 0 {
			return theorems.Assumption("ZD eq. (9) W^L(0) = 0 fails (width %d seed %d: ‖W^L(0)‖ = %.3g)", r.Width, r.Seed, r.LastLayerNorm)
		}
		if !(r.GramMin > GramRankTol*r.GramMax) {
			return theorems.Assumption("λ_min(Θ^{(0)}) > 0 fails (width %d seed %d: eigenvalues %.3g … %.3g)", r.Width, r.Seed, r.GramMin, r.GramMax)
		}
	}
	for _, r := range runs {
		if v, ok := linPathVerdict(fmt.Sprintf("width %d seed %d μ = %.3g", r.Width, r.Seed, r.Mu), r.LinPath); ok {
			return v
		}
	}
	for _, r := range runs {
		if r.Risk >= eps {
			if probe {
				// (14) is read after every job's path test: one job's
				// risk does not decide the sweep.
				return probeUndecided
			}
			v := theorems.Assumption("(14) training risk below ε fails: μ = %.3g (width %d seed %d) leaves R̂ = %.3g ≥ ε = %.3g, and |f_reg − f_ERM| reaches %.3g",
				r.Mu, r.Width, r.Seed, r.Risk, eps, r.RegGap)
			v.Statistic, v.Bound = r.RegGap, LimitBound(r.TestDiag, eps, r.GramMin, r.N)
			return v
		}
	}
	for _, r := range runs {
		if b := LimitBound(r.TestDiag, r.LinRisk, r.GramMin, r.N) + limitRounding; r.LinRegGap > b {
			return theorems.Verdict{Status: theorems.Violated, Statistic: r.LinRegGap, Bound: b,
				Detail: fmt.Sprintf("ZD Lemma 18: width %d seed %d μ = %.3g: the regularized linearized run ends %.3g from f*, more than ‖∇f^{(0)}(x)‖√(2nR̂/λ_min) = %.3g at its risk %.3g", r.Width, r.Seed, r.Mu, r.LinRegGap, b, r.LinRisk)}
		}
	}
	if probe {
		return probeUndecided
	}
	// Fits: Lemma 16 per μ of the grid, Lemma 5 once per (width, seed).
	byC := map[float64][]RegRun{}
	var cs []float64
	for _, r := range runs {
		if _, ok := byC[r.C]; !ok {
			cs = append(cs, r.C)
		}
		byC[r.C] = append(byC[r.C], r)
	}
	sort.Float64s(cs)
	type named struct {
		name string
		fit  LogLogFit
	}
	var fits []named
	var ex, ey []float64
	for _, r := range byC[cs[0]] {
		ex, ey = append(ex, float64(r.Width)), append(ey, r.ERMGap)
	}
	f, err := FitLogLog(ex, ey, nil)
	if err != nil {
		return theorems.Undecided("cannot fit |f_ERM − f*|: %v", err)
	}
	fits = append(fits, named{"|f_ERM − f*| (Lemma 5)", f})
	for _, c := range cs {
		var x, y []float64
		for _, r := range byC[c] {
			x, y = append(x, float64(r.Width)), append(y, r.ApproxGap)
		}
		f, err := FitLogLog(x, y, nil)
		if err != nil {
			return theorems.Undecided("cannot fit sup|f_reg − f_linreg| for μ = %g·q_min λ_min: %v", c, err)
		}
		fits = append(fits, named{fmt.Sprintf("sup_t|f_reg − f_linreg| at μ = %g·q_min λ_min (Lemma 16)", c), f})
	}
	var parts []string
	for _, nf := range fits {
		parts = append(parts, fmt.Sprintf("%s: slope %s", nf.name, nf.fit))
	}
	detail := strings.Join(parts, "; ") + "; " + regTable(byC, cs)
	for _, r := range runs {
		if !r.Converged {
			return theorems.Undecided("width %d seed %d: the ERM run did not interpolate within its budget; %s", r.Width, r.Seed, detail)
		}
		if !(r.Drift <= DriftShare*math.Min(r.ApproxGap, r.RegGap)) {
			return theorems.Undecided("width %d seed %d μ = %.3g: f_reg may still move by %.3g, more than %.2g of its gaps; %s", r.Width, r.Seed, r.Mu, r.Drift, DriftShare, detail)
		}
	}
	worst := math.Inf(-1)
	for _, nf := range fits {
		if lo := nf.fit.Slope - nf.fit.HalfWidth(); lo > ApproximationExponent {
			return theorems.Verdict{Status: theorems.Violated, Statistic: lo, Bound: ApproximationExponent, Detail: nf.name + " does not fall like d̃^{−1/4}: " + detail}
		}
		worst = math.Max(worst, nf.fit.Slope+nf.fit.HalfWidth())
	}
	if worst > ApproximationExponent {
		return theorems.Undecided("a slope's confidence interval reaches above −1/4 (upper bound %.3f); %s", worst, detail)
	}
	return theorems.Verdict{Status: theorems.Holds, Statistic: worst, Bound: ApproximationExponent, Detail: detail}
}

// regTable lists, by μ and width, the geometric means of |f_reg − f_ERM|
// and of d̃^{−1/4} + √R̂.
func regTable(byC map[float64][]RegRun, cs []float64) string {
	var parts []string
	for _, c := range cs {
		by := map[int][]RegRun{}
		var widths []int
		for _, r := range byC[c] {
			by[r.Width] = append(by[r.Width], r)
			widths = append(widths, r.Width)
		}
		var cells []string
		for _, w := range distinctWidths(widths) {
			var lg, lb float64
			for _, r := range by[w] {
				lg += math.Log(r.RegGap)
				lb += math.Log(math.Pow(float64(w), ApproximationExponent) + math.Sqrt(r.Risk))
			}
			k := float64(len(by[w]))
			cells = append(cells, fmt.Sprintf("%d: %.3g/%.3g", w, math.Exp(lg/k), math.Exp(lb/k)))
		}
		parts = append(parts, fmt.Sprintf("μ = %g·q_min λ_min: %s", c, strings.Join(cells, ", ")))
	}
	return "|f_reg − f_ERM| / (d̃^{−1/4} + √R̂) by width, " + strings.Join(parts, "; ")
}

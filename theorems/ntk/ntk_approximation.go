package ntk

import (
	"fmt"
	"github.com/implicitbias/implicitbias/theorems"
	"math"
	"strings"
)

// GapRun is one (width, seed) of a ZD-T4/L5 sweep: a network of the given
// width trained from one initialization θ₀ by a GRW satisfying Assumption 1
// and by ERM, with the squared loss, and the linearization of each (ZD
// eq. 11) trained by the same weights, all by GD with the same step.
type GapRun struct {
	Width int
	Seed  uint64
	// LastLayerNorm is ‖W^L(θ₀)‖: ZD eq. (9) initializes it to 0.
	LastLayerNorm float64
	// GramMin and GramMax are the extreme eigenvalues of Θ^{(0)}(X, X).
	GramMin, GramMax float64
	// Converged reports that all four runs reached the stopping risk.
	Converged bool
	// LinGap is sup_t max_x |f_lin^{(t)}(x) − f^{(t)}(x)| over the test
	// points and the recorded steps, the larger of the GRW and ERM pairs
	// (ZD Lemma 5).
	LinGap float64
	// GRWGap is max_x |f_GRW^{(∞)}(x) − f_ERM^{(∞)}(x)| at the end of the
	// converged runs (ZD Thm 4, eq. 10).
	GRWGap float64
	// LinLimitGap is max_x |f_lin^{(∞)}(x) − f*(x)| over the two linearized
	// runs, with f*(x) = f^{(0)}(x) + Θ^{(0)}(x, X)Θ^{(0)}(X, X)⁻¹(y −
	// f^{(0)}(X)) the kernel interpolator every GRW reaches (ZD Cor. 15),
	// LinRisk the larger final ERM training risk (1/n)Σ½(f_lin(x_i) − y_i)²
	// of the two, TestDiag max_x Θ^{(0)}(x, x) over the test points and N
	// the number of training samples.
	LinLimitGap, LinRisk, TestDiag float64
	N                              int
	// LinPath compares the two linearized runs with GD on eq. (11)
	// computed in function space, and measures the weights' effect on it
	// (the A1 schedule against ERM).
	LinPath LinPath
}

// Tolerances of ZD-T4/L5.
const (
	// GramRankTol: Θ^{(0)}(X, X) counts as singular (λ_min > 0 fails) when
	// λ_min ≤ GramRankTol·λ_max, a few thousand ulps (the eigensolver's
	// rounding is about n·ε·λ_max).
	GramRankTol = 1e-12
	// limitRounding is the absolute slack of Cor. 15's bound: f* and f_lin
	// are computed to about κ(Θ^{(0)})·ε·|f| ≲ 1e-13 for the generated
	// problems (κ ≲ 10³, |f| ≲ 10).
	limitRounding = 1e-12
)

// LimitBound is ZD Lemma 18's bound on the distance of a linearized run to
// the interpolator, |f_lin(x; θ) − f*(x)| = |⟨θ − θ*, ∇f^{(0)}(x)⟩| ≤
// ‖∇f^{(0)}(x)‖·√(2n·R̂(θ)/λ_min(Θ^{(0)})), valid for every θ with θ − θ₀ in
// span{∇f^{(0)}(x_i)} (GD on the linearized network stays there).
func LimitBound(testDiag, risk, gramMin float64, n int) float64 {
	return math.Sqrt(testDiag) * math.Sqrt(2*float64(n)*risk/gramMin)
}

// gapSlopes fits log LinGap and log GRWGap against log width over all
// runs (one point per run: seeds are independent replicates, and the
// residual spread across seeds gives the slopes' standard errors).
func gapSlopes(runs []GapRun) (lin, grw LogLogFit, err error) {
	var x, yl, yg []float64
	for _, r := range runs {
		x = append(x, float64(r.Width))
		yl = append(yl, r.LinGap)
		yg = append(yg, r.GRWGap)
	}
	if lin, err = FitLogLog(x, yl, nil); err != nil {
		return
	}
	grw, err = FitLogLog(x, yg, nil)
	return
}

// NTKApproximation checks ZD-T4/L5 on a width sweep. Lemma 5 bounds
// sup_t |f_lin^{(t)}(x) − f^{(t)}(x)| and Thm 4 (eq. 10) bounds
// limsup_t |f_GRW^{(t)}(x) − f_ERM^{(t)}(x)| by C·d̃^{−1/4} on the unit
// ball; the check fits both against the width in log-log and decides on the
// one-sided confidence bound of each slope (LogLogFit.HalfWidth, from the
// spread across seeds): the claim holds when slope + half-width ≤ −1/4 for
// both, is violated when slope − half-width > −1/4 for either, and is
// inconclusive in between. The statistic is the larger upper confidence
// bound, the bound −1/4.
//
// Hypotheses: W^L(θ₀) = 0 (eq. 9; the Gaussian last layer of Jacot et al.,
// for which ZD App. E shows Lee et al.'s proof fails, is assumption-failed,
// and the Detail reports the slopes measured anyway), λ_min(Θ^{(0)}) > 0.
// Runs that did not converge are inconclusive. The linearized runs must
// follow GD on eq. (11) with their weights (LinPath: an engine whose GRW
// runs are ERM's makes every GRW–ERM gap vanish, and is violated there), and
// end at the common interpolator f* (Cor. 15, the step from Lemma 5 to
// Thm 4): farther from it than LimitBound allows at their final risk is
// violated.
func NTKApproximation(runs []GapRun) theorems.Verdict { return ntkApproximation(runs, false) }

// ntkApproximation is NTKApproximation; a probe (one job, ProbeApproximation)
// skips the width requirement and stops before the fits.
func ntkApproximation(runs []GapRun, probe bool) theorems.Verdict {
	var widths []int
	for _, r := range runs {
		widths = append(widths, r.Width)
	}
	if ws := distinctWidths(widths); len(ws) < MinWidths && !probe {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-T4/L5 needs ≥ %d widths, got %v", MinWidths, ws))
	}
	for _, r := range runs {
		if r.N < 1 {
			return theorems.Invalid(fmt.Errorf("theorems: width %d seed %d: no training samples", r.Width, r.Seed))
		}
		for _, v := range []float64{r.LinGap, r.GRWGap, r.LinLimitGap, r.LinRisk, r.TestDiag, r.GramMin, r.GramMax, r.LastLayerNorm, r.LinPath.Err, r.LinPath.Effect} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return theorems.Invalid(fmt.Errorf("theorems: width %d seed %d: a measurement is %v", r.Width, r.Seed, v))
			}
		}
	}
	lin, grw, err := gapSlopes(runs)
	measured := ""
	if err == nil {
		measured = fmt.Sprintf("slope of sup_t|f_lin − f| = %s, of limsup|f_GRW − f_ERM| = %s, against −1/4", lin, grw)
	}
	for _, r := range runs {
		if r.LastLayerNorm != 0 {
			return theorems.Assumption("ZD eq. (9) W^L(0) = 0 fails (width %d seed %d: ‖W^L(0)‖ = %.3g, a Gaussian last layer); measured anyway: %s", r.Width, r.Seed, r.LastLayerNorm, measured)
		}
		if !(r.GramMin > GramRankTol*r.GramMax) {
			return theorems.Assumption("λ_min(Θ^{(0)}) > 0 fails (width %d seed %d: eigenvalues %.3g … %.3g)", r.Width, r.Seed, r.GramMin, r.GramMax)
		}
	}
	for _, r := range runs {
		if v, ok := linPathVerdict(fmt.Sprintf("width %d seed %d", r.Width, r.Seed), r.LinPath); ok {
			v.Detail += "; " + measured
			return v
		}
	}
	if probe {
		return probeUndecided
	}
	if err != nil {
		// Gaps of exactly 0 (or a degenerate sweep): nothing to fit.
		return theorems.Undecided("cannot fit the gaps: %v", err)
	}
	for _, r := range runs {
		if !r.Converged {
			return theorems.Undecided("width %d seed %d: a run did not reach the stopping risk within its budget; %s", r.Width, r.Seed, measured)
		}
		if b := LimitBound(r.TestDiag, r.LinRisk, r.GramMin, r.N) + limitRounding; r.LinLimitGap > b {
			return theorems.Verdict{Status: theorems.Violated, Statistic: r.LinLimitGap, Bound: b,
				Detail: fmt.Sprintf("ZD Cor. 15: width %d seed %d: a linearized run ends %.3g from the kernel interpolator f*, more than Lemma 18 allows at its risk %.3g; %s", r.Width, r.Seed, r.LinLimitGap, r.LinRisk, measured)}
		}
	}
	upLin, upGRW := lin.Slope+lin.HalfWidth(), grw.Slope+grw.HalfWidth()
	detail := measured + "; " + gapTable(runs)
	if lin.Slope-lin.HalfWidth() > ApproximationExponent || grw.Slope-grw.HalfWidth() > ApproximationExponent {
		return theorems.Verdict{Status: theorems.Violated, Statistic: math.Max(lin.Slope-lin.HalfWidth(), grw.Slope-grw.HalfWidth()), Bound: ApproximationExponent,
			Detail: "the gaps do not fall like d̃^{−1/4}: " + detail}
	}
	stat := math.Max(upLin, upGRW)
	if stat > ApproximationExponent {
		return theorems.Undecided("the confidence intervals of the slopes reach above −1/4 (upper bounds %.3f, %.3f): more seeds or widths needed; %s", upLin, upGRW, detail)
	}
	return theorems.Verdict{Status: theorems.Holds, Statistic: stat, Bound: ApproximationExponent, Detail: detail}
}

// gapTable lists the geometric means of the gaps by width.
func gapTable(runs []GapRun) string {
	by := map[int][]GapRun{}
	var widths []int
	for _, r := range runs {
		by[r.Width] = append(by[r.Width], r)
		widths = append(widths, r.Width)
	}
	var parts []string
	for _, w := range distinctWidths(widths) {
		var ll, lg float64
		for _, r := range by[w] {
			ll += math.Log(r.LinGap)
			lg += math.Log(r.GRWGap)
		}
		k := float64(len(by[w]))
		parts = append(parts, fmt.Sprintf("%d: %.3g/%.3g", w, math.Exp(ll/k), math.Exp(lg/k)))
	}
	return "geometric means of sup|f_lin − f| / |f_GRW − f_ERM| by width " + strings.Join(parts, ", ")
}

package theorems

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/implicitbias/implicitbias/numerics"
)

// Section F of the catalog: wide networks in the NTK regime (ZD §4.2, §4.3,
// §5.2, App. D.3, D.4, D.6, E). The claims are asymptotic in the width d̃:
// the checks take measurements over a sweep of widths (each from
// independent random initializations) and decide on fitted log-log slopes
// with confidence intervals derived from the spread of the measurements,
// never from a tuned constant.

// Statistical levels of the section's slope tests.
const (
	// SlopeZ is the normal quantile of the two-sided interval of a slope
	// fitted with known sampling variances (FitLogLog with sigma): 3, a
	// false alarm rate of 0.27% when the claim is exact.
	SlopeZ = 3
	// slopeTail is the one-sided tail of the t-quantile used when the
	// standard error is estimated from the residuals of the fit (ZD-T4/L5,
	// T6): 0.00135, the tail of 3 standard deviations of a normal.
	slopeTail = 0.00135
	// ConcentrationAlarm is the two-sided false-alarm rate of ZD-L3's
	// slope test when the claim is exact: 1e-4, so that a 50-run soak of
	// the one-sweep property stays clean with probability 0.995. The
	// test keeps its power: at the quick budget the half-width is ~0.2,
	// against the 0.5 that separates 1/d̃ from 1/√d̃.
	ConcentrationAlarm = 1e-4
	// SlopeResolution is the widest confidence half-width a slope test may
	// have and still decide that a claim holds: it must at least tell a
	// decay like d̃^{−1/4} from none, or 1/d̃ from 1/√d̃ (ZD-L3).
	SlopeResolution = 0.5
	// ApproximationExponent is ZD's rate: Lemma 5 and Thm 4 bound the gaps
	// by C·d̃^{−1/4} (the paper remarks that d̃^{−1/2+ε} can be proved).
	ApproximationExponent = -0.25
	// ConcentrationExponent is the rate at which the variance of the
	// empirical NTK at initialization falls: Θ^{(0)}(x, x') − β² is, at
	// ZD's initialization, the mean of d_L terms σ(h_j(x))σ(h_j(x')) that
	// become independent as the widths grow (eq. 44), so its variance is
	// Var(term)/d_L: slope −1 in log-log.
	ConcentrationExponent = -1
)

// LogLogFit is a least-squares line log y = Intercept + Slope·log x.
type LogLogFit struct {
	Slope, Intercept float64
	// SE is the standard error of the slope; DF its degrees of freedom
	// (0 when it comes from known variances, a normal quantile applies).
	SE     float64
	DF     int
	Points int
}

// HalfWidth returns the one-sided confidence half-width of the slope:
// SE times the t-quantile (DF > 0) or SlopeZ (DF = 0).
func (f LogLogFit) HalfWidth() float64 {
	if f.DF > 0 {
		return f.SE * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.DF)}.Quantile(1-slopeTail)
	}
	return f.SE * SlopeZ
}

// String returns "slope ± half-width (n points)".
func (f LogLogFit) String() string {
	return fmt.Sprintf("%.3f ± %.3f (%d points)", f.Slope, f.HalfWidth(), f.Points)
}

// FitLogLog fits log y against log x by least squares. Without sigma the
// fit is ordinary and the slope's standard error comes from the residuals
// (DF = points − 2); with sigma (the standard errors of log y_i, known from
// the sampling) it is weighted by 1/σ_i² and SE = 1/√(Σ w_i (log x_i − x̄)²)
// (DF = 0). Every x and y must be > 0.
func FitLogLog(x, y, sigma []float64) (LogLogFit, error) {
	n := len(x)
	if n != len(y) || (sigma != nil && len(sigma) != n) {
		return LogLogFit{}, errors.New("theorems: log-log fit of unequal lengths")
	}
	if n < 3 {
		return LogLogFit{}, fmt.Errorf("theorems: log-log fit needs ≥ 3 points, got %d", n)
	}
	lx, ly, w := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		if !(x[i] > 0) || !(y[i] > 0) || math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			return LogLogFit{}, fmt.Errorf("theorems: log-log fit of a non-positive or infinite point (%g, %g)", x[i], y[i])
		}
		lx[i], ly[i], w[i] = math.Log(x[i]), math.Log(y[i]), 1
		if sigma != nil {
			if !(sigma[i] > 0) || math.IsInf(sigma[i], 0) {
				return LogLogFit{}, fmt.Errorf("theorems: log-log fit with standard error %g", sigma[i])
			}
			w[i] = 1 / (sigma[i] * sigma[i])
		}
	}
	var sw, mx, my float64
	for i := range lx {
		sw += w[i]
		mx += w[i] * lx[i]
		my += w[i] * ly[i]
	}
	mx /= sw
	my /= sw
	var sxx, sxy float64
	for i := range lx {
		sxx += w[i] * (lx[i] - mx) * (lx[i] - mx)
		sxy += w[i] * (lx[i] - mx) * (ly[i] - my)
	}
	if !(sxx > 0) {
		return LogLogFit{}, errors.New("theorems: log-log fit needs at least two distinct x")
	}
	f := LogLogFit{Slope: sxy / sxx, Points: n}
	f.Intercept = my - f.Slope*mx
	if sigma != nil {
		f.SE = 1 / math.Sqrt(sxx)
		return f, nil
	}
	var rss float64
	for i := range lx {
		r := ly[i] - f.Intercept - f.Slope*lx[i]
		rss += r * r
	}
	f.DF = n - 2
	f.SE = math.Sqrt(rss / float64(f.DF) / sxx)
	return f, nil
}

// KernelWidth holds the empirical NTK Gram matrices Θ^{(0)}(X, X) (n×n,
// row-major) of independent initializations (one per seed) of one width.
type KernelWidth struct {
	Width int
	Grams [][]float64
}

// Sizes of ZD-L3's sample.
const (
	// MinKernelSeeds is the fewest seeds per width: the standard error of a
	// variance from S samples is itself estimated from them, and below 8
	// the estimate is too rough to weight a fit.
	MinKernelSeeds = 8
	// MinWidths is the fewest distinct widths of a sweep.
	MinWidths = 3
)

// KernelVariance is the spread of the Gram matrices of one width: V =
// (1/(S−1)) Σ_k ‖Θ_k − Θ̄‖²_F, the summed variance of the entries (E‖Θ^{(0)}
// − EΘ^{(0)}‖²_F, which → 0 is convergence in probability, ZD Lemma 3), and
// the standard error of log V. V is the mean of the S values
// D_k = ‖Θ_k − Θ̄‖²_F·S/(S−1), so by the delta method
// SE(log V) ≈ sd(D)/(√S·mean(D)), estimated from the same seeds.
type KernelVariance struct {
	Width    int
	V, LogSE float64
	// Mean is the mean Gram matrix Θ̄ (the estimate of the limit kernel).
	Mean []float64
}

// Variance computes the KernelVariance of w for n×n Gram matrices.
func (w KernelWidth) Variance(n int) (KernelVariance, error) {
	if S := len(w.Grams); S < MinKernelSeeds {
		return KernelVariance{}, fmt.Errorf("theorems: width %d has %d seeds, ZD-L3 needs ≥ %d", w.Width, S, MinKernelSeeds)
	}
	return w.variance(n, -1)
}

// variance is Variance over the seeds other than skip (−1: all of them),
// the leave-one-out sample of NTKConcentration's jackknife.
func (w KernelWidth) variance(n, skip int) (KernelVariance, error) {
	grams := w.Grams
	if skip >= 0 {
		grams = append(append([][]float64(nil), grams[:skip]...), grams[skip+1:]...)
	}
	S := len(grams)
	mean := make([]float64, n*n)
	for _, g := range grams {
		if len(g) != n*n {
			return KernelVariance{}, fmt.Errorf("theorems: width %d: a Gram matrix has %d entries, want %d", w.Width, len(g), n*n)
		}
		for i, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return KernelVariance{}, fmt.Errorf("theorems: width %d: Gram entry %v", w.Width, v)
			}
			mean[i] += v / float64(S)
		}
	}
	d := make([]float64, S)
	var sum float64
	for k, g := range grams {
		var s float64
		for i, v := range g {
			s += (v - mean[i]) * (v - mean[i])
		}
		d[k] = s * float64(S) / float64(S-1)
		sum += d[k]
	}
	m := sum / float64(S)
	var ss float64
	for _, v := range d {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / float64(S-1))
	return KernelVariance{Width: w.Width, V: m, LogSE: sd / (math.Sqrt(float64(S)) * m), Mean: mean}, nil
}

// NTKConcentration checks ZD-L3 (Lemma 3, with the law of large numbers of
// App. D.3.1): the empirical NTK at initialization concentrates around a
// deterministic kernel as the widths grow, at the rate of an average of
// d_L independent terms: the summed variance V(d̃) of the Gram matrix over
// random initializations falls like 1/d̃. It fits log V against log d̃ by
// ordinary least squares and takes the slope's standard error from a
// delete-one-seed jackknife (seed k of every width left out in turn: the
// S seeds are independent units). The claim holds when the slope is within
// the t_{S−1} quantile of two-sided tail ConcentrationAlarm standard errors
// of −1 (ConcentrationExponent); violated when it is farther; inconclusive
// when that half-width exceeds SlopeResolution (too few seeds to tell 1/d̃
// from 1/√d̃). The limit kernel must be non-degenerate (it depends on x,
// x'): the Detail reports the spread of the mean Gram matrix of the widest
// width.
//
// Why not the delta method's standard errors of log V as fit weights: V
// is a mean of skewed terms (squared deviations), so those standard errors
// are themselves noisy and correlated with V (a width whose seeds came out
// close together gets a small V and a heavy weight). On 132 sweeps of the
// quick budget the weighted slope's z-scores had mean square 1.2 and 2 of
// them exceeded 3, against 0.36 expected (soak seed 1795352410080667 was
// one: −0.876 ± 0.124). All widths have the same number of seeds, so their
// log V are about equally precise and the unweighted fit loses little.
func NTKConcentration(n int, widths []KernelWidth) Verdict {
	if len(widths) < MinWidths {
		return invalid(fmt.Errorf("theorems: ZD-L3 needs ≥ %d widths, got %d", MinWidths, len(widths)))
	}
	ws := append([]KernelWidth(nil), widths...)
	sort.Slice(ws, func(i, j int) bool { return ws[i].Width < ws[j].Width })
	S := len(ws[0].Grams)
	var x, y []float64
	var parts []string
	var last KernelVariance
	for _, w := range ws {
		kv, err := w.Variance(n)
		if err != nil {
			return invalid(err)
		}
		if len(w.Grams) != S {
			return invalid(fmt.Errorf("theorems: width %d has %d seeds, width %d has %d: the jackknife leaves one seed of every width out", w.Width, len(w.Grams), ws[0].Width, S))
		}
		// Equal matrices leave a variance of rounding only: each mean entry
		// is within a few ulps, (4ε·max|Θ|)² per squared deviation.
		var big float64
		for _, v := range kv.Mean {
			big = math.Max(big, math.Abs(v))
		}
		if round := float64(n*n) * math.Pow(4*0x1p-52*big, 2); !(kv.V > round) {
			return Undecided("width %d: the Gram matrices of all %d seeds are equal (variance %.3g, at rounding level): nothing to fit", w.Width, len(w.Grams), kv.V)
		}
		x, y = append(x, float64(w.Width)), append(y, kv.V)
		parts = append(parts, fmt.Sprintf("%d: %.3g", w.Width, kv.V))
		last = kv
	}
	fit, err := FitLogLog(x, y, nil)
	if err != nil {
		return invalid(err)
	}
	se, err := jackknifeSlopeSE(n, ws, x)
	if err != nil {
		return invalid(err)
	}
	half := se * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(S - 1)}.Quantile(1-ConcentrationAlarm/2)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range last.Mean {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	detail := fmt.Sprintf("slope of log Var Θ^{(0)} vs log width = %.3f ± %.3f (%d points; jackknife SE %.3g over %d seeds), want %d; variance by width %s; mean Gram entries at width %d in [%.3g, %.3g] (non-degenerate limit kernel)",
		fit.Slope, half, fit.Points, se, S, ConcentrationExponent, strings.Join(parts, ", "), last.Width, lo, hi)
	dev := math.Abs(fit.Slope - ConcentrationExponent)
	if dev > half {
		return Verdict{Status: Violated, Statistic: dev, Bound: half, Detail: detail}
	}
	if half > SlopeResolution {
		return Undecided("confidence half-width %.3g exceeds %.3g: too few seeds to tell the rate; %s", half, SlopeResolution, detail)
	}
	if !(hi > lo) {
		return Verdict{Status: Violated, Statistic: dev, Bound: half, Detail: "the mean Gram matrix is constant: a degenerate limit kernel; " + detail}
	}
	return Verdict{Status: Holds, Statistic: dev, Bound: half, Detail: detail}
}

// jackknifeSlopeSE returns the delete-one jackknife standard error of the
// least-squares slope of log V against log width (x) over the seeds of ws
// (sorted by width, S seeds each):
//
//	SE² = (S−1)/S · Σ_k (b_(k) − b̄)²,
//
// b_(k) the slope with seed k of every width left out and b̄ their mean.
func jackknifeSlopeSE(n int, ws []KernelWidth, x []float64) (float64, error) {
	S := len(ws[0].Grams)
	b := make([]float64, S)
	y := make([]float64, len(ws))
	for k := range b {
		for i, w := range ws {
			kv, err := w.variance(n, k)
			if err != nil {
				return 0, err
			}
			if !(kv.V > 0) {
				return 0, fmt.Errorf("theorems: width %d without seed %d has variance %g", w.Width, k, kv.V)
			}
			y[i] = kv.V
		}
		f, err := FitLogLog(x, y, nil)
		if err != nil {
			return 0, err
		}
		b[k] = f.Slope
	}
	mean := stat.Mean(b, nil)
	var ss float64
	for _, v := range b {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss * float64(S-1) / float64(S)), nil
}

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

// distinctWidths returns the sorted distinct widths of runs.
func distinctWidths(widths []int) []int {
	set := map[int]bool{}
	var out []int
	for _, w := range widths {
		if !set[w] {
			set[w] = true
			out = append(out, w)
		}
	}
	sort.Ints(out)
	return out
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
// Runs that did not converge are inconclusive. The linearized runs must end
// at the common interpolator f* (Cor. 15, the step from Lemma 5 to Thm 4):
// farther from it than LimitBound allows at their final risk is violated.
func NTKApproximation(runs []GapRun) Verdict {
	var widths []int
	for _, r := range runs {
		widths = append(widths, r.Width)
	}
	if ws := distinctWidths(widths); len(ws) < MinWidths {
		return invalid(fmt.Errorf("theorems: ZD-T4/L5 needs ≥ %d widths, got %v", MinWidths, ws))
	}
	for _, r := range runs {
		if r.N < 1 {
			return invalid(fmt.Errorf("theorems: width %d seed %d: no training samples", r.Width, r.Seed))
		}
		for _, v := range []float64{r.LinGap, r.GRWGap, r.LinLimitGap, r.LinRisk, r.TestDiag, r.GramMin, r.GramMax, r.LastLayerNorm} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid(fmt.Errorf("theorems: width %d seed %d: a measurement is %v", r.Width, r.Seed, v))
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
			return Assumption("ZD eq. (9) W^L(0) = 0 fails (width %d seed %d: ‖W^L(0)‖ = %.3g, a Gaussian last layer); measured anyway: %s", r.Width, r.Seed, r.LastLayerNorm, measured)
		}
		if !(r.GramMin > GramRankTol*r.GramMax) {
			return Assumption("λ_min(Θ^{(0)}) > 0 fails (width %d seed %d: eigenvalues %.3g … %.3g)", r.Width, r.Seed, r.GramMin, r.GramMax)
		}
	}
	if err != nil {
		// Gaps of exactly 0 (or a degenerate sweep): nothing to fit.
		return Undecided("cannot fit the gaps: %v", err)
	}
	for _, r := range runs {
		if !r.Converged {
			return Undecided("width %d seed %d: a run did not reach the stopping risk within its budget; %s", r.Width, r.Seed, measured)
		}
		if b := LimitBound(r.TestDiag, r.LinRisk, r.GramMin, r.N) + limitRounding; r.LinLimitGap > b {
			return Verdict{Status: Violated, Statistic: r.LinLimitGap, Bound: b,
				Detail: fmt.Sprintf("ZD Cor. 15: width %d seed %d: a linearized run ends %.3g from the kernel interpolator f*, more than Lemma 18 allows at its risk %.3g; %s", r.Width, r.Seed, r.LinLimitGap, r.LinRisk, measured)}
		}
	}
	upLin, upGRW := lin.Slope+lin.HalfWidth(), grw.Slope+grw.HalfWidth()
	detail := measured + "; " + gapTable(runs)
	if lin.Slope-lin.HalfWidth() > ApproximationExponent || grw.Slope-grw.HalfWidth() > ApproximationExponent {
		return Verdict{Status: Violated, Statistic: math.Max(lin.Slope-lin.HalfWidth(), grw.Slope-grw.HalfWidth()), Bound: ApproximationExponent,
			Detail: "the gaps do not fall like d̃^{−1/4}: " + detail}
	}
	stat := math.Max(upLin, upGRW)
	if stat > ApproximationExponent {
		return Undecided("the confidence intervals of the slopes reach above −1/4 (upper bounds %.3f, %.3f): more seeds or widths needed; %s", upLin, upGRW, detail)
	}
	return Verdict{Status: Holds, Statistic: stat, Bound: ApproximationExponent, Detail: detail}
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
func RegularizedWidthGap(runs []RegRun, eps float64) Verdict {
	if !(eps > 0) {
		return invalid(errors.New("theorems: ZD-T6 needs a risk budget ε > 0"))
	}
	var widths []int
	for _, r := range runs {
		widths = append(widths, r.Width)
		if r.N < 1 {
			return invalid(fmt.Errorf("theorems: width %d seed %d: no training samples", r.Width, r.Seed))
		}
		for _, v := range []float64{r.Mu, r.C, r.LastLayerNorm, r.GramMin, r.GramMax, r.TestDiag, r.Risk, r.LinRisk, r.RegGap, r.LinRegGap, r.ApproxGap, r.ERMGap} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid(fmt.Errorf("theorems: width %d seed %d μ %g: a measurement is %v", r.Width, r.Seed, r.Mu, v))
			}
		}
	}
	if ws := distinctWidths(widths); len(ws) < MinWidths {
		return invalid(fmt.Errorf("theorems: ZD-T6 needs ≥ %d widths, got %v", MinWidths, ws))
	}
	for _, r := range runs {
		if r.LastLayerNorm != 0 {
			return Assumption("ZD eq. (9) W^L(0) = 0 fails (width %d seed %d: ‖W^L(0)‖ = %.3g)", r.Width, r.Seed, r.LastLayerNorm)
		}
		if !(r.GramMin > GramRankTol*r.GramMax) {
			return Assumption("λ_min(Θ^{(0)}) > 0 fails (width %d seed %d: eigenvalues %.3g … %.3g)", r.Width, r.Seed, r.GramMin, r.GramMax)
		}
	}
	for _, r := range runs {
		if r.Risk >= eps {
			v := Assumption("(14) training risk below ε fails: μ = %.3g (width %d seed %d) leaves R̂ = %.3g ≥ ε = %.3g, and |f_reg − f_ERM| reaches %.3g",
				r.Mu, r.Width, r.Seed, r.Risk, eps, r.RegGap)
			v.Statistic, v.Bound = r.RegGap, LimitBound(r.TestDiag, eps, r.GramMin, r.N)
			return v
		}
	}
	for _, r := range runs {
		if b := LimitBound(r.TestDiag, r.LinRisk, r.GramMin, r.N) + limitRounding; r.LinRegGap > b {
			return Verdict{Status: Violated, Statistic: r.LinRegGap, Bound: b,
				Detail: fmt.Sprintf("ZD Lemma 18: width %d seed %d μ = %.3g: the regularized linearized run ends %.3g from f*, more than ‖∇f^{(0)}(x)‖√(2nR̂/λ_min) = %.3g at its risk %.3g", r.Width, r.Seed, r.Mu, r.LinRegGap, b, r.LinRisk)}
		}
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
		return Undecided("cannot fit |f_ERM − f*|: %v", err)
	}
	fits = append(fits, named{"|f_ERM − f*| (Lemma 5)", f})
	for _, c := range cs {
		var x, y []float64
		for _, r := range byC[c] {
			x, y = append(x, float64(r.Width)), append(y, r.ApproxGap)
		}
		f, err := FitLogLog(x, y, nil)
		if err != nil {
			return Undecided("cannot fit sup|f_reg − f_linreg| for μ = %g·q_min λ_min: %v", c, err)
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
			return Undecided("width %d seed %d: the ERM run did not interpolate within its budget; %s", r.Width, r.Seed, detail)
		}
		if !(r.Drift <= DriftShare*math.Min(r.ApproxGap, r.RegGap)) {
			return Undecided("width %d seed %d μ = %.3g: f_reg may still move by %.3g, more than %.2g of its gaps; %s", r.Width, r.Seed, r.Mu, r.Drift, DriftShare, detail)
		}
	}
	worst := math.Inf(-1)
	for _, nf := range fits {
		if lo := nf.fit.Slope - nf.fit.HalfWidth(); lo > ApproximationExponent {
			return Verdict{Status: Violated, Statistic: lo, Bound: ApproximationExponent, Detail: nf.name + " does not fall like d̃^{−1/4}: " + detail}
		}
		worst = math.Max(worst, nf.fit.Slope+nf.fit.HalfWidth())
	}
	if worst > ApproximationExponent {
		return Undecided("a slope's confidence interval reaches above −1/4 (upper bound %.3f); %s", worst, detail)
	}
	return Verdict{Status: Holds, Statistic: worst, Bound: ApproximationExponent, Detail: detail}
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

// SignRun is one (width, seed, μ) of a ZD-T9 sweep: a network trained
// from θ₀ by a GRW (Assumption 1) on the logistic loss plus
// (μ/2)‖θ − θ₀‖², and its linearization trained the same way, with the
// max-margin linearized network f_MM(x) = ⟨θ̂_MM, ∇f^{(0)}(x)⟩ (ZD eq. 18)
// from the kernel SVM on Θ^{(0)}(X, X).
type SignRun struct {
	Width int
	Seed  uint64
	Mu    float64
	// LastLayerNorm is ‖W^L(θ₀)‖ (ZD eq. 9: 0).
	LastLayerNorm float64
	// Risk is the network's ERM training risk (1/n)Σ log(1 + e^{−y_i f(x_i)})
	// at the end: the ε of Thm 9.
	Risk float64
	// R = ‖θ_lin − θ₀‖ of the linearized run's end, Gamma the kernel SVM's
	// margin γ = min_i y_i⟨θ̂_MM, ∇f^{(0)}(x_i)⟩, M = max_i |f^{(0)}(x_i)|,
	// QStar a lower bound on the limit weights (min_i q_i), Delta the
	// measured δ = ‖θ̂_MM − (θ_lin − θ₀)/R‖.
	R, Gamma, M, QStar, Delta float64
	// On the test points: f_MM, ‖∇f^{(0)}(x)‖, f^{(0)}, the network's and
	// the linearization's outputs at the end.
	FMM, GNorm, F0, FReg, FLin []float64
	// ApproxGap is sup_t max_x |f_reg^{(t)} − f_linreg^{(t)}| (Lemma 16).
	ApproxGap float64
	// Settled reports that both runs stopped by their drift test.
	Settled bool
}

// DeltaBound is the bound on δ = ‖θ̂_MM − θ̃_R‖ in ZD's proof of Thm 9
// (App. D.6, eq. 157–158), for the exact minimizer Rθ̃_R of the
// regularized linearized objective with limit weights q ≥ q*:
//
//	q*·ℓ((1 − δ²/4)Rγ + M) ≤ F(Rθ̃_R) ≤ F(Rθ̂_MM) ≤ ℓ(Rγ − M),
//
// ℓ(z) = log(1 + e^{−z}), solved exactly for δ:
//
//	δ ≤ 2√(1 − (z* − M)/(Rγ)),   z* = ℓ⁻¹(ℓ(Rγ − M)/q*) = −log(e^{ℓ(Rγ−M)/q*} − 1).
//
// For large Rγ this is 2√((2M − log q*)/(Rγ)) (eq. 160). ZD's eq. (159)
// gets there through (1 + a)^{q*} ≥ 1 + q*a, which is reversed for
// q* < 1 (Bernoulli); solving the inequality directly avoids that step.
// The result is capped at 2 (δ ≤ 2 for unit vectors).
func DeltaBound(R, gamma, M, qstar float64) float64 {
	if !(R > 0) || !(gamma > 0) || !(qstar > 0) || qstar > 1 {
		return math.NaN()
	}
	// In log domain: ℓ(Rγ − M) underflows for Rγ ≳ 745. With
	// lv = log v, v = ℓ(Rγ − M)/q*: z* = −log(e^v − 1), and for tiny v
	// log(e^v − 1) = log v + log(expm1(v)/v) = log v + v/2 + O(v²).
	lv := numerics.LogLog1pExp(-(R*gamma - M)) - math.Log(qstar)
	var zstar float64
	if lv < -40 {
		zstar = -(lv + math.Exp(lv)/2)
	} else {
		zstar = -numerics.LogExpm1(math.Exp(lv))
	}
	s := 1 - (zstar-M)/(R*gamma)
	if s >= 1 {
		return 2
	}
	return 2 * math.Sqrt(math.Max(s, 0))
}

// deltaSlack is the slack of δ ≤ DeltaBound: the linearized runs stop
// once their test outputs can move by at most 1e-7 (their drift test), an
// optimization error of that order in F and in δ; the bound is compared
// with 1e-6 of room.
const deltaSlack = 1e-6

// MaxSignRisk is Thm 9's hypothesis on the training risk: ε < 1/4.
const MaxSignRisk = 0.25

// SignAgreement checks ZD-T9 (Thm 9, App. D.6) on a sweep over widths and
// μ. For every run:
//
//   - the linear core, exact: the linearized run's direction is within
//     DeltaBound(R, γ, M, q*) of θ̂_MM (violated otherwise), so the
//     linearization agrees in sign with f_MM wherever
//     |f_MM(x)| > δ‖∇f^{(0)}(x)‖ + |f^{(0)}(x)|/R (checked too);
//   - the approximation (Lemma 16, whose loss condition the logistic loss
//     meets): sup_t |f_reg − f_linreg| falls with the width at least like
//     d̃^{−1/4} for each μ (decided as in NTKApproximation);
//   - the network's sign agrees with f_MM on the test points certified by
//     the measured δ (|f_MM(x)| > δ‖∇f^{(0)}(x)‖ + |f^{(0)}(x)|/R): required
//     at the widest width; a disagreement there while the gaps do fall is
//     inconclusive (the width is not yet in the asymptotic regime).
//
// Hypotheses: ε = Risk < 1/4, q* > 0 (Assumption 1), W^L(θ₀) = 0. The
// Detail reports, by width and μ, the agreement of the network with f_MM
// on the certified points and on all test points, and δ√R, which the
// theorem keeps bounded (δ = O(R^{−1/2})). With the proof's own constants
// the certified set of Thm 9 (DeltaBound in place of the measured δ) is
// empty until Rγ ≫ 2M − log q*, i.e. training risks like e^{−Rγ}: the
// Detail reports the bound next to δ.
func SignAgreement(runs []SignRun) Verdict {
	var widths []int
	for _, r := range runs {
		widths = append(widths, r.Width)
		m := len(r.FMM)
		if m == 0 || len(r.GNorm) != m || len(r.F0) != m || len(r.FReg) != m || len(r.FLin) != m {
			return invalid(fmt.Errorf("theorems: width %d seed %d: test-point arrays of unequal lengths", r.Width, r.Seed))
		}
		for _, v := range []float64{r.Mu, r.Risk, r.R, r.Gamma, r.M, r.QStar, r.Delta, r.ApproxGap, r.LastLayerNorm} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid(fmt.Errorf("theorems: width %d seed %d μ %g: a measurement is %v", r.Width, r.Seed, r.Mu, v))
			}
		}
	}
	ws := distinctWidths(widths)
	if len(ws) < MinWidths {
		return invalid(fmt.Errorf("theorems: ZD-T9 needs ≥ %d widths, got %v", MinWidths, ws))
	}
	for _, r := range runs {
		switch {
		case r.LastLayerNorm != 0:
			return Assumption("ZD eq. (9) W^L(0) = 0 fails (width %d seed %d: ‖W^L(0)‖ = %.3g)", r.Width, r.Seed, r.LastLayerNorm)
		case !(r.QStar > 0):
			return Assumption("Assumption 1's min q > 0 fails (width %d seed %d)", r.Width, r.Seed)
		case !(r.Gamma > 0):
			return Assumption("the gradient features are not separable (width %d seed %d): no max-margin direction", r.Width, r.Seed)
		case r.Risk >= MaxSignRisk:
			v := Assumption("Thm 9's training risk ε < 1/4 fails: μ = %.3g (width %d seed %d) leaves ε = %.3g; δ = %.3g, and the network agrees with f_MM on %s of the test points",
				r.Mu, r.Width, r.Seed, r.Risk, r.Delta, agreeAll(r))
			v.Statistic, v.Bound = r.Risk, MaxSignRisk
			return v
		}
	}
	for _, r := range runs {
		b := DeltaBound(r.R, r.Gamma, r.M, r.QStar)
		if r.Delta > b+deltaSlack {
			return Verdict{Status: Violated, Statistic: r.Delta, Bound: b,
				Detail: fmt.Sprintf("ZD App. D.6 (eq. 157–158): width %d seed %d μ = %.3g: the linearized direction is δ = %.4g from θ̂_MM, above the bound %.4g at R = %.3g, γ = %.3g, M = %.3g, q* = %.3g", r.Width, r.Seed, r.Mu, r.Delta, b, r.R, r.Gamma, r.M, r.QStar)}
		}
		for i := range r.FMM {
			if margin := r.R*(math.Abs(r.FMM[i])-b*r.GNorm[i]) - math.Abs(r.F0[i]); margin > deltaSlack*r.R*r.GNorm[i] && r.FLin[i]*r.FMM[i] <= 0 {
				return Verdict{Status: Violated, Statistic: r.FLin[i] * r.FMM[i], Bound: 0,
					Detail: fmt.Sprintf("width %d seed %d μ = %.3g: test point %d is certified (|f_MM| = %.3g > δ_bound‖∇f⁰‖ + |f⁰|/R) but f_lin = %.3g has the other sign", r.Width, r.Seed, r.Mu, i, math.Abs(r.FMM[i]), r.FLin[i])}
			}
		}
	}
	byMu := map[float64][]SignRun{}
	var mus []float64
	for _, r := range runs {
		if _, ok := byMu[r.Mu]; !ok {
			mus = append(mus, r.Mu)
		}
		byMu[r.Mu] = append(byMu[r.Mu], r)
	}
	sort.Float64s(mus)
	var parts []string
	var fits []LogLogFit
	for _, mu := range mus {
		var x, y []float64
		for _, r := range byMu[mu] {
			x, y = append(x, float64(r.Width)), append(y, r.ApproxGap)
		}
		f, err := FitLogLog(x, y, nil)
		if err != nil {
			return Undecided("cannot fit sup|f_reg − f_linreg| at μ = %g: %v", mu, err)
		}
		fits = append(fits, f)
		parts = append(parts, fmt.Sprintf("μ = %g: slope of sup_t|f_reg − f_linreg| %s; %s", mu, f, signTable(byMu[mu])))
	}
	detail := strings.Join(parts, "; ")
	for _, r := range runs {
		if !r.Settled {
			return Undecided("width %d seed %d μ = %.3g: a run did not settle within its budget; %s", r.Width, r.Seed, r.Mu, detail)
		}
	}
	worst := math.Inf(-1)
	for i, f := range fits {
		if lo := f.Slope - f.HalfWidth(); lo > ApproximationExponent {
			return Verdict{Status: Violated, Statistic: lo, Bound: ApproximationExponent, Detail: fmt.Sprintf("μ = %g: sup_t|f_reg − f_linreg| does not fall like d̃^{−1/4} (Lemma 16); %s", mus[i], detail)}
		}
		worst = math.Max(worst, f.Slope+f.HalfWidth())
	}
	if worst > ApproximationExponent {
		return Undecided("a slope's confidence interval reaches above −1/4 (upper bound %.3f); %s", worst, detail)
	}
	widest := ws[len(ws)-1]
	certified := 0
	for _, r := range runs {
		c, agree := r.CertifiedAgreement()
		if r.Width == widest {
			certified += c
			if agree < c {
				return Undecided("width %d seed %d μ = %.3g: the network disagrees with f_MM on %d of the %d test points the linearization certifies, at the widest width; %s", r.Width, r.Seed, r.Mu, c-agree, c, detail)
			}
		}
	}
	if certified == 0 {
		return Undecided("no test point is certified at the widest width (|f_MM| ≤ δ‖∇f⁰‖ + |f⁰|/R everywhere); %s", detail)
	}
	return Verdict{Status: Holds, Statistic: worst, Bound: ApproximationExponent, Detail: detail}
}

// CertifiedAgreement counts the test points certified by the measured δ
// (|f_MM| > δ‖∇f⁰‖ + |f⁰|/R) and those of them where the network's sign is
// f_MM's.
func (r SignRun) CertifiedAgreement() (certified, agree int) {
	for i := range r.FMM {
		if r.R*(math.Abs(r.FMM[i])-r.Delta*r.GNorm[i]) > math.Abs(r.F0[i]) {
			certified++
			if r.FReg[i]*r.FMM[i] > 0 {
				agree++
			}
		}
	}
	return
}

// agreeAll is "k/m": the test points where the network's sign is f_MM's.
func agreeAll(r SignRun) string {
	k := 0
	for i := range r.FMM {
		if r.FReg[i]*r.FMM[i] > 0 {
			k++
		}
	}
	return fmt.Sprintf("%d/%d", k, len(r.FMM))
}

// signTable summarizes runs of one μ by width: mean ε, mean δ√R and the
// bound, agreement on the certified points and on all points.
func signTable(runs []SignRun) string {
	by := map[int][]SignRun{}
	var widths []int
	for _, r := range runs {
		by[r.Width] = append(by[r.Width], r)
		widths = append(widths, r.Width)
	}
	var cells []string
	for _, w := range distinctWidths(widths) {
		var eps, dr, db float64
		c, a, all, m := 0, 0, 0, 0
		for _, r := range by[w] {
			eps += r.Risk
			dr += r.Delta * math.Sqrt(r.R)
			db += DeltaBound(r.R, r.Gamma, r.M, r.QStar)
			ci, ai := r.CertifiedAgreement()
			c, a = c+ci, a+ai
			for i := range r.FMM {
				if r.FReg[i]*r.FMM[i] > 0 {
					all++
				}
			}
			m += len(r.FMM)
		}
		k := float64(len(by[w]))
		cells = append(cells, fmt.Sprintf("%d: ε %.3g, δ√R %.3g (bound on δ %.3g), agree %d/%d certified, %d/%d all", w, eps/k, dr/k, db/k, a, c, all, m))
	}
	return strings.Join(cells, ", ")
}

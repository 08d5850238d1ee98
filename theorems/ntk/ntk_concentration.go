package ntk

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
)

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
func NTKConcentration(n int, widths []KernelWidth) theorems.Verdict {
	if len(widths) < MinWidths {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-L3 needs ≥ %d widths, got %d", MinWidths, len(widths)))
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
			return theorems.Invalid(err)
		}
		if len(w.Grams) != S {
			return theorems.Invalid(fmt.Errorf("theorems: width %d has %d seeds, width %d has %d: the jackknife leaves one seed of every width out", w.Width, len(w.Grams), ws[0].Width, S))
		}
		// Equal matrices leave a variance of rounding only: each mean entry
		// is within a few ulps, (4ε·max|Θ|)² per squared deviation.
		var big float64
		for _, v := range kv.Mean {
			big = math.Max(big, math.Abs(v))
		}
		if round := float64(n*n) * math.Pow(4*0x1p-52*big, 2); !(kv.V > round) {
			return theorems.Undecided("width %d: the Gram matrices of all %d seeds are equal (variance %.3g, at rounding level): nothing to fit", w.Width, len(w.Grams), kv.V)
		}
		x, y = append(x, float64(w.Width)), append(y, kv.V)
		parts = append(parts, fmt.Sprintf("%d: %.3g", w.Width, kv.V))
		last = kv
	}
	fit, err := FitLogLog(x, y, nil)
	if err != nil {
		return theorems.Invalid(err)
	}
	se, err := jackknifeSlopeSE(n, ws, x)
	if err != nil {
		return theorems.Invalid(err)
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
		return theorems.Verdict{Status: theorems.Violated, Statistic: dev, Bound: half, Detail: detail}
	}
	if half > SlopeResolution {
		return theorems.Undecided("confidence half-width %.3g exceeds %.3g: too few seeds to tell the rate; %s", half, SlopeResolution, detail)
	}
	if !(hi > lo) {
		return theorems.Verdict{Status: theorems.Violated, Statistic: dev, Bound: half, Detail: "the mean Gram matrix is constant: a degenerate limit kernel; " + detail}
	}
	return theorems.Verdict{Status: theorems.Holds, Statistic: dev, Bound: half, Detail: detail}
}

// jackknifeSlopeSE returns the delete-one jackknife standard error of the
// least-squares slope of log V against log width (x) over the seeds of ws
// (sorted by width, S seeds each):
//
//	SE² = (S−1)/S · Σ_k (b_(k) − b̄)²,
//
// b_(k) the slope with seed k of every width left out and b̄ their mean
// (numerics.JackknifeSE).
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
	return numerics.JackknifeSE(b), nil
}

package theorems

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
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

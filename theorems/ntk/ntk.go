package ntk

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
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

// LogLogFit is numerics' least-squares line log y = Intercept + Slope·log
// x with the confidence levels of this section attached (HalfWidth).
type LogLogFit struct{ numerics.LogLogFit }

// HalfWidth returns the one-sided confidence half-width of the slope:
// SE times the t-quantile at slopeTail (DF > 0) or SlopeZ (DF = 0).
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

// FitLogLog is numerics.FitLogLog, whose slope this section tests at its
// levels (HalfWidth).
func FitLogLog(x, y, sigma []float64) (LogLogFit, error) {
	f, err := numerics.FitLogLog(x, y, sigma)
	return LogLogFit{f}, err
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

// probeUndecided is a probe's verdict when its per-run tests find nothing:
// the sweep must go on (the fits need every width).
var probeUndecided = theorems.Undecided("one job's per-run tests pass: the fits across the widths decide")

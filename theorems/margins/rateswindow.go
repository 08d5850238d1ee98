package margins

import (
	"fmt"
	"math"
)

// rateWindowShort says why LL-4.3's fit window (FitRates) does not decide
// yet and what would: the window is the last RateWindow (one e-fold of
// log T) and must start at log log T ≥ rateMinStart, so log T must reach
// e^{rateMinStart+RateWindow} = e³ ≈ 20 (T = Σ η ≥ 5·10⁸ in the summed
// loss's time); and it must hold rateMinPoints records.
func rateWindowShort(start, end float64, points int) string {
	if start < rateMinStart {
		need := math.Exp(rateMinStart + RateWindow) // log T at the end
		have := math.Exp(end)
		return fmt.Sprintf("not asymptotic yet: the fit window is the last e-fold of log T (log log T ∈ [%.3g, %.3g]) and must start at log log T ≥ %g, so log T must reach %.3g (T = Σ η ≥ %.2g) where this run reached log T = %.3g: train about %.2g times longer at the same step size",
			start, end, rateMinStart, need, math.Exp(need), have, math.Exp(need-have))
	}
	return fmt.Sprintf("the fit window log log T ∈ [%.3g, %.3g] holds %d records, fewer than %d: record every step in it", start, end, points, rateMinPoints)
}

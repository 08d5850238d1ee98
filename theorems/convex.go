package theorems

import (
	"fmt"
	"math"
)

// GDRateCase is a gradient descent run on a convex, L-smooth function f
// with a unique minimizer x* (ZD Thm 10): the values f(x_t) at every step
// t = 0…T, the minimum f* = f(x*), ‖x₀ − x*‖², the constant step η and the
// smoothness constant L. Terms is the number of summands f is computed
// from (samples plus coordinates of a regularizer), for the rounding slack.
type GDRateCase struct {
	F       []float64
	FStar   float64
	Dist0Sq float64
	Eta, L  float64
	Terms   int
}

// GDRate checks ZD-T10 (Thm 10, the classical O(1/T) rate of GD): with
// η ≤ 1/L,
//
//	f(x_T) − f* ≤ ‖x₀ − x*‖²/(ηT)   for every T ≥ 1.
//
// The statistic is max_T (f(x_T) − f* − s_T)·ηT/‖x₀ − x*‖², against 1,
// where s_T = (Terms + 4)·ε·(|f(x_T)| + |f*|) is the rounding of the
// difference of two sums of Terms terms. A run with η > 1/L breaks the
// hypothesis and is assumption-failed; its Statistic still says whether
// the bound held (for the negative control, η > 2/L, GD diverges and it
// does not).
func GDRate(c GDRateCase) Verdict {
	if len(c.F) < 2 || !(c.Dist0Sq >= 0) || !(c.Eta > 0) || !(c.L > 0) {
		return invalid(fmt.Errorf("theorems: ZD-T10 needs f at ≥ 2 steps, ‖x₀ − x*‖² ≥ 0, η > 0, L > 0"))
	}
	if c.Dist0Sq == 0 {
		return Undecided("x₀ is the minimizer")
	}
	worst, at := math.Inf(-1), 0
	for t := 1; t < len(c.F); t++ {
		f := c.F[t]
		slack := float64(c.Terms+4) * 0x1p-53 * (math.Abs(f) + math.Abs(c.FStar))
		s := (f - c.FStar - slack) * c.Eta * float64(t) / c.Dist0Sq
		if s > worst || math.IsNaN(s) {
			worst, at = s, t
		}
		if math.IsNaN(s) || math.IsInf(f, 0) {
			break
		}
	}
	detail := fmt.Sprintf("worst T = %d: (f(x_T) − f*)·ηT/‖x₀ − x*‖² = %.4g (f(x_T) = %.6g, f* = %.6g, ηL = %.3g)", at, worst, c.F[at], c.FStar, c.Eta*c.L)
	if c.Eta*c.L > 1 {
		v := Assumption("Thm 10 needs η ≤ 1/L, but ηL = %.3g; %s", c.Eta*c.L, detail)
		v.Statistic, v.Bound = worst, 1
		return v
	}
	return Compare(worst, 1, detail)
}

package regression

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/theorems"
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
	// DistSq holds ‖x_t − x*‖² at t = 0…T and StepNorm ‖x_{t+1} − x_t‖ at
	// t = 0…T−1, computed from the recorded iterates, for the proof's
	// per-step inequality (nil: only the rate is checked). XStarError
	// bounds ‖x̂* − x*‖ of the computed minimizer, D the dimension.
	DistSq, StepNorm []float64
	XStarError       float64
	D                int
}

// StepInequalityRounding is the factor on the rounding allowance of the
// per-step inequality (below): its terms are computed to (Terms + 4)ε
// (the two f values), (D + 2)ε (the squared distances) and ‖step‖·‖x̂* − x*‖/η
// (the minimizer's error moves ‖x_t − x*‖² − ‖x_{t+1} − x*‖² by at most
// 2‖x_{t+1} − x_t‖·‖x̂* − x*‖); the factor 4 covers the sum of their
// bounds twice over. The inequality is exact for GD with η ≤ 1/L, so a
// correct engine never exceeds the allowance (false-alarm rate 0 up to
// the rounding model).
const StepInequalityRounding = 4

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
//
// The bound is loose (the claim's runs stay below 0.1 of it) and a run
// that settles at a wrong point x' exceeds it only after
// T ≳ ‖x₀ − x*‖²/(η(f(x') − f*)) steps. With DistSq set the check also
// tests, at every step, the inequality the classical proof sums to get the
// bound (Bubeck 2015, Thm 3.3; Nesterov 2004, Thm 2.1.13): the descent
// lemma f(x_{t+1}) ≤ f(x_t) − (η/2)‖∇f(x_t)‖² (η ≤ 1/L) and convexity
// f(x_t) ≤ f* + ⟨∇f(x_t), x_t − x*⟩ give, for x_{t+1} = x_t − η∇f(x_t),
//
//	f(x_{t+1}) − f* ≤ (‖x_t − x*‖² − ‖x_{t+1} − x*‖²)/(2η),
//
// whose sum over t is Thm 10 (with 2ηT). A step that is not GD on f — a
// gradient of another function, a wrong point of convergence — breaks it
// as soon as the iterates stop approaching x* faster than f falls. Its
// excess is reported in units of the rounding allowance
// (StepInequalityRounding); above 1 the case is violated.
func GDRate(c GDRateCase) theorems.Verdict {
	if len(c.F) < 2 || !(c.Dist0Sq >= 0) || !(c.Eta > 0) || !(c.L > 0) {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-T10 needs f at ≥ 2 steps, ‖x₀ − x*‖² ≥ 0, η > 0, L > 0"))
	}
	if c.Dist0Sq == 0 {
		return theorems.Undecided("x₀ is the minimizer")
	}
	worst, at := math.Inf(-1), 0
	for t := 1; t < len(c.F); t++ {
		f := c.F[t]
		slack := float64(c.Terms+4) * 0x1p-53 * (math.Abs(f) + math.Abs(c.FStar))
		s := (f - c.FStar - slack) * c.Eta * float64(t) / c.Dist0Sq
		if math.IsInf(f, 1) {
			s = f // diverged (the slack is ∞ too)
		}
		if s > worst || math.IsNaN(s) {
			worst, at = s, t
		}
		if math.IsNaN(s) || math.IsInf(f, 0) {
			break
		}
	}
	detail := fmt.Sprintf("worst T = %d: (f(x_T) − f*)·ηT/‖x₀ − x*‖² = %.4g (f(x_T) = %.6g, f* = %.6g, ηL = %.3g)", at, worst, c.F[at], c.FStar, c.Eta*c.L)
	if c.Eta*c.L > 1 {
		v := theorems.Assumption("Thm 10 needs η ≤ 1/L, but ηL = %.3g; %s", c.Eta*c.L, detail)
		v.Statistic, v.Bound = worst, 1
		return v
	}
	if c.DistSq != nil {
		if len(c.DistSq) != len(c.F) || len(c.StepNorm) != len(c.F)-1 || !(c.XStarError >= 0) {
			return theorems.Invalid(fmt.Errorf("theorems: ZD-T10's per-step inequality needs ‖x_t − x*‖² at the %d steps and the %d step lengths", len(c.F), len(c.F)-1))
		}
		excess, t := c.stepInequality()
		if excess > 1 || math.IsNaN(excess) {
			return theorems.Compare(excess, 1, fmt.Sprintf("step %d → %d: f(x_{t+1}) − f* exceeds (‖x_t − x*‖² − ‖x_{t+1} − x*‖²)/(2η) by %.3g × its rounding allowance (f(x_{t+1}) − f* = %.3g): the step is not GD on f (the inequality Thm 10's proof sums); %s", t, t+1, excess, c.F[t+1]-c.FStar, detail))
		}
		detail += fmt.Sprintf("; per-step inequality of the proof: worst excess %.3g × its rounding allowance", excess)
	}
	return theorems.Compare(worst, 1, detail)
}

// stepInequality returns max_t of [f(x_{t+1}) − f* − (‖x_t − x*‖² −
// ‖x_{t+1} − x*‖²)/(2η)]/σ_t, σ_t its rounding allowance, and the t.
func (c GDRateCase) stepInequality() (float64, int) {
	const eps = 0x1p-53
	worst, at := math.Inf(-1), 0
	for t := 0; t+1 < len(c.F); t++ {
		f := c.F[t+1]
		lhs := f - c.FStar
		rhs := (c.DistSq[t] - c.DistSq[t+1]) / (2 * c.Eta)
		sigma := float64(c.Terms+4)*eps*(math.Abs(f)+math.Abs(c.FStar)) +
			float64(c.D+2)*eps*(c.DistSq[t]+c.DistSq[t+1])/(2*c.Eta) +
			c.StepNorm[t]*c.XStarError/c.Eta
		sigma *= StepInequalityRounding
		e := (lhs - rhs) / math.Max(sigma, math.SmallestNonzeroFloat64)
		if math.IsNaN(e) {
			return e, t
		}
		if e > worst {
			worst, at = e, t
		}
	}
	return worst, at
}

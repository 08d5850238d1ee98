package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
)

// Section D of the catalog: generalized reweighting (GRW) for regression
// with a linear model and the squared loss ½(⟨θ, x⟩ − y)² (ZD §4.1).

// Bounds of section D.
const (
	// InterpolatorBound is ZD-T1's (and ZD-F1's) acceptance bound on
	// ‖θ_T − θ*‖/‖θ*‖, the criterion. θ* is computed by QR with a
	// relative error of about κ(X)·ε ≤ 1e-13 for the generated cases, and
	// the run is judged only once its residual accounts for at most
	// InterpolatorResidualShare of the bound (below), so the bound leaves
	// room only for the part of θ_T − θ* outside span{x_i} — which is what
	// the claim is about.
	InterpolatorBound = 1e-8
	// InterpolatorResidualShare: the part of θ_T − θ* inside span{x_i} is
	// at most ‖Xθ_T − y‖/σ_min(X) (ZD eq. 24); the check decides only when
	// that is below this share of the bound, i.e. when the risk has gone to
	// 0 as far as the bound can see. Otherwise the run ended too early
	// (inconclusive).
	InterpolatorResidualShare = 0.01
	// SpanRoundingPerStep bounds the growth per step of the component of
	// θ_t − θ₀ outside span{x_i}, relative to max(‖θ₀‖, ‖θ_t‖), that
	// rounding alone creates: an update θ + s rounds each coordinate with
	// relative error ε = 2⁻⁵³ (at most ε‖θ_{t+1}‖ in norm); heavy-ball
	// momentum with β ≤ 0.9 re-adds each rounding error of its velocity
	// at most 1/(1 − β) = 10 times; the two-pass projection adds a few
	// ε·√n. 64ε per step covers the sum with a factor ~3 to spare.
	SpanRoundingPerStep = 64 * 0x1p-53
	// RiskVanishBound is ZD-T2's bound on R̂(θ_T)/R̂(θ₀): the risk has gone
	// to 0 when it fell by 16 orders of magnitude (the residual by 8, the
	// precision ZD-T1 asks of θ). The rounding floor of R̂ is about
	// (ε‖X‖‖θ‖)², some 30 orders below R̂(θ₀) for the generated cases.
	RiskVanishBound = 1e-16
	// WeightLimitBound is ZD-GDRO's bound on the estimated distance, in
	// log q, between the last recorded weights and their limit: weights
	// known to 1e-6 relative have converged for every practical purpose,
	// and the bound is far above the rounding of log q (≈ 1e-15).
	WeightLimitBound = 1e-6
	// weightRoundingFloor is the size of a change of log q that is only
	// rounding: |log q| ≤ 40 for the generated weights, times a few ε.
	weightRoundingFloor = 1e-13
)

// relDist returns ‖a − b‖/‖b‖ (‖a − b‖ when b = 0).
func relDist(a, b []float64) float64 {
	if nb := floats.Norm(b, 2); nb > 0 {
		return floats.Distance(a, b, 2) / nb
	}
	return floats.Distance(a, b, 2)
}

// Interpolator checks ZD-T1 (Thm 1) on the end point θ_T of a training
// run: when the risk has gone to 0, θ_T is the interpolator θ* =
// θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀), whatever the weights were. The statistic is
// ‖θ_T − θ*‖/‖θ*‖ against InterpolatorBound. The run must have driven the
// residual so low that ‖Xθ_T − y‖/σ_min(X) ≤ InterpolatorResidualShare ·
// InterpolatorBound·‖θ*‖; otherwise the hypothesis "risk → 0" is not
// visible yet and the case is inconclusive.
func Interpolator(c RegressionCase, theta []float64) theorems.Verdict {
	r, v := c.prepare()
	if v != nil {
		return *v
	}
	if len(theta) != c.D {
		return theorems.Invalid(fmt.Errorf("theorems: θ has %d entries, want %d", len(theta), c.D))
	}
	return r.interpolator(theta)
}

// InterpolatorAtRate is Interpolator on a GD run whose weights are known
// (GRWRun): a run whose residual is still visible at the end of its budget
// is decided by the computed rate (grwrate.go) instead of being
// inconclusive: violated when ‖P_span(θ_T − θ*)‖ is above what GD on the
// recorded weights allows after T steps, inconclusive only when the rate
// itself does not reach the precision of the check within T steps.
func InterpolatorAtRate(run GRWRun) theorems.Verdict {
	r, v := run.Case.prepare()
	if v != nil {
		return *v
	}
	if len(run.Theta) != run.Case.D {
		return theorems.Invalid(fmt.Errorf("theorems: θ has %d entries, want %d", len(run.Theta), run.Case.D))
	}
	return r.interpolatorAt(run.Theta, &run.Rate)
}

func (r *regression) interpolator(theta []float64) theorems.Verdict {
	return r.interpolatorAt(theta, nil)
}

func (r *regression) interpolatorAt(theta []float64, rate *GRWRate) theorems.Verdict {
	nstar := floats.Norm(r.star, 2)
	inSpan := r.residualNorm(theta) / r.span.SMin
	if need := InterpolatorResidualShare * InterpolatorBound * nstar; inSpan > need || math.IsNaN(inSpan) {
		if rate != nil {
			v, decided := r.rateVerdict(theta, *rate)
			if decided {
				return v
			}
			return theorems.Undecided("risk has not gone to 0 within the budget: ‖Xθ − y‖/σ_min = %.3g, need ≤ %.3g; within the computed rate %.3g after %d steps", inSpan, need, v.Bound, len(rate.QMin))
		}
		return theorems.Undecided("risk has not gone to 0 within the budget: ‖Xθ − y‖/σ_min = %.3g, need ≤ %.3g", inSpan, need)
	}
	d := relDist(theta, r.star)
	diff := make([]float64, len(theta))
	floats.SubTo(diff, theta, r.theta0)
	perp := r.span.Orthogonal(diff, diff)
	return theorems.Compare(d, InterpolatorBound, fmt.Sprintf("‖θ_T − θ*‖/‖θ*‖ = %.3g (‖θ*‖ = %.4g; part outside θ₀ + span{x_i}: %.3g; training risk %.3g)", d, nstar, perp/nstar, r.Risk(theta)))
}

// SpanMonitor measures ZD-span along a run: after every step, the norm of
// the component of θ_t − θ₀ orthogonal to span{x_i}, relative to
// max(‖θ₀‖, ‖θ_t‖). Observe it at every step (a train.Config.Observe hook
// with Every = 1); it does not allocate per call.
type SpanMonitor struct {
	r      *regression
	bad    *theorems.Verdict
	buf    []float64
	worst  float64
	worstT int
	steps  int
}

// NewSpanMonitor prepares a monitor for the case (d > n, independent x_i).
func NewSpanMonitor(c RegressionCase) *SpanMonitor {
	r, v := c.prepare()
	m := &SpanMonitor{r: r, bad: v}
	if r != nil {
		m.buf = make([]float64, c.D)
	}
	return m
}

// Observe records θ at step t.
func (m *SpanMonitor) Observe(t int, theta []float64) {
	if m.bad != nil {
		return
	}
	floats.SubTo(m.buf, theta, m.r.theta0)
	perp := m.r.span.Orthogonal(m.buf, m.buf)
	rel := perp / math.Max(floats.Norm(theta, 2), floats.Norm(m.r.theta0, 2))
	if rel > m.worst || math.IsNaN(rel) {
		m.worst, m.worstT = rel, t
	}
	m.steps = max(m.steps, t)
}

// Verdict checks ZD-span: the largest relative component outside the span
// is at most SpanRoundingPerStep per step taken.
func (m *SpanMonitor) Verdict() theorems.Verdict {
	if m.bad != nil {
		return *m.bad
	}
	if m.steps == 0 {
		return theorems.Undecided("no step observed")
	}
	bound := SpanRoundingPerStep * float64(m.steps)
	return theorems.Compare(m.worst, bound, fmt.Sprintf("largest ‖P⊥(θ_t − θ₀)‖/max(‖θ_t‖, ‖θ₀‖) = %.3g at step %d of %d", m.worst, m.worstT, m.steps))
}

// RiskVanishes checks ZD-T2 (Thm 2) on the ERM training risks R̂(θ_t)
// recorded at equally spaced steps (risks[0] at θ₀): under Assumption 1
// with a small step the risk goes to 0. It holds when R̂_T/R̂_0 ≤
// RiskVanishBound. Otherwise, with the run's end and weights (run not nil),
// it is violated when ‖P_span(θ_T − θ*)‖ is above the computed rate
// ‖θ₀ − θ*‖·Π_t c_t plus rounding (grwrate.go; ZD eq. 31 step by step): the
// risk is then higher than GD on the weights the scheme wrote can leave it.
// It is also violated when the risk has stalled — it did not even halve
// over the second half of the run, where Thm 2's proof (ZD eq. 40) makes
// it contract geometrically (this is what a scheme that breaks
// Assumption 1 shows: its recorded q_min^{(t)} → 0, so the computed rate
// stops contracting and cannot decide it). In between it is violated when
// a recorded risk is above what the computed rate allows at any step
// (grwriskpath.go); otherwise the budget ran out (inconclusive).
func RiskVanishes(risks []float64, run *GRWRun) theorems.Verdict {
	if len(risks) < 3 {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-T2 needs at least 3 recorded risks, got %d", len(risks)))
	}
	r0, rT, rH := risks[0], risks[len(risks)-1], risks[len(risks)/2]
	for _, r := range []float64{r0, rT, rH} {
		if !(r >= 0) || math.IsInf(r, 0) {
			return theorems.Compare(math.NaN(), RiskVanishBound, fmt.Sprintf("risk is %v (diverged)", r))
		}
	}
	if r0 == 0 {
		return theorems.Undecided("θ₀ already interpolates: R̂(θ₀) = 0")
	}
	ratio := rT / r0
	detail := fmt.Sprintf("R̂_T/R̂_0 = %.3g (R̂_0 = %.3g, R̂ at mid-run %.3g, R̂_T = %.3g)", ratio, r0, rH, rT)
	if ratio <= RiskVanishBound {
		return theorems.Compare(ratio, RiskVanishBound, detail)
	}
	rate := ""
	var r *regression
	if run != nil {
		var bad *theorems.Verdict
		r, bad = run.Case.prepare()
		if bad != nil {
			return *bad
		}
		if len(run.Theta) != run.Case.D {
			return theorems.Invalid(fmt.Errorf("theorems: θ has %d entries, want %d", len(run.Theta), run.Case.D))
		}
		v, decided := r.rateVerdict(run.Theta, run.Rate)
		if decided {
			v.Detail = v.Detail + "; " + detail
			return v
		}
		rate = fmt.Sprintf("; ‖P_span(θ_T − θ*)‖ = %.3g within the computed rate %.3g", v.Statistic, v.Bound)
	}
	if rT > rH/2 {
		return theorems.Compare(ratio, RiskVanishBound, "risk stalled, not going to 0: "+detail+rate)
	}
	if r != nil {
		// Only here, where the end decides nothing (grwriskpath.go).
		if v, decided := r.riskPathVerdict(risks, run.Rate); decided {
			v.Detail = v.Detail + "; " + detail + rate
			return v
		}
	}
	return theorems.Undecided("risk still falling when the budget ran out: %s%s", detail, rate)
}

// WeightsConverge checks ZD-GDRO: the GRW weights q^{(t)} recorded at
// equally spaced steps (t_0 … t_J) converge to a limit with min_i q_i > 0
// (ZD Assumption 1), i.e. log q^{(t)} converges. With
//
//	M₂ = max_{J/2 ≤ j ≤ J} ‖log q_j − log q_J‖_∞     (second half)
//	M₁ = max_{J/4 ≤ j ≤ J/2} ‖log q_j − log q_{J/2}‖_∞ (second quarter)
//
// a sequence that converges geometrically, log q_j − log q_∞ ≈ C·r^j, has
// M₂/M₁ = s(1 + s) with s = r^{J/4}. The decisions:
//
//	M₂ ≤ rounding floor   converged (statistic M₂);
//	M₂/M₁ ≤ ½            s ≤ 0.366: the rest of the sequence stays within
//	                      M₂·s²/(1 − s²) < M₂ of q_J, so M₂ is the
//	                      statistic, against WeightLimitBound (above it:
//	                      still converging, inconclusive);
//	M₂/M₁ ≥ 1             violated: the movement did not shrink — a periodic
//	                      schedule keeps its amplitude (ratio 1), a q_i → 0
//	                      drifts linearly in log q (ratio 2); a geometric
//	                      decay this slow (s ≥ 0.618 over a quarter of the
//	                      records) cannot be told from them by the records;
//	otherwise             inconclusive.
//
// A zero weight violates min q > 0.
func WeightsConverge(weights [][]float64) theorems.Verdict {
	if len(weights) < 9 {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-GDRO needs at least 9 recorded weight vectors, got %d", len(weights)))
	}
	n := len(weights[0])
	logs := make([][]float64, len(weights))
	for j, w := range weights {
		if len(w) != n {
			return theorems.Invalid(fmt.Errorf("theorems: weight vectors of different lengths"))
		}
		logs[j] = make([]float64, n)
		for i, v := range w {
			if !(v >= 0) || math.IsInf(v, 0) {
				return theorems.Invalid(fmt.Errorf("theorems: weight %v is not finite and ≥ 0", v))
			}
			logs[j][i] = numerics.Log(v)
		}
	}
	J := len(weights) - 1
	qmin := floats.Min(weights[J])
	if qmin == 0 {
		return theorems.Compare(math.Inf(1), WeightLimitBound, fmt.Sprintf("a weight reached 0: min q > 0 fails (after %d records)", J))
	}
	spread := func(from, to, ref int) float64 {
		m := 0.0
		for j := from; j <= to; j++ {
			for i, v := range logs[j] {
				d := math.Abs(v - logs[ref][i])
				if math.IsNaN(d) {
					d = math.Inf(1)
				}
				m = max(m, d)
			}
		}
		return m
	}
	m2 := spread(J/2, J, J)
	m1 := spread(J/4, J/2, J/2)
	detail := fmt.Sprintf("log q moved by %.3g over the second half of the records and %.3g over the quarter before (%d records); min q_T = %.3g", m2, m1, J+1, qmin)
	switch {
	case m2 <= weightRoundingFloor:
		return theorems.Compare(m2, WeightLimitBound, "weights at their limit to rounding; "+detail)
	case m2 >= m1:
		return theorems.Compare(math.Inf(1), WeightLimitBound, "weights do not converge: "+detail)
	case m2 > m1/2 || m2 > WeightLimitBound:
		return theorems.Undecided("weights still converging when the budget ran out: %s", detail)
	}
	return theorems.Compare(m2, WeightLimitBound, detail)
}

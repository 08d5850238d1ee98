package margins

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// MonotoneResolution is how far below γ̃'s growth the summed numerical error
// bound of a trajectory must stay for a monotonicity check to decide: an
// order of magnitude ("an integrator whose local error is far below the
// increments of γ̃", catalog LL-4.1). Above it the check is inconclusive.
const MonotoneResolution = 0.1

// TrajectoryCase is a recorded trajectory of an objective: the case of the
// monotonicity checks (LL-4.1, LL-F, LL-G, LL-4.2).
type TrajectoryCase struct {
	Obj *train.Objective
	// Records are consecutive steps (Config.Every = 1) with θ kept
	// (Config.KeepTheta) and, for an integrator, LocalError.
	Records []train.Record
	// ExactSteps says the records are steps of a map (gradient descent),
	// exact by construction: MarginMonotone then bounds only rounding.
	// Otherwise they are an integrated flow, and MarginMonotone re-integrates
	// every step after t₀ independently (flowcompanion.go).
	ExactSteps bool
	// Gaps allows ExactSteps records that are not consecutive steps (a run
	// recorded outside the engine, package check): a quantity
	// non-decreasing at every step is non-decreasing between any two
	// records, so each pair of records is checked as one step and the
	// details name the records' own steps.
	Gaps bool
	// Tol is the integrator's declared local error tolerance, the source
	// of the flow premise's bound on the recorded flow times (flowtime.go;
	// 0: none declared, the times are not witnessed); unused with
	// ExactSteps.
	Tol float64
	// Degree, Margin, MultiHomogeneous, BlockDegrees are as in MarginCase.
	Degree           float64
	Margin           losses.Margin
	MultiHomogeneous bool
	BlockDegrees     []float64
}

// point is one record re-measured by a monotonicity check.
type point struct {
	step      int
	logLoss   float64
	sep       bool
	logGamma  float64   // log γ̃ (or log γ̂)
	gradBound float64   // upper bound on ‖∇_θ log γ̃‖
	round     float64   // rounding bound on log γ̃
	localErr  float64   // integrator error of the step(s) that led here
	logObj    float64   // log F, F = 𝓛 + R: the companion's clock
	dir       []float64 // Dir = ∇log F (separated points only)
	logScale  float64   // log ρ^L or log Π‖w_i‖^{k_i}
	rho       float64
	qmin      float64
	dirNorm   float64
}

// measure re-evaluates every record: log γ̃ = log g(u) − Σ k_i log ρ_i, the
// bound ‖∇ log γ̃‖ ≤ (g′/g)‖Dir‖ + √(Σ k_i²/ρ_i²) (∇u = −Dir, ∇ log ρ_i =
// w_i/ρ_i²), and the rounding bound MarginRounding·((g′/g)(u + log N) + Σk_i).
func (c *TrajectoryCase) measure(m losses.Margin, blocks []models.Block, ks []float64) ([]point, *theorems.Verdict) {
	pts := make([]point, len(c.Records))
	th := losses.LogThreshold(m)
	logN := math.Log(float64(c.Obj.Data.N))
	var sumK float64
	for _, k := range ks {
		sumK += k
	}
	for i, r := range c.Records {
		if r.Theta == nil {
			v := theorems.Invalid(errors.New("theorems: monotonicity checks need θ in every record (Config.KeepTheta)"))
			return nil, &v
		}
		if i > 0 && r.Step != c.Records[i-1].Step+1 && !(c.Gaps && c.ExactSteps && r.Step > c.Records[i-1].Step) {
			v := theorems.Invalid(fmt.Errorf("theorems: records must be consecutive steps (Config.Every = 1), got %d after %d", r.Step, c.Records[i-1].Step))
			return nil, &v
		}
		ev, err := c.Obj.Evaluate(r.Theta, true)
		if err != nil {
			v := theorems.Invalid(err)
			return nil, &v
		}
		p := point{step: r.Step, logLoss: ev.LogLoss, sep: ev.LogLoss < th, localErr: r.LocalError,
			rho: floats.Norm(r.Theta, 2), qmin: ev.QMin, dirNorm: floats.Norm(ev.Dir, 2), logObj: ev.LogObjective}
		if p.sep {
			p.dir = append([]float64(nil), ev.Dir...)
		}
		p.logScale = train.LogBlockScale(r.Theta, blocks, ks)
		var inv2 float64
		for j, b := range blocks {
			rb := floats.Norm(r.Theta[b.Offset:b.Offset+b.Len], 2)
			inv2 += ks[j] * ks[j] / (rb * rb)
		}
		p.logGamma = math.NaN()
		if p.sep {
			u := -ev.LogLoss
			gp := m.GPrime(u) / m.G(u)
			p.logGamma = train.LogBlockSmoothedMargin(m, ev.LogLoss, r.Theta, blocks, ks)
			p.gradBound = gp*p.dirNorm + math.Sqrt(inv2)
			p.round = MarginRounding * (gp*(u+logN) + sumK)
		}
		pts[i] = p
	}
	return pts, nil
}

// firstSeparated returns the index of the first separated point (t₀), or −1.
func firstSeparated(pts []point) int {
	for i, p := range pts {
		if p.sep {
			return i
		}
	}
	return -1
}

// MarginMonotone checks LL-4.1 (Thm 4.1 / A.7), and with the cross-entropy
// loss LL-F (App. F) and with MultiHomogeneous LL-G (Lemma G.2), on a
// recorded trajectory: after t₀ (the first record with 𝓛 < ℓ(b_f)),
//
//  1. γ̃ never decreases by more than the trajectory's own numerical error:
//     between consecutive records k, k+1,
//     log γ̃_{k+1} ≥ log γ̃_k − (max_j ‖∇ log γ̃‖_j · b_{k+1} + rounding),
//     with b_{k+1} the step's independent error bar: the distance from
//     θ_{k+1} to the exact path through θ_k, measured by re-integrating the
//     step with a companion method (RK4 in λ = log F, flowcompanion.go),
//     plus the companion's own uncertainty (0 with ExactSteps: gradient
//     descent's steps are exact maps). When on at least half of the steps
//     after t₀ the measured distance, less that uncertainty, exceeds
//     IntegratorErrorFactor times the integrator's own estimate
//     (Record.LocalError), the case is violated: the integrator
//     under-reports its error, and nothing it recorded can be trusted.
//     The recorded flow times are re-integrated on a sample of the steps
//     (the flow premise, flowtime.go): beyond what the declared tolerance
//     Tol allows, on average over the sample (its largest gap left out),
//     the case is violated (not the gradient flow);
//  2. the data stay separated (γ̃ stays defined), 𝓛 does not increase and ρ
//     does not decrease beyond the same error bound (dt log ρ > 0, Lemma B.1);
//  3. at the end 0 ≤ γ̄ − γ̃ ≤ sup g′·log N/ρ^L (LL-A5; plus log(C−1)/ρ^L for
//     cross-entropy), a bound that shrinks as ρ → ∞, and the run moved: log 𝓛 and ρ strictly past their t₀
//     values (𝓛 → 0, ρ → ∞ can only be shown as a trend in finite time).
//
// The statistic is the worst decrease of log γ̃ relative to its error bound;
// it holds at ≤ 1. The check is inconclusive when the trajectory never
// separates or when the summed error bounds are not far below γ̃'s total
// growth (MonotoneResolution): the integrator did not resolve γ̃.
func MarginMonotone(c TrajectoryCase) theorems.Verdict {
	m, blocks, ks, bad := (&MarginCase{Obj: c.Obj, Theta: firstTheta(c.Records, c.Obj), Degree: c.Degree, Margin: c.Margin,
		MultiHomogeneous: c.MultiHomogeneous, BlockDegrees: c.BlockDegrees}).setup()
	if bad != nil {
		return *bad
	}
	pts, bad := c.measure(m, blocks, ks)
	if bad != nil {
		return *bad
	}
	t0 := firstSeparated(pts)
	if t0 < 0 || t0 >= len(pts)-1 {
		return theorems.Undecided("the trajectory has no step after separation (𝓛 < ℓ(b_f)): t₀ not reached")
	}
	worst, worstDetail := math.Inf(-1), ""
	var at *theorems.Span
	var sumBound float64
	var excess []float64 // (dev − δ − rounding)/e_k of every step after t₀
	var comp *flowCompanion
	if !c.ExactSteps {
		comp = newFlowCompanion(c.Obj, len(c.Records[t0].Theta))
	}
	for k := t0; k+1 < len(pts); k++ {
		p, q := pts[k], pts[k+1]
		if !q.sep {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: 1, Detail: fmt.Sprintf(
				"step %d: the loss rose back to log 𝓛 = %.6g ≥ log ℓ(b_f) after t₀ = step %d (γ̃ dropped from %.6g to undefined)",
				q.step, q.logLoss, pts[t0].step, math.Exp(p.logGamma))}
		}
		errBar := 0.0 // an exact map: rounding only
		if comp != nil {
			sc, err := comp.step(c.Records[k].Theta, c.Records[k+1].Theta, p.dir, p.logObj, q.logObj, IntegratorErrorFactor*q.localErr)
			if err != nil {
				return theorems.Undecided("step %d→%d: the independent re-integration failed: %v", p.step, q.step, err)
			}
			excess = append(excess, sc.excess(q.localErr))
			errBar = sc.bar()
		}
		bound := math.Max(p.gradBound, q.gradBound)*errBar + p.round + q.round
		sumBound += bound
		if r := (p.logGamma - q.logGamma) / bound; r > worst || math.IsNaN(r) {
			worst, at = r, &theorems.Span{From: p.step, To: q.step}
			worstDetail = fmt.Sprintf("step %d→%d: log γ̃ %.15g → %.15g (Δ = %.3g, error bound %.3g from an independent error bar %.3g; the integrator reported %.3g)",
				p.step, q.step, p.logGamma, q.logGamma, q.logGamma-p.logGamma, bound, errBar, q.localErr)
			if !(worst <= 1) {
				return theorems.Verdict{Status: theorems.Violated, Statistic: worst, Bound: 1, Detail: "γ̃ decreased beyond the error bound: " + worstDetail, Worst: at}
			}
		}
		// 𝓛 non-increasing (d𝓛/dt = −‖∇𝓛‖²) and ρ non-decreasing (Lemma
		// B.1), up to the step's error bar b: |Δ log 𝓛| ≤ ‖Dir‖·b, |Δρ| ≤ b.
		if d := q.logLoss - p.logLoss; d > math.Max(p.dirNorm, q.dirNorm)*errBar+MarginRounding*(1+math.Abs(q.logLoss)) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: 1, Detail: fmt.Sprintf(
				"step %d: log 𝓛 increased by %.3g (from %.6g), beyond the step's error bound", q.step, d, p.logLoss)}
		}
		if d := p.rho - q.rho; d > errBar+MarginRounding*q.rho {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: 1, Detail: fmt.Sprintf(
				"step %d: ρ decreased by %.3g (from %.6g) after t₀; LL Lemma B.1 has d/dt log ρ > 0", q.step, d, p.rho)}
		}
	}
	// The integrator's own estimate against the re-integration: the median
	// step decides (IntegratorErrorFactor says why not every step).
	integrator := ""
	if comp != nil {
		mx := slices.Max(excess)
		med := numerics.Median(excess)
		if med > IntegratorErrorFactor {
			return theorems.Verdict{Status: theorems.Violated, Statistic: med / IntegratorErrorFactor, Bound: 1, Detail: fmt.Sprintf(
				"the integrator under-reports its error: on at least half of the %d steps after t₀ an independent re-integration (RK4 in log F) puts θ farther from the flow through the previous point than %g× the reported local error (excess over the report: median %.3g, largest %.3g)",
				len(excess), float64(IntegratorErrorFactor), med, mx)}
		}
		integrator = fmt.Sprintf("; independent step error over the reported one: median %.3g, largest %.3g (≤ %g)", med, mx, float64(IntegratorErrorFactor))
		bad, times := flowTimePremise(c.Obj, c.Records, t0, c.Tol)
		if bad != nil {
			return *bad
		}
		integrator += "; flow times: " + times
	}
	first, last := pts[t0], pts[len(pts)-1]
	growth := last.logGamma - first.logGamma
	if !(last.logLoss < first.logLoss) || !(last.rho > first.rho) {
		return theorems.Undecided("the run did not move past t₀: log 𝓛 %.6g → %.6g, ρ %.6g → %.6g", first.logLoss, last.logLoss, first.rho, last.rho)
	}
	// End: LL-A5 with the multi-homogeneous scale when asked. For
	// cross-entropy 𝓛 = Σ ℓ(q̃_n) with q_n − log(C−1) ≤ q̃_n ≤ q_n (LL App. F),
	// which adds log(C − 1) to the gap's bound.
	u := -last.logLoss
	extra := 0.0
	if c.Obj.Loss.Kind() == losses.MultiClass {
		extra = math.Log(float64(c.Obj.Model.Out() - 1))
	}
	fq := m.F(last.qmin)
	logN := math.Log(float64(c.Obj.Data.N))
	gsup := supGPrime(m, math.Max(m.F(m.BF()), m.F(math.Max(last.qmin-extra, m.BF()))-logN), fq)
	gap := (last.qmin - m.G(u)) / math.Exp(last.logScale)
	a5 := (gsup*logN + extra) / math.Exp(last.logScale)
	tolGap := MarginRounding * (1 + math.Abs(last.qmin) + u) / math.Exp(last.logScale)
	if gap < -tolGap || gap > a5+tolGap {
		return theorems.Verdict{Status: theorems.Violated, Statistic: worst, Bound: 1, Detail: fmt.Sprintf(
			"end: γ̄ − γ̃ = %.6g outside [0, sup g′·log N/ρ^L = %.6g] (LL-A5)", gap, a5)}
	}
	if !(sumBound <= MonotoneResolution*growth) {
		return theorems.Undecided("the summed error bound %.3g of log γ̃ is not far below its growth %.3g after t₀ (resolution %g): tighten the integrator", sumBound, growth, MonotoneResolution)
	}
	v := theorems.Compare(worst, 1, fmt.Sprintf("%d steps after t₀ = step %d: log γ̃ grew by %.6g (summed error bound %.3g); log 𝓛 %.6g → %.6g, ρ %.6g → %.6g; end γ̄ − γ̃ = %.3g ≤ %.3g%s; worst %s",
		len(pts)-1-t0, first.step, growth, sumBound, first.logLoss, last.logLoss, first.rho, last.rho, gap, a5, integrator, worstDetail))
	v.Worst = at
	return v
}

// firstTheta returns the first record's θ (or a zero vector), only to let
// MarginCase.setup validate shapes.
func firstTheta(rs []train.Record, obj *train.Objective) []float64 {
	if len(rs) > 0 && rs[0].Theta != nil {
		return rs[0].Theta
	}
	if obj == nil {
		return nil
	}
	return make([]float64, obj.Model.NumParams())
}

// GDMarginMonotone checks LL-4.2 (Thm 4.2 / E.2, Lemma E.1(a)) on a
// gradient-descent trajectory of the exponential loss on a C²-smooth
// homogeneous model: with t₀ the first record with 𝓛 < 1 and γ̂ the margin of
// LL App. E.2 built from 𝓛(t₀) (train.GDMargin),
//
//	γ̂(t+1) ≥ γ̂(t) for every step after t₀, and γ̂ < γ̃ ≤ γ̄ at every record.
//
// A step whose loss rises above 𝓛(t₀) leaves γ̂'s domain: violated. The
// statistic is the worst decrease of log γ̂ relative to its rounding bound
// (MarginRounding as for γ̃, plus the quadrature error estimate of γ̂'s
// integral); it holds at ≤ 1. Inconclusive when the summed rounding bound is
// not far below γ̂'s growth.
func GDMarginMonotone(c TrajectoryCase) theorems.Verdict {
	if c.Obj == nil {
		return theorems.Invalid(errors.New("theorems: trajectory case needs an objective"))
	}
	if m, ok := losses.DeclaredMargin(c.Obj.Loss); !ok || c.Obj.Loss.Kind() != losses.Binary || !losses.IsExponential(m) {
		return theorems.Assumption("(A3) LL Thm 4.2 / App. E is stated for the exponential loss, got %s", c.Obj.Loss.Name())
	}
	if k, ok := c.Obj.Model.(interface{ Kinked() bool }); ok && k.Kinked() {
		return theorems.Assumption("(S1) C²-smoothness: model %s is only piecewise smooth (ReLU, LeakyReLU, ReLU², max pooling)", c.Obj.Model)
	}
	m, blocks, ks, bad := (&MarginCase{Obj: c.Obj, Theta: firstTheta(c.Records, c.Obj), Degree: c.Degree}).setup()
	if bad != nil {
		return *bad
	}
	pts, bad := c.measure(m, blocks, ks)
	if bad != nil {
		return *bad
	}
	t0 := firstSeparated(pts)
	if t0 < 0 || t0 >= len(pts)-1 {
		return theorems.Undecided("the trajectory has no step after separation (𝓛 < 1): t₀ not reached")
	}
	L := ks[0]
	gm, err := train.NewGDMargin(pts[t0].logLoss, L)
	if err != nil {
		return theorems.Invalid(err)
	}
	logHat := make([]float64, len(pts))
	roundHat := make([]float64, len(pts))
	for k := t0; k < len(pts); k++ {
		p := pts[k]
		lh, qerr, err := gm.LogGammaHat(p.logLoss, p.rho)
		if errors.Is(err, train.ErrAboveT0) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: 1, Detail: fmt.Sprintf(
				"step %d: log 𝓛 = %.6g rose above log 𝓛(t₀) = %.6g (t₀ = step %d): γ̂ left its domain, GD left the monotone regime",
				p.step, p.logLoss, pts[t0].logLoss, pts[t0].step)}
		}
		if err != nil {
			return theorems.Invalid(err)
		}
		logHat[k], roundHat[k] = lh, p.round+qerr
		// γ̂ < γ̃ ≤ γ̄ (Lemma E.1(a) and LL-A5).
		if !(lh < p.logGamma) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: 1, Detail: fmt.Sprintf("step %d: log γ̂ = %.15g is not below log γ̃ = %.15g", p.step, lh, p.logGamma)}
		}
		if gbar := math.Log(p.qmin) - p.logScale; p.logGamma > gbar+p.round {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: 1, Detail: fmt.Sprintf("step %d: log γ̃ = %.15g exceeds log γ̄ = %.15g", p.step, p.logGamma, gbar)}
		}
	}
	worst, worstDetail := math.Inf(-1), ""
	var at *theorems.Span
	var sumBound float64
	for k := t0; k+1 < len(pts); k++ {
		bound := roundHat[k] + roundHat[k+1]
		sumBound += bound
		if r := (logHat[k] - logHat[k+1]) / bound; r > worst || math.IsNaN(r) {
			worst, at = r, &theorems.Span{From: pts[k].step, To: pts[k+1].step}
			worstDetail = fmt.Sprintf("step %d→%d: log γ̂ %.15g → %.15g (Δ = %.3g, rounding bound %.3g)",
				pts[k].step, pts[k+1].step, logHat[k], logHat[k+1], logHat[k+1]-logHat[k], bound)
		}
	}
	growth := logHat[len(pts)-1] - logHat[t0]
	if worst > 1 {
		return theorems.Verdict{Status: theorems.Violated, Statistic: worst, Bound: 1, Detail: "γ̂ decreased: " + worstDetail, Worst: at}
	}
	if !(sumBound <= MonotoneResolution*growth) {
		return theorems.Undecided("the summed rounding bound %.3g of log γ̂ is not far below its growth %.3g after t₀", sumBound, growth)
	}
	v := theorems.Compare(worst, 1, fmt.Sprintf("%d steps after t₀ = step %d (log 𝓛(t₀) = %.6g): log γ̂ grew by %.6g, γ̂ < γ̃ ≤ γ̄ throughout; worst %s",
		len(pts)-1-t0, pts[t0].step, pts[t0].logLoss, growth, worstDetail))
	v.Worst = at
	return v
}

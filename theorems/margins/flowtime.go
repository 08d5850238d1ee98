package margins

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// The flow premise: the recorded flow times are the gradient flow's (LL-4.1,
// LL-F, LL-G).
//
// The companion (flowcompanion.go) witnesses the path: θ_{k+1} lies on the
// flow through θ_k. It does not witness the clock, and an integrator can
// follow the right path at the wrong speed (a tableau whose solution
// weights do not sum to one: the registry's "tableau-b1-misplaced"). A run
// whose times t are wrong is not the gradient flow it says it is, whatever
// its path, so the flow claims check the times too, recomputed from their
// definition and not from the integrator's clock.
//
// Definition. Along the flow of F = 𝓛 + R, dF/dt = −‖∇F‖², so with
// λ = log F and Dir = ∇log F,
//
//	dt/dλ = −1/(F‖Dir‖²) = −e^{−λ}/‖Dir‖²,
//
// the energy identity F(t₁) − F(t₀) = −∫‖∇F‖² dt read as the time it takes.
// With μ = λ_k − λ (μ from 0 to D = λ_k − λ_{k+1} > 0) the gap's flow time
// is Δt* = e^{−λ_k}·τ(D), where (θ, τ) solve
//
//	dθ/dμ = −Dir(θ)/‖Dir(θ)‖²,  dτ/dμ = e^{μ}/‖Dir(θ)‖²,  θ(0) = θ_k, τ(0) = 0,
//
// integrated with the checks' RK4 (numerics.RK4Steps, in n and 2n equal
// steps: step doubling, n = 1, 2, 4, … up to flowTimeMaxSteps) from the
// recorded θ_k to the recorded θ_{k+1}'s level of F, both re-evaluated.
// Nothing of it is the integrator's: not its clock (ζ = log(t + c) in the
// time s), not its method, not its tableau.
//
// Threshold. The recorded log Δt_rec (Record.LogEta) may differ from log Δt*
// by what the declared tolerance Tol lets the integrator get wrong in one
// step, plus the witness's own error, and no more (flowTimeAllowed):
//
//   - the integrator accepts a step when the root-mean-square of its error
//     estimate, per coordinate relative to Tol(1 + |y_i|), is at most 1 over
//     the p + 1 coordinates (θ and ζ): so each coordinate's error is at most
//     √(p+1)·Tol(1 + |y_i|). An error e_ζ in ζ_{k+1} = log(t_{k+1} + c)
//     moves Δt by e_ζ·e^{ζ_{k+1}} (c = 1/F(θ₀), recomputed from the first
//     record); an error e_θ in θ_{k+1} moves its level of F by at most
//     ‖Dir_{k+1}‖·‖e_θ‖, and the time to reach it by that over
//     |dλ/dt| = F_{k+1}‖Dir_{k+1}‖²;
//   - the level λ of either record carries the rounding MarginRounding·(1+|λ|),
//     which moves the end the same way;
//   - the witness's own error is its step-doubling difference |τ_n − τ_2n|
//     (about 15 times the error of τ_2n when the field is smooth: RK4 is of
//     order 4).
//
// Rule. A correct integrator meets the bound on every gap where the field
// is smooth along the step: on a model without kinks (not
// models.Network.Kinked: the linear model, ReLU³, x², deep linear nets) one
// gap beyond its bound fails the premise (the statistic is the largest
// ratio mismatch/allowed, against 1). Where the net has kinks (ReLU, ReLU²,
// max pooling) the integrator's estimate is only asymptotic on a step
// that crosses one (IntegratorErrorFactor), and the premise fails when more
// than half of the sampled gaps exceed (the statistic is their median
// ratio), the companion's rule.
//
// Measured with every gap after t₀ re-integrated (not only the sample), on
// the claims' flows at the quick budget (Tol = 1e-9; LL-4.1, LL-F, LL-G,
// 20 cases each at seeds 1–4, 240 flows): on the correct integrator the
// 208 flows of smooth nets have no gap above 1 in 33 599 (largest ratio
// 0.084), the 32 of ReLU² nets 11 in 4 584, at most 1.4% of a flow's (10
// flows with one or more, largest 2.63, at kink crossings where the
// witness refines to n = 32).
// Under the tableau fault (enginefault.MisplacedB1) every flow of a smooth
// net has gaps above 1 (largest ratio ≥ 4.5; 41.5% to 100% of its gaps),
// every flow of a ReLU² net 95.8% to 100% of its gaps. A rule of a quarter
// of the gaps for every net missed two linear flows (LL-G seed 4, LL-F
// seed 8): on their long straight stretches the faulty step is the exact
// flow at another step in s, θ and clock together, which no witness of the
// records can tell from the right one, and as few as their first 15% of
// gaps show the fault. The margin per gap is modest because the misplaced
// weight also moves the seventh stage, which the error row reads: the
// estimate grows like h², the controller shrinks the step until it meets
// Tol, and what is left in the clock is a few times the tolerance's
// allowance, with one sign. verify's counts: docs/trust.md.

// flowTimeSamples is how many record gaps after t₀ the flow premise
// re-integrates, evenly spread (all when there are fewer): the witness costs
// from 12 to 4·(2·flowTimeMaxSteps − 1) field evaluations a gap (n = 1 for
// the first coarse solution, then 2, 4, …), above the companion's 4 a
// step, so it is sampled; the fault it is for acts on every step.
const flowTimeSamples = 32

// flowTimeMaxSteps caps the witness's step doubling (n = 1 … 64): past it the
// step-doubling difference stays in the bound as it is (a wider bound,
// never a narrower one).
const flowTimeMaxSteps = 64

// flowTimeResolution is how far below the allowed mismatch the witness's own
// uncertainty must fall before it stops refining: the witness then adds at
// most a tenth to the bound it judges with.
const flowTimeResolution = 0.1

// flowTimeMaxLevels bounds the fall of log F over one gap that the witness
// integrates: its integrand carries e^{μ}, μ up to the fall, which float64
// holds up to about 709.
const flowTimeMaxLevels = 700

// flowTimeGap is the flow premise on one record gap.
type flowTimeGap struct {
	step     int     // the record the gap leads to
	mismatch float64 // |log Δt_rec − log Δt*|
	allowed  float64 // flowTimeAllowed plus the witness's own uncertainty
	logDt    float64 // log Δt*
	steps    int     // the witness's n (the fine solution has 2n)
}

// ratio is mismatch/allowed (+Inf for NaN: a witness that cannot tell).
func (g flowTimeGap) ratio() float64 {
	r := g.mismatch / g.allowed
	if math.IsNaN(r) {
		return math.Inf(1)
	}
	return r
}

// flowTimePremise checks the recorded flow times of the records rs against
// their definition on flowTimeSamples gaps after t₀ (t0, the index of the
// first separated record), the levels of F re-evaluated from θ here. It
// returns a violated or undecided verdict, or nil and a summary for the
// holding verdict's detail. A case without a declared tolerance (Tol 0: a
// flow recorded outside the engine, package check) is not witnessed: the
// bound is the declared tolerance's, and no other is taken.
func flowTimePremise(obj *train.Objective, rs []train.Record, t0 int, tol float64) (*theorems.Verdict, string) {
	if tol == 0 {
		return nil, "not witnessed (no declared tolerance)"
	}
	if !(tol > 0 && tol < 1) {
		v := theorems.Invalid(fmt.Errorf("theorems: the flow's declared tolerance must be in (0, 1), got %v", tol))
		return &v, ""
	}
	if rs[0].Step != 0 {
		v := theorems.Invalid(fmt.Errorf("theorems: the flow premise needs the flow's first record (step 0, for its clock's constant 1/F(θ₀)), got step %d first", rs[0].Step))
		return &v, ""
	}
	w := newFlowTimeWitness(obj, len(rs[t0].Theta))
	first, err := w.levelAt(rs[0].Theta)
	if err != nil {
		v := theorems.Undecided("the flow-time witness failed at step 0: %v", err)
		return &v, ""
	}
	logC := -first.logObj
	gaps := len(rs) - 1 - t0
	n := min(gaps, flowTimeSamples)
	var checked []flowTimeGap
	for j := 0; j < n; j++ {
		k := t0 + j*(gaps-1)/max(n-1, 1)
		g, err := w.gapAt(rs[k], rs[k+1], logC, tol)
		if errors.Is(err, errNoDescent) {
			continue // the monotonicity checks judge a step that did not lower F
		}
		if err != nil {
			v := theorems.Undecided("step %d→%d: the flow-time witness failed: %v", rs[k].Step, rs[k+1].Step, err)
			return &v, ""
		}
		checked = append(checked, g)
	}
	if len(checked) < 2 {
		v := theorems.Undecided("the flow premise found %d steps after t₀ that lowered F to re-integrate, fewer than 2", len(checked))
		return &v, ""
	}
	// A smooth field: any gap beyond its bound fails the premise (the
	// statistic is the largest ratio); a kinked one: more than half (the
	// ratio of rank ⌊n/2⌋ + 1 from the top).
	slices.SortFunc(checked, func(a, b flowTimeGap) int { return cmp.Compare(b.ratio(), a.ratio()) })
	over := 0
	for _, g := range checked {
		if g.ratio() > 1 {
			over++
		}
	}
	rule, rank := "one fails a net without kinks", 0
	if k, ok := obj.Model.(interface{ Kinked() bool }); ok && k.Kinked() {
		rule, rank = "more than half fail a kinked net", len(checked)/2
	}
	stat, worst := checked[rank].ratio(), checked[0]
	detail := fmt.Sprintf("%d gaps re-integrated by RK4 in log F, |log Δt − log Δt*| over its bound from Tol %g: %d above 1 (%s), largest %.3g (step %d: %.3g against %.3g, witness n = %d)",
		len(checked), tol, over, rule, worst.ratio(), worst.step, worst.mismatch, worst.allowed, worst.steps)
	if stat > 1 {
		return &theorems.Verdict{Status: theorems.Violated, Statistic: stat, Bound: 1, Detail: "the recorded flow times are not the gradient flow's (dt = −dλ/(F‖Dir‖²)): " + detail}, ""
	}
	return nil, detail
}

// errNoDescent: a gap along which F did not fall, where λ is no clock.
var errNoDescent = errors.New("theorems: F did not fall along the gap")

// flowTimeWitness holds the re-integration's buffers.
type flowTimeWitness struct {
	obj       *train.Objective
	p         int
	y, coarse []float64
	err       error // the first evaluation error of the current integration
}

func newFlowTimeWitness(obj *train.Objective, p int) *flowTimeWitness {
	return &flowTimeWitness{obj: obj, p: p, y: make([]float64, p+1), coarse: make([]float64, p+1)}
}

// field is the ODE in μ of the state (θ, τ) (flowTime's comment).
func (w *flowTimeWitness) field(dst []float64, mu float64, y []float64) {
	ev, err := w.obj.Evaluate(y[:w.p], true)
	var n2 float64
	if err == nil {
		n2 = floats.Dot(ev.Dir, ev.Dir)
		if !(n2 > 0) || math.IsInf(n2, 0) {
			err = fmt.Errorf("the flow's field is undefined (‖∇log F‖² = %v)", n2)
		}
	}
	if err != nil {
		if w.err == nil {
			w.err = err
		}
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	floats.ScaleTo(dst[:w.p], -1/n2, ev.Dir)
	dst[w.p] = math.Exp(mu) / n2
}

// integrate sets y to (θ, τ) at μ = d from (from, 0) in n RK4 steps.
func (w *flowTimeWitness) integrate(y, from []float64, d float64, n int) error {
	copy(y, from)
	y[w.p] = 0
	w.err = nil
	numerics.RK4Steps(w.field, y, 0, d, n)
	return w.err
}

// level is what the witness reads of F at a recorded θ: λ = log F and
// ‖Dir‖ = ‖∇log F‖.
type level struct{ logObj, dirNorm float64 }

// levelAt evaluates F's level at theta.
func (w *flowTimeWitness) levelAt(theta []float64) (level, error) {
	ev, err := w.obj.Evaluate(theta, true)
	if err != nil {
		return level{}, err
	}
	return level{logObj: ev.LogObjective, dirNorm: floats.Norm(ev.Dir, 2)}, nil
}

// gapAt is gap with the records' levels evaluated here.
func (w *flowTimeWitness) gapAt(a, b train.Record, logC, tol float64) (flowTimeGap, error) {
	pa, err := w.levelAt(a.Theta)
	if err != nil {
		return flowTimeGap{}, err
	}
	pb, err := w.levelAt(b.Theta)
	if err != nil {
		return flowTimeGap{}, err
	}
	return w.gap(a, b, pa, pb, logC, tol)
}

// gap re-integrates the flow time from record a to record b (pa, pb their
// levels; logC = log c, c = 1/F(θ₀)).
func (w *flowTimeWitness) gap(a, b train.Record, pa, pb level, logC, tol float64) (flowTimeGap, error) {
	d := pa.logObj - pb.logObj
	round := MarginRounding * (2 + math.Abs(pa.logObj) + math.Abs(pb.logObj))
	if !(d > round) {
		return flowTimeGap{}, errNoDescent
	}
	if d > flowTimeMaxLevels {
		return flowTimeGap{}, fmt.Errorf("log F falls by %.4g over one gap, beyond the witness's range (%g: e^{μ} must stay finite)", d, float64(flowTimeMaxLevels))
	}
	if err := w.integrate(w.coarse, a.Theta, d, 1); err != nil {
		return flowTimeGap{}, err
	}
	g := flowTimeGap{step: b.Step}
	for n := 2; ; n *= 2 {
		if err := w.integrate(w.y, a.Theta, d, n); err != nil {
			return flowTimeGap{}, err
		}
		tau := w.y[w.p]
		if !(tau > 0) || math.IsInf(tau, 0) {
			return flowTimeGap{}, fmt.Errorf("the re-integrated time is %v", tau)
		}
		unc := math.Abs(w.coarse[w.p]-tau) / tau
		g.logDt = math.Log(tau) - pa.logObj
		allowed := flowTimeAllowed(b, pb, d, tau, g.logDt, logC, round, tol)
		g.mismatch, g.allowed, g.steps = math.Abs(b.LogEta-g.logDt), allowed+unc+MarginRounding, n
		if unc <= flowTimeResolution*allowed || n >= flowTimeMaxSteps {
			return g, nil
		}
		w.y, w.coarse = w.coarse, w.y
	}
}

// flowTimeAllowed is the relative error of the gap's Δt that the declared
// tolerance tol (and the levels' rounding) permits the integrator, as in
// the file's comment. With x = e_ζ/w_ζ and y = e_θ/w_θ the step's errors
// in the integrator's own weights w = tol(1 + |·|), its acceptance rule is
// x² + ‖y‖² ≤ p + 1, and the relative error of Δt is at most
// |x|·a + ‖y‖·b with
//
//	a = w_ζ·e^{ζ_b}/Δt*,  b = w_θ,max·‖Dir_b‖/(F_b‖Dir_b‖²Δt*),
//
// whose largest value under the rule is √(p+1)·√(a² + b²) (Cauchy–Schwarz);
// the levels' rounding adds round/(F_b‖Dir_b‖²Δt*). Δt* = e^{−λ_a}τ, so
// that F_b·Δt* = e^{−d}τ.
func flowTimeAllowed(b train.Record, pb level, d, tau, logDt, logC, round, tol float64) float64 {
	zeta := numerics.LogAddExp(b.LogT, logC)
	var thMax float64
	for _, v := range b.Theta {
		thMax = math.Max(thMax, math.Abs(v))
	}
	perTime := math.Exp(d) / (pb.dirNorm * pb.dirNorm * tau) // 1/(F_b‖Dir_b‖²Δt*)
	a := tol * (1 + math.Abs(zeta)) * math.Exp(zeta-logDt)
	bb := tol * (1 + thMax) * pb.dirNorm * perTime
	return math.Sqrt(float64(len(b.Theta)+1))*math.Hypot(a, bb) + round*perTime
}

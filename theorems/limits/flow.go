package limits

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// marginTail is what the linear-limit check (LinearLimit) knows of a binary
// margin loss ℓ(u), u = y⟨θ, x⟩: its slope −ℓ′(u) > 0 and curvature ℓ″(u),
// which the companion integration of GD's flow needs (logFlow), and its
// exponential tail −ℓ′(u) ~ c·e^{−u} (Soudry et al. 2018, Def. 2, the
// "tight exponential tail"), which sets the computed limit of the residual
// θ − ŵ log T.
type marginTail struct {
	name string
	// slope returns −ℓ′(u); curv returns ℓ″(u).
	slope, curv func(u float64) float64
	// c is the tail constant; expTail reports that −ℓ′(u)e^{u} → c. When
	// it is false (a polynomial tail, or a loss the check cannot name) the
	// limit is computed for the exponential tail e^{−u} all the same: the
	// check then compares the run with the theory whose hypothesis the
	// loss breaks.
	c       float64
	expTail bool
	// known reports that slope and curv are the loss's own; when false
	// they are the exponential model e^{−u} (a loss outside those the
	// check was validated on, tailOf).
	known bool
}

// tailDev returns −ℓ′(u) − c·e^{−u}, the loss's departure from its
// exponential tail (0 without one: the check then holds the run to the
// exponential model, see marginTail).
func (m *marginTail) tailDev(u float64) float64 {
	if !m.expTail {
		return 0
	}
	return m.slope(u) - m.c*math.Exp(-u)
}

// pull returns the tail model's −ℓ′(u): the loss's own slope when it has
// an exponential tail, c·e^{−u} otherwise.
func (m *marginTail) pull(u float64) float64 {
	if m.expTail {
		return m.slope(u)
	}
	return m.c * math.Exp(-u)
}

// tailOf returns the tail model of the loss l (a trajectory's Loss; nil
// when the run did not declare one), computed for the loss it declares
// (losses.DeclaredMargin): closed forms for exp and logistic, the Margin
// interface and a central difference for ZD's polynomial tail and formula
// losses (losses.Expr), and the exponential model for any other loss (the
// check is validated on the losses of losses.ByName; another PolyTail is a
// negative control of section C). The slopes and the tail constant are
// package losses' (tail.go).
func tailOf(l losses.Loss) *marginTail {
	name := ""
	if l != nil {
		name = l.Name()
	}
	m := &marginTail{name: name, slope: losses.ExpSlope, curv: losses.ExpSlope, c: 1}
	mg, ok := losses.DeclaredMargin(l)
	if !ok || l.Kind() != losses.Binary {
		return m
	}
	switch v := mg.(type) {
	case losses.Exponential:
		return &marginTail{name: name, slope: losses.ExpSlope, curv: losses.ExpSlope, c: 1, expTail: true, known: true}
	case losses.Logistic:
		return &marginTail{name: name, slope: losses.LogisticSlope, curv: losses.LogisticCurv, c: 1, expTail: true, known: true}
	case losses.PolyTail:
		if v != losses.ZDPolyTail() {
			return m
		}
	case *losses.Expr:
	default:
		return m
	}
	m.known = true
	m.slope = func(u float64) float64 { return losses.Slope(mg, u) }
	// ℓ″ by a central difference (losses.CurvStep): it enters the modified
	// equation's correction, a term ~1/t of the flow, and the budgets.
	m.curv = func(u float64) float64 { return losses.CentralCurv(m.slope, u) }
	if c, ok := losses.ExpTail(mg); ok {
		m.c, m.expTail = c, true
	}
	return m
}

// gdFlow is the flow that constant-step gradient descent follows on the
// weighted risk of a linear model, 𝓛(θ) = Σ_n q_n ℓ(⟨θ, z_n⟩), z_n = y_n x_n
// (or the multi-class constraint vectors): with V = −∇𝓛 = Σ_n q_n
// (−ℓ′(u_n)) z_n, u_n = ⟨θ, z_n⟩, GD's step θ ← θ + ηV is the explicit Euler
// step of dθ/dT = V (T = Σ η), and by backward error analysis (Hairer,
// Lubich & Wanner, Geometric Numerical Integration, §IX.1) it follows the
// modified flow
//
//	dθ/dT = V − (η/2)·V′V,   V′V = −∇²𝓛·V = −Σ_n q_n ℓ″(u_n)⟨z_n, V⟩ z_n,
//
// with a local error of order η³ per step instead of Euler's η². Soudry et
// al. (2018, proof of Thm 3) read the same flow in log time s = log T,
// dθ/ds = T·V: with θ = ŵ s + r the support vectors' terms balance ŵ and r
// tends to the computed offset (ResidualLimit). The flow is integrated here
// in s, where it is smooth and of size O(‖ŵ‖).
type gdFlow struct {
	z    *mat.Dense
	tail *marginTail
	eta  float64
	q    []float64 // weight of every row of z
	// scratch: margins, V, the correction Σ q ℓ″⟨z, V⟩z
	u, v, corr []float64
}

func newGDFlow(z *mat.Dense, tail *marginTail, eta float64) *gdFlow {
	n, d := z.Dims()
	return &gdFlow{z: z, tail: tail, eta: eta, u: make([]float64, n), v: make([]float64, d), corr: make([]float64, d)}
}

// velocity sets f.u to the margins at θ and f.v to V(θ), and returns the
// curvature bound Σ_n q_n ℓ″(u_n)‖z_n‖² ≥ ‖∇²𝓛(θ)‖.
func (f *gdFlow) velocity(theta []float64) float64 {
	n, _ := f.z.Dims()
	for i := range f.v {
		f.v[i] = 0
	}
	var h float64
	for k := 0; k < n; k++ {
		zk := f.z.RawRowView(k)
		f.u[k] = floats.Dot(zk, theta)
		if f.q[k] == 0 {
			continue
		}
		floats.AddScaled(f.v, f.q[k]*f.tail.slope(f.u[k]), zk)
		h += f.q[k] * f.tail.curv(f.u[k]) * floats.Dot(zk, zk)
	}
	return h
}

// field writes the modified field V − (η/2)V′V at θ into dst and returns
// ‖V′V‖ (GD's first-order departure from dθ/dT = V, per unit of η/2).
func (f *gdFlow) field(dst, theta []float64) float64 {
	n, _ := f.z.Dims()
	f.velocity(theta)
	copy(dst, f.v)
	corr := f.corr
	for i := range corr {
		corr[i] = 0
	}
	for k := 0; k < n; k++ {
		if f.q[k] == 0 {
			continue
		}
		zk := f.z.RawRowView(k)
		floats.AddScaled(corr, f.q[k]*f.tail.curv(f.u[k])*floats.Dot(zk, f.v), zk)
	}
	// −(η/2)V′V = +(η/2)Σ q ℓ″⟨z, V⟩z.
	floats.AddScaled(dst, f.eta/2, corr)
	return floats.Norm(corr, 2)
}

// flowSteps bounds the RK4 steps per unit of s: the log-time field's
// Jacobian has norm ≤ T·Σ q ℓ″‖z‖², and h·‖J‖ ≤ 1/20 keeps RK4's error
// (∝ (h‖J‖)⁴ per step) far below the budgets it is compared with; at least
// 20 steps per unit of s for the field's own variation (e^{s}).
const (
	flowStiffStep = 0.05
	flowMinSteps  = 20
	flowMaxSteps  = 200000
)

// The prediction over a segment first tries fewer steps than flowSteps
// asks for (1/16, then 1/4 of them, at least 4) and keeps that result when
// its error estimate ‖y_m − y_2m‖ is at most flowIntFrac of the segment's
// discretization and rounding budgets; otherwise it integrates with the
// full count, as before issue 28. The estimate is in the budget whatever
// the count, so the check stays sound; the fraction bounds how far the
// cheaper count moves the flow part's ratio dev/budget against the full
// one's: the budget by ≤ flowIntFrac relatively (both estimates are below
// it, RK4's error falling as h⁴: 16× the steps divide it by ~6·10⁴), the
// prediction by ≤ 1/15 of the estimate, so the ratio by at most
// flowIntFrac·(ratio + 1/15) absolutely: below the three digits the part
// prints near its bound 1. At 1/16 the step has h·‖J‖ ≤ 0.8, inside RK4's
// region of absolute stability (the half-disc |z| ≤ 2.5, Re z ≤ 0) and
// where its error still falls as h⁴ (RK4's stability function departs
// from e^{z} by 2·10⁻² at z = −1), so that step doubling estimates it. On
// the quick cases of ZD-B, ZD-T7, XY-P1 and LL-lin this takes 15–35% of
// the steps (theorems/limits, issue 28; docs/speed.md).
var flowCoarsen = [...]int{16, 4, 1}

// flowIntFrac is the fraction of a segment's discretization and rounding
// budgets that a cheaper step count's error estimate must stay below.
const flowIntFrac = 1e-4

// predict returns θ at s1 from θ0 at s0 along the modified flow, and the
// integrator's error estimate: the distance between the results with n and
// 2n steps (RK4's error at 2n steps is about 1/15 of it), n the fewest of
// predictLogTime's counts whose estimate is at most tol.
func (f *gdFlow) predict(theta0 []float64, s0, s1, tol float64) (pred []float64, errEst float64) {
	return predictLogTime(func(dst, th []float64) { f.field(dst, th) }, f.velocity(theta0), theta0, s0, s1, tol)
}

// predictLogTime returns θ at s1 from θ0 at s0 along dθ/ds = e^{s}F(θ),
// and the integrator's error estimate: the distance between the results
// with n and 2n classical Runge–Kutta steps (numerics.RK4; its error at
// 2n steps is about 1/15 of it). curv bounds ‖∂F/∂θ‖ at θ0; the full n
// follows flowStiffStep and flowMinSteps, and the cheaper counts of
// flowCoarsen are kept when their estimate is at most tol.
func predictLogTime(field func(dst, theta []float64), curv float64, theta0 []float64, s0, s1, tol float64) (pred []float64, errEst float64) {
	jac := math.Exp(s1) * curv
	n := int(math.Ceil((s1 - s0) * math.Max(flowMinSteps, jac/flowStiffStep)))
	n = min(max(n, 4), flowMaxSteps)
	// dθ/ds = e^{s}·F(θ): the flow dθ/dT = F(θ) read in log time s = log T,
	// where the flows of GD on separable data are smooth and of size
	// O(‖ŵ‖) (Soudry et al. 2018, proof of Thm 3).
	rhs := func(dst []float64, s float64, th []float64) {
		field(dst, th)
		floats.Scale(math.Exp(s), dst)
	}
	tried := 0
	for _, k := range flowCoarsen {
		m := max((n+k-1)/k, min(n, 4))
		if m == tried {
			continue // small n: the same count as the previous try
		}
		tried = m
		pred, errEst = numerics.RK4(rhs, theta0, s0, s1, &numerics.RK4Settings{Steps: m})
		if m == n || errEst <= tol {
			break
		}
	}
	return pred, errEst
}

// modifiedFlow is GD's modified flow of a linear-limit check (gdFlow for
// binary margin losses, ceFlow for the cross-entropy) under the weights
// it was last given: the size of its first-order correction at θ, and its
// prediction from log T = s0 to s1 with the integrator's error estimate
// (at most tol where flowMaxSteps allows, predictLogTime).
type modifiedFlow interface {
	velocity(theta []float64) float64
	field(dst, theta []float64) float64
	predict(theta0 []float64, s0, s1, tol float64) ([]float64, float64)
}

// flowTally accumulates the flow parts of the linear-limit checks
// (LinLimitBound's 4 and 6) segment by segment: the run's largest
// deviation from GD's modified flow under the recorded weights, over its
// budget, and how far the run and the recorded weights' flow lie from
// ERM's flow (uniform weights), over theirs.
type flowTally struct {
	flow    modifiedFlow
	setQ    func([]float64) // sets the flow's weights
	uniform []float64       // ERM's weights, of the records' largest sum
	eta     float64
	tmp     []float64

	worst, at, dev, bud float64 // part 4: the worst ratio, its log T, deviation and budget
	skipped, compared   int     // segments skipped (η‖∇²𝓛‖ > flowStepLimit) and compared
	ermFit, ermApart    float64 // part 6, in budgets
}

// newFlowTally returns an empty tally for flow (setQ sets its weights) of
// GD with step eta in d dimensions on n samples whose weights sum to at
// most total.
func newFlowTally(flow modifiedFlow, setQ func([]float64), eta, total float64, n, d int) *flowTally {
	f := &flowTally{flow: flow, setQ: setQ, uniform: make([]float64, n), eta: eta, tmp: make([]float64, d), worst: math.Inf(-1)}
	for i := range f.uniform {
		f.uniform[i] = total / float64(n)
	}
	return f
}

// segment returns GD's first-order discretization budget of the segment
// from record a to b under the weights q (0 when the run is not GD:
// notGD; the parts then read the records as a flow's) and its rounding
// (rows of the data), and compares the segment with the flow (add).
func (f *flowTally) segment(a, b *train.Record, q []float64, rows int, notGD bool) (disc, round float64) {
	dt := float64(b.Step - a.Step)
	f.setQ(q)
	curv := f.flow.velocity(a.Theta)
	disc = dt * f.eta * f.eta / 2 * math.Max(f.flow.field(f.tmp, a.Theta), f.flow.field(f.tmp, b.Theta))
	round = roundingBudget(dt, a.Theta, b.Theta, rows)
	if notGD {
		disc = 0
	}
	f.add(a, b, floats.Equal(q, f.uniform), curv, disc, round, dt)
	return disc, round
}

// add compares the segment from record a to b (dt steps of η) with the
// flow under the recorded weights (set by segment) and under uniform
// ones; uniform reports that the recorded weights are ERM's (the second
// comparison is then the first); curv is η‖∇²𝓛‖'s factor at a, disc GD's
// discretization budget under the recorded weights and round the
// segment's rounding.
func (f *flowTally) add(a, b *train.Record, uniform bool, curv, disc, round, dt float64) {
	flow, eta, tmp := f.flow, f.eta, f.tmp
	if eta*curv > flowStepLimit {
		f.skipped++
		return
	}
	pred, ierr := flow.predict(a.Theta, a.LogT, b.LogT, flowIntFrac*(disc+round))
	dev := floats.Distance(pred, b.Theta, 2)
	bud := disc + round + ierr
	f.compared++
	if r := dev / bud; r > f.worst || math.IsNaN(r) {
		f.worst, f.at, f.dev, f.bud = r, b.LogT, dev, bud
	}
	// The same from uniform weights (ERM's): how far the run is from
	// ERM's flow, and how far the recorded weights would take it: the
	// same comparison when the recorded weights are ERM's.
	predU, budU := pred, bud
	if !uniform {
		f.setQ(f.uniform)
		discU := dt * eta * eta / 2 * math.Max(flow.field(tmp, a.Theta), flow.field(tmp, b.Theta))
		var ierrU float64
		predU, ierrU = flow.predict(a.Theta, a.LogT, b.LogT, flowIntFrac*(discU+round))
		budU = discU + round + ierrU
	}
	f.ermFit = math.Max(f.ermFit, floats.Distance(predU, b.Theta, 2)/budU)
	f.ermApart = math.Max(f.ermApart, floats.Distance(predU, pred, 2)/math.Max(bud, budU))
}

// movingShown is the prefix of a part that is shown, not decided, because
// the weights move between records; why says what the part then uses.
func movingShown(why string) string {
	return "shown, not decided (the weights move between records, which then do not determine the weights the engine used between them: " + why + "): "
}

// verdicts returns parts 4 and 6 as the linear-limit checks state them:
// the verdicts that decide (with fixed weights; inconclusive when the flow
// could not be compared) and every part's message. flowName names the
// flow; notGD says why the run is not constant-step GD ("" when it is);
// from is the window's first log T.
//
// Part 6 (the weights' effect): a run the recorded weights would move
// measurably off ERM's flow must not follow ERM's flow (ZD: the
// finite-time path depends on the weights). It applies when some
// segment's predictions from the recorded and from uniform weights lie
// more than ermApartMin budgets apart; the ratio is 1/(the run's distance
// from ERM's flow over the budget), > 1 when the run is ERM's. Only with
// fixed weights: a scheme that moves its weights between records may
// average them to uniform (soak seed 1795337506020117: CVaR-DRO on three
// nearly symmetric support vectors, records with a weight 0, the run 0.26
// budgets from ERM's flow on a correct engine).
func (f *flowTally) verdicts(flowName, notGD string, fixed bool, from float64) (decide []theorems.Verdict, parts []string) {
	switch {
	case notGD != "":
		decide = append(decide, theorems.Undecided("the flow comparison could not run"))
		parts = append(parts, "no flow comparison: "+notGD)
	case f.compared == 0:
		decide = append(decide, theorems.Undecided("GD's step is not small against the curvature at any record from log T = %.3g on (η‖∇²𝓛‖ > %g): record later", from, flowStepLimit))
	default:
		msg := fmt.Sprintf("%s from each record to the next: largest deviation/budget %.3g at log T = %.3g (%.3g against %.3g)", flowName, f.worst, f.at, f.dev, f.bud)
		if f.skipped > 0 {
			msg += fmt.Sprintf(", %d early segments skipped (η‖∇²𝓛‖ > %g)", f.skipped, flowStepLimit)
		}
		if fixed {
			decide = append(decide, theorems.Compare(f.worst, LinLimitBound, ""))
		} else {
			msg = movingShown("recorded weights") + msg
		}
		parts = append(parts, msg)
	}
	if notGD == "" && f.compared > 0 && f.ermApart > ermApartMin {
		msg := fmt.Sprintf("the weights' effect: the recorded weights move the flow up to %.3g budgets from ERM's, the run lies %.3g budgets from ERM's flow", f.ermApart, f.ermFit)
		if fixed {
			decide = append(decide, theorems.Compare(1/f.ermFit, LinLimitBound, ""))
		} else {
			msg = movingShown("they may average to uniform") + msg
		}
		parts = append(parts, msg)
	}
	return decide, parts
}

// ermApartMin is how far (in budgets of the flow comparison) the fixed
// recorded weights must move the flow from ERM's on some segment for the
// weights' effect to be decided; it then reports a run within one budget
// of ERM's flow on every segment: the engine stepped as ERM. 2 would do:
// on that segment a correct run lies within one budget of its own flow, so
// at least ermApart − 1 > 1 budgets from ERM's (triangle inequality); 10
// keeps the test to weights that matter plainly. With weights that move
// the test is not decided: the records show single steps' weights, which a
// correct scheme may average to uniform (CVaR-DRO did, soak seed
// 1795337506020117), and then "weights ignored" and "weights averaging to
// ERM's" give the same trajectory.
const ermApartMin = 10

// flowStepLimit is the largest η‖∇²𝓛‖ at which GD's modified equation is
// used: the expansion of backward error analysis is in powers of η‖∇²𝓛‖,
// its next term a fraction ~η‖∇²𝓛‖/6 of the one kept; beyond ½ the
// first-order budget no longer dominates it. At T^{1/2} of the quick runs
// η‖∇²𝓛‖ ≈ λ_max(Σ α z zᵀ)/t ≲ 10⁻¹.
const flowStepLimit = 0.5

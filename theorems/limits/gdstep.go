package limits

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/train"
)

// GD's map at single steps, for the linear direction checks (LL-lin,
// ZD-T7, XY-P1; LinearLimit's part 7). Between two records a few steps
// apart GD's steps are exact, not a flow's approximation:
//
//	θ(t+1) − θ(t) = η Σ_n q_n^{(t)}(−ℓ′(⟨θ(t), z_n⟩)) z_n,
//
// with q^{(t)} the weights of step t (the earlier record's: the recorders
// keep the weights a step is taken with). The check computes the right
// side from the data and the loss's slope, not from the engine's gradient,
// so it holds wherever the run is — also where the flow comparison cannot
// look: before T = 1 (log time is −∞ at step 0) or where η‖∇²𝓛‖ is large
// (the first steps), which is where a fault that drives the margins far in
// a few steps acts (soak seed 1795648796969825: a preconditioner left θ at
// margins where 𝓛 ≈ e^{−50} before the window, which then saw θ frozen).
//
// The tolerance is a rounding bound, as the descent-step identity's
// (numerics.StepRoundingUlps, as kkt.StepIdentityUlps): the engine rounds c·Dir_i and
// θ_i − c·Dir_i once each, the check's difference once more, and the two
// computations of ηV differ by the rounding of the margins ⟨θ, z_n⟩ (d
// products and sums, ≤ d·u·‖z_n‖‖θ‖ absolute, which the exponential tail
// turns into as much relative error in the slope, twice: the engine's and
// the check's), of log η and log 𝓛 in the engine's e^{log η + log 𝓛}
// (u(|log η| + 2|log 𝓛|), |log 𝓛| ≤ max_n |u_n| + |log Σq| + log N), and a
// few operations more (4u):
//
//	tol = StepRoundingUlps·u·(‖θ(t)‖ + ‖θ(t+1)‖ + (4 + |log η| + 2|log 𝓛|
//	      + 2d·max‖z_n‖·‖θ(t)‖)·‖ηV‖).
//
// False-alarm rate: 0 (a rounding bound; measured: at most 0.11 of it on
// 100 correct LL-lin and 100 ZD-T7 runs at seed 1, all nine schemes, exp
// and logistic). Records of other step sizes than the run's constant η (to
// etaConstTol) are not replayed. Catches every optimizer fault
// whose step is not GD's, by its relative size (issue 18's preconditioner:
// 3|∂₀𝓛|/‖∇𝓛‖ ≫ 10⁻¹⁰), and reweighting faults at any step whose applied
// weights differ from the recorded ones.
type stepMap struct {
	steps int     // segments checked
	worst float64 // ‖Δθ − ηV‖/tol, largest
	at    int     // its step
}

// gdMapSteps is the largest number of steps between two records that
// checkGDMap replays (fixed weights only): the records of section C's
// windows are 1–2 steps apart, the first records of the geometric
// recorders 1, 2, 3, 5 steps; longer segments are the flow comparison's.
const gdMapSteps = 4

// checkGDMap checks GD's map at every pair of consecutive records of tr
// (θ kept) at most gdMapSteps apart whose time increment is that many
// steps of η (to etaConstTol): it replays GD from the earlier record with
// the weights of that record (q0 when it kept none; nil: all 1), one step
// only unless the weights are fixed. Each step's rounding bound is carried
// through the later steps by the map's Lipschitz constant
// 1 + η·Σ_n q_n ℓ″(u_n)‖z_n‖² ≥ ‖I + η∇²(−𝓛)‖.
func checkGDMap(z *mat.Dense, tail *marginTail, eta float64, q0 []float64, fixed bool, tr *train.Trajectory) stepMap {
	const u = 0x1p-53
	n, d := z.Dims()
	zmax := 0.0
	for i := 0; i < n; i++ {
		zmax = math.Max(zmax, floats.Norm(z.RawRowView(i), 2))
	}
	var m stepMap
	theta, v := make([]float64, d), make([]float64, d)
	for i := 0; i+1 < len(tr.Records); i++ {
		a, b := &tr.Records[i], &tr.Records[i+1]
		k := b.Step - a.Step
		if k < 1 || k > gdMapSteps || (k > 1 && !fixed) || len(a.Theta) != d || len(b.Theta) != d {
			continue
		}
		// The step size the run reported (the one recovered from T is
		// accurate to ~10⁻¹⁰ only), if T agrees with k steps of it.
		step := math.Exp(b.LogEta)
		if dT := math.Exp(b.LogT) - math.Exp(a.LogT); !(math.Abs(dT/(float64(k)*step)-1) <= etaConstTol) || !(math.Abs(step/eta-1) <= etaConstTol) {
			continue
		}
		q := a.Weights
		if len(q) != n {
			q = q0
		}
		if q == nil {
			q = Ones(n)
		}
		copy(theta, a.Theta)
		tol := 0.0
		for range k {
			for j := range v {
				v[j] = 0
			}
			eta := step
			maxU, curv := 0.0, 0.0
			for j := 0; j < n; j++ {
				zj := z.RawRowView(j)
				uj := floats.Dot(zj, theta)
				maxU = math.Max(maxU, math.Abs(uj))
				if q[j] != 0 {
					floats.AddScaled(v, eta*q[j]*tail.slope(uj), zj)
					curv += q[j] * tail.curv(uj) * floats.Dot(zj, zj)
				}
			}
			size := floats.Norm(v, 2)
			rho := floats.Norm(theta, 2)
			floats.Add(theta, v)
			logL := maxU + math.Abs(math.Log(floats.Sum(q))) + math.Log(float64(n))
			tol = tol*(1+eta*curv) + numerics.StepRoundingUlps*u*(rho+floats.Norm(theta, 2)+
				(4+math.Abs(math.Log(eta))+2*logL+2*float64(d)*zmax*rho)*size)
		}
		r := floats.Distance(theta, b.Theta, 2) / tol
		m.steps++
		if r > m.worst || math.IsNaN(r) || m.steps == 1 {
			m.worst, m.at = r, a.Step
		}
	}
	return m
}

// StepSize recovers GD's step size from the window's records, η = (T_{k+1}
// − T_k)/(t_{k+1} − t_k) at the last segment, and says why the run is not
// constant-step GD when it is not (another optimizer, or steps whose sizes
// spread beyond etaConstTol).
func StepSize(tr *train.Trajectory, win []*train.Record) (float64, string) {
	etas := make([]float64, len(win)-1)
	for k := range etas {
		etas[k] = segmentStep(win[k], win[k+1])
	}
	eta := etas[len(etas)-1]
	switch {
	case tr.Step.Kind != train.UnknownStep && tr.Step.Kind != train.GDStep:
		return eta, fmt.Sprintf("the flow comparison models constant-step GD, the run used %s", tr.Step.Kind)
	case floats.Max(etas)/floats.Min(etas)-1 > etaConstTol:
		return eta, fmt.Sprintf("the steps' sizes (T_{k+1} − T_k)/(t_{k+1} − t_k) range over [%.6g, %.6g]: not constant-step GD", floats.Min(etas), floats.Max(etas))
	}
	return eta, ""
}

// segmentStep returns the step size of the segment between the records a
// and b, (T_b − T_a)/(t_b − t_a), with T_b − T_a = T_a·expm1(log T_b −
// log T_a) exact in log domain.
func segmentStep(a, b *train.Record) float64 {
	return math.Exp(a.LogT) * math.Expm1(b.LogT-a.LogT) / float64(b.Step-a.Step)
}

// etaConstTol is the relative spread of the step sizes recovered from the
// records, (T_{k+1} − T_k)/(t_{k+1} − t_k), beyond which the run is not
// constant-step GD: T = Σ η is accumulated in log domain (numerics.
// LogAddExp), whose rounding, ~10⁻¹⁵ per step relative to T, leaves ~10⁻¹⁰
// after 10⁵ steps at most.
const etaConstTol = 1e-6

// stepCoefficients decomposes GD's step between two records on linearly
// independent z_n: θ_b − θ_a = Σ_n C_n z_n, where GD makes
// C_n = η Σ_t q_n^{(t)}(−ℓ′(u_n(t))) over the steps between them. C_n is a
// q_n-weighted sum of the slopes along the segment, so it lies in
// [m_n·min slope, m_n·max slope] with m_n = Σ_t η q_n^{(t)} the weights'
// integral over the segment (ΔT·q_n for fixed weights q, ΔT = η·steps)
// and the extremes over the margins u_n(t) the steps saw. Those margins
// need not lie between their values at the two records: with weights
// that move (χ²-DRO sets some q_n to 0 for a while) a sample's margin can
// dip and rise between records (check/roundtrip_test.go's χ² run: 296
// (segment, sample) pairs after log T = 7, Every 20). GD bounds them all
// the same (slopeRange): every step adds η q_m^{(t)}(−ℓ′) ≥ 0 to each
// partial coefficient, so C_m(t) ∈ [0, C_m] at every step t between the
// records, and u_n(t) − u_n(a) = Σ_m C_m(t)⟨z_m, z_n⟩ lies in
// [Σ_m C_m·min(0, G_mn), Σ_m C_m·max(0, G_mn)]; the slope −ℓ′ of a convex
// loss is nonincreasing, so its range over that interval is its values at
// the interval's ends. Without the integral only C_n ≥ 0 and
// Σ_n C_n/max slope ≤ ΔT·Q ≤ Σ_n C_n/min slope (Σ_n q_n = Q at every
// step) hold, whatever the weights: GD's cone.
type stepCoefficients struct {
	z          *mat.Dense
	g          *mat.SymDense // the Gram matrix G_mn = ⟨z_m, z_n⟩
	gram       mat.Cholesky
	sigmaMin   float64 // smallest singular value of the rows z_n
	cond       float64 // condition number of the Gram matrix
	rhs, coefs *mat.VecDense
}

// coefCondLimit is the Gram matrix's largest condition number for which
// the coefficients are solved (beyond it the z_n count as dependent: the
// solve would lose more than 10 of 16 digits).
const coefCondLimit = 1e10

// slopeRelTol is the relative accuracy granted to the slopes −ℓ′(u_n) the
// check computes against those the engine used: both come from the same
// margins in float64 (the engine in log domain), ~|u|·ε ≤ 10⁻¹⁴ for
// |u| ≤ 50. It matters for a single step between records, whose C_n is
// exactly ΔT·q_n·slope at the first record, an end of its interval.
const slopeRelTol = 1e-12

func newStepCoefficients(z *mat.Dense, independent bool) *stepCoefficients {
	if !independent {
		return nil
	}
	n, _ := z.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, z)
	var es mat.EigenSym
	if !es.Factorize(g, false) {
		return nil
	}
	ev := es.Values(nil)
	lo, hi := floats.Min(ev), floats.Max(ev)
	if !(lo > hi/coefCondLimit) {
		return nil
	}
	c := &stepCoefficients{z: z, g: g, sigmaMin: math.Sqrt(lo), cond: hi / lo, rhs: mat.NewVecDense(n, nil), coefs: mat.NewVecDense(n, nil)}
	if !c.gram.Factorize(g) {
		return nil
	}
	return c
}

// solve returns the coefficients of b − a and their slack: the run's
// rounding (round, in θ) carried through the solve (1/σ_min) plus the
// solve's own (64·ε·cond·max|C|).
func (c *stepCoefficients) solve(a, b []float64, round float64) ([]float64, float64, bool) {
	n, _ := c.z.Dims()
	dth := append([]float64(nil), b...)
	floats.Sub(dth, a)
	for i := 0; i < n; i++ {
		c.rhs.SetVec(i, floats.Dot(c.z.RawRowView(i), dth))
	}
	if err := c.gram.SolveVecTo(c.coefs, c.rhs); err != nil {
		return nil, 0, false
	}
	cs := c.coefs.RawVector().Data
	return cs, round/c.sigmaMin + 64*0x1p-52*c.cond*math.Max(floats.Max(cs), -floats.Min(cs)), true
}

// slopeRange returns, for every n, the least and the largest slope
// −ℓ′(u_n(t)) GD can have met between the records a and b, whose
// coefficients are cs ± slack: the margins' range from the partial
// coefficients C_m(t) ∈ [0, C_m⁺ + slack] (see stepCoefficients), widened
// by round·‖z_n‖ for the rounding of θ(t) itself, and the slope, taken as
// nonincreasing (a convex loss), at its ends, widened by slopeRelTol. A
// correct engine's slopes always lie inside; the interval contains the
// slopes at both records, so it is never narrower than theirs.
func (c *stepCoefficients) slopeRange(a, cs []float64, slack, round float64, slope func(float64) float64) (lo, hi []float64) {
	n := len(cs)
	lo, hi = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		zi := c.z.RawRowView(i)
		u := floats.Dot(zi, a)
		widen := round * floats.Norm(zi, 2)
		down, up := -widen, widen
		for m, v := range cs {
			reach := (math.Max(v, 0) + slack) * c.g.At(m, i)
			down += math.Min(reach, 0)
			up += math.Max(reach, 0)
		}
		lo[i] = slope(u+up) * (1 - slopeRelTol)
		hi[i] = slope(u+down) * (1 + slopeRelTol)
	}
	return lo, hi
}

// weighted returns max_n |C_n − mid_n|/(half-width_n + slack) for the
// coefficients cs ± slack of the segment from θ_a = a (solve) and the
// weights' masses m_n = ∫ q_n dT over the segment (ΔT·q_n for fixed
// weights q; the recorded integral, train.WeightSum, for weights that move):
// ≤ 1 when every coefficient lies in its interval [m_n·min slope,
// m_n·max slope], the slopes' extremes over the margins GD can have met
// between the records (slopeRange).
func (c *stepCoefficients) weighted(a, cs []float64, slack float64, mass []float64, slope func(float64) float64, round float64) float64 {
	sMin, sMax := c.slopeRange(a, cs, slack, round, slope)
	worst := math.Inf(-1)
	for i, v := range cs {
		lo, hi := mass[i]*sMin[i], mass[i]*sMax[i]
		worst = math.Max(worst, math.Abs(v-(lo+hi)/2)/((hi-lo)/2+slack))
	}
	return worst
}

// cone returns, for the coefficients cs ± slack of the segment from θ_a =
// a (solve), the largest of −C_n/slack (C_n ≥ 0) and of the two sides of
// Σ_n C_n/max slope ≤ ΔT·Q ≤ Σ_n C_n/min slope as ratios, the slopes'
// extremes over the margins GD can have met between the records
// (slopeRange): ≤ 1 when the step lies in GD's cone for some weights with
// Σ_n q_n = Q.
func (c *stepCoefficients) cone(a, cs []float64, slack, dT, total float64, slope func(float64) float64, round float64) float64 {
	sMins, sMaxs := c.slopeRange(a, cs, slack, round, slope)
	worst := math.Inf(-1)
	var lo, hi, slackSum float64
	for i, v := range cs {
		worst = math.Max(worst, -v/slack)
		lo += v / sMaxs[i]
		hi += v / sMins[i]
		slackSum += slack / sMins[i]
	}
	mass := dT * total
	worst = math.Max(worst, (lo-slackSum)/mass)
	return math.Max(worst, mass/(hi+slackSum))
}

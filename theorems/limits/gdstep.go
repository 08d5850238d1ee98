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

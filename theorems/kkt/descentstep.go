package kkt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// The descent-step identity behind LL Lemma C.9 and (22). Lemma C.9 (flow)
// and its gradient-descent form (22) bound β through the way θ moves: they
// rest on
//
//	d log ρ/dt = Lν/ρ²                      (Lemma B.4; GD: Lemma E.7 (P2),
//	                                         ρ(t+1)² − ρ(t)² = 2ηLν + η²‖∇𝓛‖²)
//	‖ρ²/(Lν)·dθ̂/dt‖² = β^{−2} − 1          (eq. (15))
//
// which hold because θ moves along −∇𝓛 by η‖∇𝓛‖: the first is the radial
// part of the step, the second its tangential part. A trajectory whose
// steps are not −η∇𝓛(θ) (a stray preconditioner, a stale gradient, a step
// size other than the recorded one) breaks both, and the bounds the checks
// compute from its measured γ̃, ρ and β no longer follow from the theorem.
// StepIdentityUlps is the rounding bound of the identity
//
//	‖θ(t+1) − θ(t) + η_t∇𝓛(θ(t))‖ ≤ tol,
//	tol = StepIdentityUlps·u·(‖θ(t)‖ + ‖θ(t+1)‖ + (4 + |log η_t| + 2|log 𝓛_t|)·‖η_t∇𝓛‖),
//
// u = 2⁻⁵³, checked at every pair of consecutive records of a trajectory
// whose optimizer takes explicit gradient steps θ ← θ − e^{log η + log 𝓛}·Dir
// (gd, lossbased). Derivation: the engine rounds the product c·Dir_i and
// the sum θ_i − c·Dir_i once each (u|c·Dir_i| + u|θ_i(t+1)|), the check's
// difference θ_i(t+1) − θ_i(t) once more (u|Δθ_i|), and c = e^{log η + log 𝓛}
// recomputed from the recorded log η differs from the engine's by the
// rounding of the exponent, u(|log η| + 2|log 𝓛|) relative, plus 2u for exp
// itself; the gradient is recomputed by the same code on the same θ, bit
// for bit. The factor 4 (StepIdentityUlps = 4) covers fused multiply–adds
// and the assembly kernels of floats. False-alarm rate: 0 (a rounding
// bound; measured on the correct engine: at most 0.11 of tol over the 60
// GD runs of LL-A9's claims at seed 1, 30 linear and 30 deep). Catches: any optimizer fault whose step is not the recorded
// −η∇𝓛 — a per-coordinate preconditioner (issue 18: θ₀ −= 3·η·∂₀𝓛), a stale
// gradient, the loss factor dropped when leaving log domain — by the
// relative amount of the fault (the preconditioner: 3|∂₀𝓛|/‖∇𝓛‖, 1e-2–1 on
// section C's cases, against 1e-10 relative rounding).
const StepIdentityUlps = numerics.StepRoundingUlps

// explicitStep reports the step rules whose step is θ − e^{log η + log 𝓛}·Dir
// with the recorded log η (the step identity applies): GD and the
// loss-based schedule; an integrated flow's records are steps of a
// Runge–Kutta method, not of the gradient map.
func explicitStep(r train.StepRule) bool {
	return r.Kind == train.GDStep || r.Kind == train.LossBasedStep
}

// descentCheck is the result of checking the descent-step identity along a
// trajectory: the largest error relative to its tolerance, where, and how
// many steps were checked.
type descentCheck struct {
	steps        int
	worst        float64 // ‖Δθ + η∇𝓛‖/tol, largest
	radial, tang float64 // at the worst step, relative to ‖η∇𝓛‖
	at, to       int     // the worst step's records
}

// checkDescentSteps checks the descent-step identity at every pair of
// consecutive records after t0 (within the windows). It returns nil with no
// error when the trajectory's optimizer does not take explicit gradient
// steps.
func checkDescentSteps(obj *train.Objective, tr *train.Trajectory) (*descentCheck, error) {
	return checkDescentStepsIn(obj, tr, true)
}

// checkDescentStepsIn is checkDescentSteps on the windows of all records
// (separated false) or of those after t0 (true).
func checkDescentStepsIn(obj *train.Objective, tr *train.Trajectory, separated bool) (*descentCheck, error) {
	if !explicitStep(tr.Step) {
		return nil, nil
	}
	const u = 0x1p-53
	c := &descentCheck{}
	P := obj.Model.NumParams()
	step := make([]float64, P)
	for _, w := range Windows(tr, separated) {
		for s := 0; s+1 < len(w); s++ {
			a, b := w[s], w[s+1]
			if len(a.Theta) != P || len(b.Theta) != P {
				return nil, fmt.Errorf("θ at step %d has %d entries, the model %d", a.Step, len(a.Theta), P)
			}
			ev, err := obj.Evaluate(a.Theta, true)
			if err != nil {
				return nil, err
			}
			logEta := b.LogEta
			scale := math.Exp(logEta + ev.LogObjective)
			// step = θ(t+1) − θ(t) + η∇𝓛(θ(t))
			floats.SubTo(step, b.Theta, a.Theta)
			floats.AddScaled(step, scale, ev.Dir)
			g := scale * floats.Norm(ev.Dir, 2)
			tol := StepIdentityUlps * u * (floats.Norm(a.Theta, 2) + floats.Norm(b.Theta, 2) +
				(4+math.Abs(logEta)+2*math.Abs(ev.LogObjective))*g)
			e := floats.Norm(step, 2)
			c.steps++
			r := e / tol
			if math.IsNaN(r) {
				return nil, fmt.Errorf("step %d → %d: the identity is not finite (error %v, tolerance %v)", a.Step, b.Step, e, tol)
			}
			if r > c.worst || c.steps == 1 {
				c.worst, c.at, c.to = r, a.Step, b.Step
				rho := floats.Norm(a.Theta, 2)
				rad := floats.Dot(step, a.Theta) / rho
				c.radial = math.Abs(rad) / g
				c.tang = math.Sqrt(math.Max(0, e*e-rad*rad)) / g
			}
		}
	}
	return c, nil
}

// verdict returns the violated verdict of a failed identity, or nil.
func (c *descentCheck) verdict() *theorems.Verdict {
	if c == nil || c.worst <= 1 {
		return nil
	}
	v := theorems.Verdict{Status: theorems.Violated, Statistic: c.worst, Bound: 1, Detail: fmt.Sprintf(
		"the step from step %d is not −η∇𝓛(θ): ‖Δθ + η∇𝓛‖ is %.3g times its rounding bound (radial part %.3g, tangential part %.3g of ‖η∇𝓛‖), so ρ's growth (Lemma E.7 (P2)) and θ̂'s motion ((15)) are not those Lemma C.9 bounds",
		c.at, c.worst, c.radial, c.tang), Worst: &theorems.Span{From: c.at, To: c.to}}
	return &v
}

// String summarizes a passed check for a verdict's detail.
func (c *descentCheck) String() string {
	if c == nil {
		return "steps not checked (not an explicit gradient method)"
	}
	if c.steps == 0 {
		return "no consecutive records: steps not checked"
	}
	return fmt.Sprintf("%d steps are −η∇𝓛 to %.2g of the rounding bound", c.steps, c.worst)
}

// DescentSteps checks the descent-step identity θ(t+1) = θ(t) − η∇𝓛(θ(t))
// at every pair of consecutive records of tr after t0 (the records must
// keep θ), to the rounding bound of checkDescentSteps: violated when a step
// is not the gradient step its recorded η says, holds when every checked
// step is, inconclusive when nothing could be checked (an optimizer that is
// not an explicit gradient method, or no consecutive records). It is the
// premise of every GD theorem of LL (Lemma C.9, Thm 4.2's E.2): a check of
// a GD claim calls it first, so that an optimizer fault cannot hide behind
// a claim whose statistic happens to stay in bounds.
func DescentSteps(obj *train.Objective, tr *train.Trajectory) theorems.Verdict {
	c, err := checkDescentSteps(obj, tr)
	if err != nil {
		return measureVerdict(err)
	}
	if v := c.verdict(); v != nil {
		return *v
	}
	if c == nil || c.steps == 0 {
		return theorems.Undecided("%s", c)
	}
	return theorems.Verdict{Status: theorems.Holds, Statistic: c.worst, Bound: 1, Detail: c.String()}
}

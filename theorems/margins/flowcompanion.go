package margins

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/train"
)

// An independent error bar for a recorded flow step (LL-4.1, LL-F, LL-G).
//
// The monotonicity checks need, for every step θ_k → θ_{k+1} of an
// integrated gradient flow, a bound on the distance from θ_{k+1} to the
// exact flow through θ_k. The integrator's own local error estimate
// (Record.LocalError) cannot be that bound: an integrator that
// under-reports its error would make the check trust a wrong path. The
// companion below re-integrates each step with a different method, in a
// different time variable, from nothing but the two recorded points.
//
// Time variable. Along the flow of F = 𝓛 + R, dθ/ds = −Dir (ds = F dt,
// Dir = ∇F/F = ∇log F) and d log F/ds = −‖Dir‖², so with λ = log F as the
// clock
//
//	dθ/dλ = Dir(θ)/‖Dir(θ)‖²,
//
// a field defined wherever ∇F ≠ 0 (after separation ⟨θ, −Dir⟩ > 0, LL
// Lemma B.1, so everywhere the checks look). The companion integrates it
// from θ_k over Δλ = log F(θ_{k+1}) − log F(θ_k), both re-evaluated from the
// recorded θ, to the point θ* of the exact path through θ_k at θ_{k+1}'s
// level of F. The path is what the monotonicity checks need (γ̃ is
// non-decreasing along the path whatever its clock), and θ* lies after θ_k
// on it whenever F decreased. To first order, ‖θ_{k+1} − θ*‖ is the part of
// the step's true error orthogonal to Dir, so it is at most that error.
//
// Method. Classical Runge–Kutta 4 in M equal substeps, with the embedded
// 3rd-order solution of the same stages and the field at the substep's end
// (k₅, first same as last: y₃ = y + h(k₁/6 + k₂/3 + k₃/3 + k₅/6) meets the
// four 3rd-order conditions for the nodes (0, ½, ½, 1, 1)), so that
// δ = Σ_substeps h/6·‖k₄ − k₅‖ = Σ ‖y₄ − y₃‖ estimates the error of the
// 3rd-order solution, which asymptotically exceeds that of the propagated
// RK4 one by a factor O(1/h): δ is a conservative uncertainty of θ*. None
// of this is Dormand–Prince's: other nodes, other weights, another clock.
// Each substep costs 4 field evaluations (k₁ is the previous k₅, the first
// is Dir(θ_k), already measured).

// companionMaxSubsteps caps M: 64 substeps divide RK4(3)'s one-step
// estimate by 64³ ≈ 2.6e5. A step the companion cannot resolve by then keeps
// δ as its uncertainty: a wider error bar, never a narrower one.
const companionMaxSubsteps = 64

// companionRounding is the relative rounding floor of a re-integrated
// point: 4M ≤ 256 stage sums each rounding θ by ε|θ| (ε = 2.2e-16),
// ~1e-13·(1 + ‖θ‖) when they add up. The companion stops refining there,
// and the integrator test below does not count a discrepancy this small.
const companionRounding = 1e-13

// IntegratorErrorFactor is how far the independent discrepancy of a step may
// exceed the integrator's reported local error e_k: the step's excess is
// (dev − δ − floor)/e_k, and a trajectory whose median excess over its steps
// after t₀ is above IntegratorErrorFactor is violated (the integrator
// under-reports its error).
//
// Derivation. dev is at most the step's true error to first order (above),
// and Dormand–Prince 5(4) propagates its 5th-order solution but reports the
// error of the embedded 4th-order one (local extrapolation), which
// asymptotically exceeds the propagated error by a factor O(1/h): on a
// smooth field a correct integrator has excess ≲ 1. The estimate is only
// asymptotic where the field is smooth along the step: ReLU² nets have a
// gradient field that is Lipschitz but not C¹, and a step that crosses a
// unit's kink can be off by far more. Measured on the LL-4.1, LL-F and LL-G
// claims at seeds 1–6 (480 flows at the claims' tolerance 1e-9, 72 063 steps
// after t₀): the largest single-step excess is 463 (ReLU² kink crossings;
// 9 steps of the 72 063 above 100, at most 4.2% of a flow's steps above 1),
// the largest per-flow median is 0 (dev within δ). The median therefore
// decides, not the worst step: a false alarm needs half the steps of a flow
// to be kink crossings, each fooling the estimate 100-fold; none of the 480
// flows comes near. It catches an estimate that under-reports on most steps
// by far more than 100×: the flow's error scale 1e-6 (train.Flow.PlantFault), every one of the
// 24 361 steps above 100 (median 2e6), 480 of 480 flows at seeds 1–6;
// scale 1e-3: 80 of 80 flows at seed 1; 1e-2: 8 of 80 (not
// reliably). Also a wrong tableau or a stale stage on most steps. An
// integrator that under-reports by less, or on a few steps only, is not
// reported, but cannot mislead the monotonicity decision either: its bar is
// dev + δ, never e_k.
const IntegratorErrorFactor = 100

// stepCheck is the companion's verdict on one recorded step.
type stepCheck struct {
	dev      float64 // ‖θ_{k+1} − θ*‖, θ* the re-integrated point at θ_{k+1}'s level of log F
	unc      float64 // δ = Σ ‖y₄ − y₃‖ over the substeps, the companion's own uncertainty
	floor    float64 // rounding floor companionRounding·(1 + ‖θ_{k+1}‖)
	substeps int     // M
}

// excess returns (dev − δ − floor)/e: how many reported local errors e the
// step's certain discrepancy is (+Inf for a positive one against e = 0).
func (s stepCheck) excess(e float64) float64 {
	x := s.dev - s.unc - s.floor
	switch {
	case x <= 0:
		return 0
	case e > 0:
		return x / e
	}
	return math.Inf(1)
}

// bar is the step's independent error bar: a bound on the distance from
// θ_{k+1} to the exact path through θ_k.
func (s stepCheck) bar() float64 { return s.dev + s.unc + s.floor }

// flowCompanion holds the buffers of the re-integration.
type flowCompanion struct {
	obj          *train.Objective
	k            [4][]float64
	f0, stage, a []float64
}

func newFlowCompanion(obj *train.Objective, p int) *flowCompanion {
	c := &flowCompanion{obj: obj}
	for i := range c.k {
		c.k[i] = make([]float64, p)
	}
	c.f0, c.stage, c.a = make([]float64, p), make([]float64, p), make([]float64, p)
	return c
}

// field sets out = Dir(θ)/‖Dir(θ)‖², the flow's velocity in λ = log F.
func (c *flowCompanion) field(theta, out []float64) error {
	ev, err := c.obj.Evaluate(theta, true)
	if err != nil {
		return err
	}
	n2 := floats.Dot(ev.Dir, ev.Dir)
	if !(n2 > 0) || math.IsInf(n2, 0) {
		return fmt.Errorf("theorems: the flow's field is undefined at a companion stage (‖∇log F‖² = %v)", n2)
	}
	floats.ScaleTo(out, 1/n2, ev.Dir)
	return nil
}

// rk43 integrates dθ/dλ = Dir/‖Dir‖² from y0 (where the field is f0) over
// dl in m equal RK4 substeps into out, and returns the sum over the
// substeps of the embedded 3rd-order estimate h/6·‖k₄ − k₅‖ (k₅ the field
// at the substep's end, the next substep's k₁).
func (c *flowCompanion) rk43(y0 []float64, dl float64, m int, out []float64) (float64, error) {
	h := dl / float64(m)
	copy(out, y0)
	copy(c.k[0], c.f0)
	var unc float64
	for s := 0; s < m; s++ {
		for i, a := range [3]float64{h / 2, h / 2, h} {
			floats.AddScaledTo(c.stage, out, a, c.k[i])
			if err := c.field(c.stage, c.k[i+1]); err != nil {
				return 0, err
			}
		}
		for j := range out {
			out[j] += h / 6 * (c.k[0][j] + 2*c.k[1][j] + 2*c.k[2][j] + c.k[3][j])
		}
		if err := c.field(out, c.k[0]); err != nil { // k₅, the next k₁
			return 0, err
		}
		unc += math.Abs(h) / 6 * floats.Distance(c.k[3], c.k[0], 2)
	}
	return unc, nil
}

// step re-integrates θ_k → θ_{k+1} (dirFrom = Dir(θ_k), lamFrom and lamTo
// the log F of both points) and compares with flag = IntegratorErrorFactor·e_k.
// It refines (M = 1, 2, 4, …) only while the comparison is open: until the
// step certainly exceeds flag (dev − δ − floor > flag), certainly does not
// (dev + δ ≤ flag), δ is down to the rounding floor, or M reaches
// companionMaxSubsteps. A correct integrator's steps are cleared at M = 1
// (4 field evaluations) on most steps; an under-reporting one's are
// refined until flagged.
func (c *flowCompanion) step(from, to, dirFrom []float64, lamFrom, lamTo, flag float64) (stepCheck, error) {
	n2 := floats.Dot(dirFrom, dirFrom)
	if !(n2 > 0) || math.IsInf(n2, 0) {
		return stepCheck{}, fmt.Errorf("theorems: the flow's field is undefined at a recorded point (‖∇log F‖² = %v)", n2)
	}
	floats.ScaleTo(c.f0, 1/n2, dirFrom)
	dl := lamTo - lamFrom
	floor := companionRounding * (1 + floats.Norm(to, 2))
	for m := 1; ; m *= 2 {
		unc, err := c.rk43(from, dl, m, c.a)
		if err != nil {
			return stepCheck{}, err
		}
		sc := stepCheck{dev: floats.Distance(to, c.a, 2), unc: unc, floor: floor, substeps: m}
		if sc.dev-sc.unc-floor > flag || sc.dev+sc.unc <= flag || sc.unc <= floor || m >= companionMaxSubsteps {
			return sc, nil
		}
	}
}

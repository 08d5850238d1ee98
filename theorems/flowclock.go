package theorems

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/train"
)

// An independent witness of a flow's clock (issue 32). The companion of
// flowcompanion.go re-integrates each recorded step to θ_{k+1}'s level of
// F and measures the distance to the path: it sees where θ went, not when.
// An integrator whose solution weights do not sum to one (a tableau typo)
// is, to first order, the exact flow run at the wrong speed: both θ and its
// clock move Σb_i times too far per step, the path is right and only the
// clock's higher-order error betrays it — invisible to the path witness,
// and on a straight path (a linear model) invisible to everything else the
// checks read, yet the records' flow times are wrong by tens of percent per
// step.
//
// The clock witness integrates the flow time along the same path in the
// same independent variable λ = log F: with dθ/dλ = Dir/‖Dir‖² and dt/dλ =
// −1/(F‖Dir‖²), the scaled increment τ = F_k·(t − t_k) (F_k = e^{λ_k})
// obeys
//
//	dτ/dλ = −e^{λ_k − λ}/‖Dir‖²,   τ(λ_k) = 0,
//
// so that Δt = e^{−λ_k}·τ(λ_{k+1}): a positive integrand, smooth where the
// path is (1/‖Dir‖² varies with θ, e^{λ_k−λ} is an exponential in λ), no
// cancellation against t_k and no log-shaped solution (the log form of the
// integrator's own clock, log(t + c), bends sharply within a step where
// ‖Dir‖ is small and needs many substeps in λ). It is integrated by RK4 with
// the path, in m = ⌈10|Δλ|⌉ substeps (at most 0.1 in λ: RK4's relative
// error on the exponential is then h⁵/120 ≈ 1e-7 per substep), with the
// embedded 3rd-order estimate of the same stages as the companion's
// (h/6·|k₄ − k₅| summed over the substeps, k₅ the rate at the substep's
// end) as its uncertainty δτ, and held against the recorded Δt =
// e^{LogT_{k+1}} − e^{LogT_k}: the relative discrepancy less the relative
// uncertainty δτ/τ. A step the substeps do not resolve has a wide
// uncertainty and no excess: less power, never a false alarm. The cost is
// 4m + 1 field evaluations per step, m = 1 on most steps.

// ClockTolerance is the largest median relative discrepancy, over the steps
// after t₀, between a flow's recorded time increments and the re-integrated
// ones. Derivation: the integrator accepts a step when its error estimate,
// clock included, is within Tol·(1 + |ζ|) in ζ = log(t + c) (rms over θ and
// ζ, train.Flow), and a 5th-order method's true error is below its 4th-order
// estimate; the relative error of Δt is δζ/(1 − e^{−Δζ}) ≈ δζ/Δζ, so a
// correct integrator at the claims' Tol = 1e-9 with |ζ| ≤ 100 makes at most
// ~1e-7/Δζ, below 1e-4 on every step that moves ζ by 1e-3 or more — at least
// half of a flow's steps after t₀ (steps grow 5× per step up to their
// error-controlled size). Measured: see TestFlowClock… and docs/trust.md.
// A solution row with Σ b_i = 1 + β makes each step's clock wrong by O(β)
// relatively (β = 0.82 for the registry's tableau fault).
const ClockTolerance = 1e-3

// clockStep re-integrates the time of the recorded step θ_k → θ_{k+1}
// (from at λ_k = lamFrom, with Dir(θ_k) = dirFrom, to the level lamTo) and
// returns the relative discrepancy |Δt*/Δt_rec − 1| less the companion's
// uncertainty (≥ 0), with Δt_rec from the records' log T.
func (c *flowCompanion) clockStep(from []float64, rk, rk1 *train.Record, dirFrom []float64, lamFrom, lamTo float64) (float64, error) {
	logDtRec := rk1.LogT
	if !math.IsInf(rk.LogT, -1) {
		logDtRec = rk1.LogT + math.Log(-math.Expm1(rk.LogT-rk1.LogT))
	}
	n2 := floats.Dot(dirFrom, dirFrom)
	dl := lamTo - lamFrom
	m := max(1, int(math.Ceil(10*math.Abs(dl))))
	tau, dtau, err := c.clockRK4(from, dirFrom, n2, dl, m)
	if err != nil {
		return 0, err
	}
	logDt := math.Log(tau) - lamFrom
	unc := dtau / tau
	if !(tau > 0) || math.IsNaN(unc) {
		return 0, nil // a step the clock cannot resolve: no excess
	}
	return math.Max(0, math.Abs(math.Expm1(logDt-logDtRec))-unc), nil
}

// clockRK4 integrates (θ, τ) from (from, 0) over dl in λ in m RK4
// substeps and returns τ at the end and its uncertainty δτ (the embedded
// 3rd-order estimate, summed over the substeps).
func (c *flowCompanion) clockRK4(from, dirFrom []float64, n2, dl float64, m int) (tau, dtau float64, err error) {
	p := len(from)
	if len(c.clk.y) != p {
		c.clk = newClockBuffers(p)
	}
	b := &c.clk
	h := dl / float64(m)
	copy(b.y, from)
	var mu float64 // λ − λ_k
	// dτ/dλ; ‖Dir/‖Dir‖²‖² = 1/‖Dir‖².
	rate := func(mu float64, k []float64) float64 { return -math.Exp(-mu) * floats.Dot(k, k) }
	floats.ScaleTo(b.k[0], 1/n2, dirFrom)
	k1 := rate(0, b.k[0])
	for s := 0; s < m; s++ {
		var kt [4]float64
		kt[0] = k1
		for i, a := range [3]float64{h / 2, h / 2, h} {
			floats.AddScaledTo(b.stage, b.y, a, b.k[i])
			if err := c.field(b.stage, b.k[i+1]); err != nil {
				return 0, 0, err
			}
			kt[i+1] = rate(mu+a, b.k[i+1])
		}
		for j := range b.y {
			b.y[j] += h / 6 * (b.k[0][j] + 2*b.k[1][j] + 2*b.k[2][j] + b.k[3][j])
		}
		tau += h / 6 * (kt[0] + 2*kt[1] + 2*kt[2] + kt[3])
		mu += h
		if err := c.field(b.y, b.k[0]); err != nil { // k₅, the next k₁
			return 0, 0, err
		}
		k1 = rate(mu, b.k[0])
		dtau += math.Abs(h) / 6 * math.Abs(kt[3]-k1)
	}
	return tau, dtau, nil
}

// clockBuffers are the clock integration's own buffers (the path
// companion's are in use by its step).
type clockBuffers struct {
	y, stage []float64
	k        [4][]float64
}

func newClockBuffers(p int) clockBuffers {
	b := clockBuffers{y: make([]float64, p), stage: make([]float64, p)}
	for i := range b.k {
		b.k[i] = make([]float64, p)
	}
	return b
}


package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
)

// GRWSteps are the first steps of a run on the GRW objective
// Σ_i q_i^{(t)} ½(⟨θ, x_i⟩ − y_i)² of Case: the iterates θ_0…θ_K as the
// engine left them and the weights q^{(0)}…q^{(K−1)} as the scheme wrote
// them (recorded outside the objective), with the optimizer's step η and
// heavy-ball coefficient β (0 for GD).
type GRWSteps struct {
	Case      RegressionCase
	Eta, Beta float64
	Thetas    [][]float64
	Weights   [][]float64
}

// ReplayRounding is the factor on the one-step rounding bound ρ_t of
// WeightsActed's tolerance τ_t = ReplayRounding·ρ_t: 2 for the two
// computations compared (the engine's and the replay's, each within ρ_t
// of the exact step), times 2 to spare. ρ_t, in units of ε = 2⁻⁵³, is
//
//	‖θ_{t+1}‖ + ‖s_t‖                                 the update's rounding
//	+ (d + 1)·η Σ_n q_n ‖x_n‖(‖x_n‖‖θ_t‖ + |y_n|)      the residuals' dot products
//	+ (n + 4500)·η Σ_n q_n |r_n| ‖x_n‖                 the log-domain scale and shares
//	+ β(‖θ_t‖ + ‖θ_t − θ_{t−1}‖)                      heavy ball's velocity
//
// with s_t the replayed step; the log-domain term is derived at
// RateRoundingTerms. A correct engine stays within τ_t at every step
// (false-alarm rate 0 up to the rounding model); the faults it must catch
// — weights applied wrongly (ignored, squared, a sample dropped), the loss
// factor dropped, a stale gradient, a preconditioner — change the step by
// a fixed fraction of ‖s_t‖, some 10¹⁰ times τ_t.
const ReplayRounding = 4

// WeightsActed checks the finite-time half of ZD-T1 (and ZD-T7's premise)
// on a run's first steps: the iterates are GD (heavy ball) on the weights
// the scheme wrote, ZD eq. 29/33,
//
//	θ_{t+1} = θ_t + β(θ_t − θ_{t−1}) − η Σ_i q_i^{(t)} (⟨θ_t, x_i⟩ − y_i) x_i,
//
// replayed step by step from the recorded θ_t in plain code, independent
// of the engine's log-domain evaluation. The statistic is
// max_t ‖θ_{t+1} − θ̂_{t+1}‖/τ_t against 1 (ReplayRounding). "GRW ends
// where ERM ends" says nothing about an engine on which GRW is ERM; this
// says the weights acted. The Detail reports how far the recorded weights
// move a step from ERM's (the check's resolution for weights that were
// ignored).
func WeightsActed(s GRWSteps) theorems.Verdict {
	c := s.Case
	_, v := c.prepare()
	if v != nil {
		return *v
	}
	K := len(s.Weights)
	if K < 1 || len(s.Thetas) != K+1 || !(s.Eta > 0) || !(s.Beta >= 0 && s.Beta < 1) {
		return theorems.Invalid(fmt.Errorf("theorems: a replay needs K ≥ 1 weight vectors, K + 1 iterates, η > 0 and β ∈ [0, 1) (K = %d, %d iterates, η = %v, β = %v)", K, len(s.Thetas), s.Eta, s.Beta))
	}
	n, d := c.N, c.D
	xnorm := make([]float64, n)
	for i := range xnorm {
		xnorm[i] = floats.Norm(c.X[i*d:(i+1)*d], 2)
	}
	res := make([]float64, n)
	pred := make([]float64, d)
	ermStep := make([]float64, d)
	worst, worstT, worstRel := math.Inf(-1), 0, 0.0
	ermEffect := 0.0
	for t := 0; t < K; t++ {
		th, next, q := s.Thetas[t], s.Thetas[t+1], s.Weights[t]
		if len(th) != d || len(next) != d || len(q) != n {
			return theorems.Invalid(fmt.Errorf("theorems: replay step %d: θ of %d and %d entries, %d weights (want d = %d, n = %d)", t, len(th), len(next), len(q), d, n))
		}
		var dots, logs, qsum float64
		for i := 0; i < n; i++ {
			if !(q[i] >= 0) || math.IsInf(q[i], 0) {
				return theorems.Invalid(fmt.Errorf("theorems: replay step %d: weight %d is %v", t, i, q[i]))
			}
			res[i] = floats.Dot(c.X[i*d:(i+1)*d], th) - c.Y[i]
			dots += q[i] * xnorm[i] * (xnorm[i]*floats.Norm(th, 2) + math.Abs(c.Y[i]))
			logs += q[i] * math.Abs(res[i]) * xnorm[i]
			qsum += q[i]
		}
		// θ̂_{t+1} = θ_t + β(θ_t − θ_{t−1}) − η Σ q_i r_i x_i; ERM's step for
		// the same total weight, for the resolution reported.
		copy(pred, th)
		clear(ermStep)
		velocity := 0.0
		if t > 0 && s.Beta > 0 {
			prev := s.Thetas[t-1]
			for j := range pred {
				pred[j] += s.Beta * (th[j] - prev[j])
			}
			velocity = floats.Distance(th, prev, 2)
		}
		for i := 0; i < n; i++ {
			floats.AddScaled(pred, -s.Eta*q[i]*res[i], c.X[i*d:(i+1)*d])
			floats.AddScaled(ermStep, -s.Eta*qsum/float64(n)*res[i], c.X[i*d:(i+1)*d])
		}
		step := floats.Distance(pred, th, 2)
		rho := floats.Norm(next, 2) + step + float64(d+1)*s.Eta*dots + float64(n+RateRoundingTerms)*s.Eta*logs
		if t > 0 {
			rho += s.Beta * (floats.Norm(th, 2) + velocity)
		}
		tau := ReplayRounding * 0x1p-53 * rho
		mis := floats.Distance(next, pred, 2)
		stat := mis / tau
		if math.IsNaN(stat) {
			stat = math.Inf(1)
		}
		if stat > worst {
			worst, worstT = stat, t
			worstRel = mis / math.Max(step, math.SmallestNonzeroFloat64)
		}
		// How far q moves this step from ERM's: ‖η Xᵀ(Q − q̄I) r‖/τ.
		var eff float64
		for j := range pred {
			dj := (pred[j] - th[j]) - ermStep[j]
			if t > 0 && s.Beta > 0 {
				dj -= s.Beta * (th[j] - s.Thetas[t-1][j])
			}
			eff += dj * dj
		}
		ermEffect = max(ermEffect, math.Sqrt(eff)/tau)
	}
	return theorems.Compare(worst, 1, fmt.Sprintf("first %d steps replayed from the recorded weights: worst step %d, ‖θ_{t+1} − θ̂_{t+1}‖ = %.3g × the rounding tolerance (%.3g of the step); the recorded weights move a step up to %.3g × the tolerance away from ERM's", K, worstT, worst, worstRel, ermEffect))
}

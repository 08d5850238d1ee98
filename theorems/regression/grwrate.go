package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
)

// The computed rate of ZD-T1 and ZD-T2: how far from θ* a GD run on the
// GRW objective may still be after T steps, from the data and the weights
// the scheme wrote.
//
// GD on Σ_i q_i^{(t)} ½(⟨θ, x_i⟩ − y_i)² steps θ_{t+1} = θ_t − η Xᵀ Q_t r_t,
// r_t = Xθ_t − y (ZD eqs. 29, 33; X is n×d here, d×n in ZD). The step is in
// span{x_i} (ZD App. D.2.1), and so is θ* − θ₀, so the error
// e_t = P_span(θ_t − θ*) obeys, with r_t = X e_t,
//
//	e_{t+1} = (I − η XᵀQ_tX) e_t.
//
// On span{x_i} the symmetric XᵀQ_tX has its eigenvalues in
// [q_min^{(t)} λ_min, q_max^{(t)} λ_max], λ the extreme eigenvalues of XXᵀ
// (vᵀXᵀQXv = Σ q_i ⟨x_i, v⟩² ≥ q_min ‖Xv‖² ≥ q_min λ_min ‖v‖², as in ZD
// eq. 31), so
//
//	‖e_{t+1}‖ ≤ c_t ‖e_t‖,  c_t = max(1 − η q_min^{(t)} λ_min, η q_max^{(t)} λ_max − 1),
//
// and ‖e_T‖ ≤ B_T = ‖θ₀ − θ*‖ · Π_{t<T} c_t. This is ZD eq. 31's contraction
// step by step and in θ, so it needs neither Assumption 1 (any q^{(t)} on
// the simplex) nor η ≤ η₀: with η = 1/λ_max and q ≤ 1, c_t = 1 − η q_min^{(t)} λ_min.
// A weight q_i^{(t)} = 0 makes c_t = 1 (no contraction that step), never
// more. A run whose ‖e_T‖ exceeds B_T plus rounding is not GD on the
// weights the scheme wrote: it is violated. This decides the runs that a
// limit check could only call unfinished (the loss factor dropped: the
// residual stalls or oscillates at O(1); a sample's weight dropped: its
// residual never contracts). It cannot see weights applied wrongly but
// positively (ignored, squared): those runs still converge, to the same
// weight-free θ* (Thm 1) — WeightsActed (grwreplay.go) does.

// GRWRate is what the computed-rate decisions need of a GD run on the GRW
// objective: the step η and, for every step t = 0…T−1 taken, the extremes
// of the weights q^{(t)} that the scheme wrote (recorded outside the
// objective, so that a fault in applying them does not change them). T is
// len(QMin).
type GRWRate struct {
	Eta        float64
	QMin, QMax []float64
}

// GRWRun is the end θ_T of a GD run on the GRW objective of Case, with the
// weights' extremes of its T steps.
type GRWRun struct {
	Case  RegressionCase
	Theta []float64
	Rate  GRWRate
}

// Rounding of the computed-rate bound.
const (
	// rateSlack widens λ_min, λ_max and the weights by this relative
	// amount: they are computed by an SVD (relative error ≲ κ(X)·ε ≤ 1e-13
	// for the generated cases) and recorded to ε.
	rateSlack = 1e-9
	// RateRoundingTerms sets the rounding allowance of one engine step,
	//
	//	δ_t = 2(d + n + RateRoundingTerms)·ε·√n·a_t·(‖θ*‖ + (1 + c_t)E_t + ‖y‖/σ_max),
	//
	// a_t = max(1, η q_max^{(t)} λ_max), E_t = B_t + R_t the bound on ‖e_t‖,
	// accumulated as R_{t+1} = c_t R_t + δ_t. One step
	// θ − e^{log η + log 𝓛}·Dir rounds
	//   - in the update: ε(‖θ_{t+1}‖ + ‖step‖), with ‖θ_t‖ ≤ ‖θ*‖ + E_t
	//     and ‖step‖ ≤ (1 + c_t)E_t;
	//   - in the residuals r_n = ⟨θ, x_n⟩ − y_n: (d + 1)ε(‖x_n‖‖θ‖ + |y_n|),
	//     reaching θ through ηXᵀQ (norm ≤ a_t/σ_max):
	//     ≤ (d + 1)ε·a_t(√n‖θ‖ + ‖y‖/σ_max);
	//   - in the log domain: the scale e^{log η + log 𝓛} and each share
	//     e^{log q_n + log ℓ_n − m} are exponentials of sums of at most
	//     three logs (each |log| ≤ 745), so their relative errors are
	//     ≤ (n + 3·2·745 + 3)ε = (n + 4473)ε, on a step of norm ≤ √n·a_t‖e_t‖.
	// The sum is ≤ (d + n + 4474)·ε·√n·a_t·(‖θ*‖ + (1 + c_t)E_t + ‖y‖/σ_max);
	// 4500 and the factor 2 cover it. A correct engine never exceeds it
	// (false-alarm rate 0 up to this rounding model). At T = 30000 steps
	// and d + n ≈ 50 it allows ‖e_T‖ ≈ 1e-7·‖θ*‖; the faults it must catch
	// (loss factor dropped, a sample's weight dropped) leave ‖e_T‖ of the
	// order of ‖θ₀ − θ*‖.
	RateRoundingTerms = 4500
)

// rateBound returns B_T (exact-arithmetic bound on ‖e_T‖), R_T (the
// rounding allowance accumulated over the T steps: R_{t+1} = c_t R_t + δ_t)
// and peak = max_{0≤t≤T} (B_t + R_t), the most ‖e_t‖ may be at any step.
func (r *regression) rateBound(rate GRWRate) (bound, rounding, peak float64, err error) {
	steps := len(rate.QMin)
	if !(rate.Eta > 0) || math.IsInf(rate.Eta, 0) || len(rate.QMax) != steps {
		return 0, 0, 0, fmt.Errorf("theorems: the computed rate needs a finite η > 0 and the extremes of the weights of every step (η = %v, %d minima, %d maxima)", rate.Eta, steps, len(rate.QMax))
	}
	lmin := r.span.SMin * r.span.SMin * (1 - rateSlack)
	lmax := r.span.SMax * r.span.SMax * (1 + rateSlack)
	e0 := floats.Distance(r.theta0, r.star, 2)
	nstar := floats.Norm(r.star, 2)
	yScale := floats.Norm(r.Y, 2) / r.span.SMax
	gamma := 2 * float64(r.D+r.N+RateRoundingTerms) * 0x1p-53 * math.Sqrt(float64(r.N))
	logB := math.Log(e0) // −Inf when θ₀ = θ*
	rnd := 0.0
	for t := 0; t < steps; t++ {
		qmin, qmax := rate.QMin[t]*(1-rateSlack), rate.QMax[t]*(1+rateSlack)
		if !(qmin >= 0) || !(qmax >= qmin) || math.IsInf(qmax, 0) {
			return 0, 0, 0, fmt.Errorf("theorems: weights at step %d span [%v, %v]", t, rate.QMin[t], rate.QMax[t])
		}
		c := max(1-rate.Eta*qmin*lmin, rate.Eta*qmax*lmax-1)
		a := max(1, rate.Eta*qmax*lmax) // ‖ηXᵀQ‖·σ_max
		e := math.Exp(logB) + rnd
		peak = max(peak, e)
		rnd = c*rnd + gamma*a*(nstar+(1+c)*e+yScale)
		logB += math.Log(c)
	}
	return math.Exp(logB), rnd, max(peak, math.Exp(logB)+rnd), nil
}

// spanError returns ‖e‖ = ‖P_span(θ − θ*)‖ = ‖P_span(θ − θ₀) − (θ* − θ₀)‖.
func (r *regression) spanError(theta []float64) float64 {
	diff := make([]float64, len(theta))
	floats.SubTo(diff, theta, r.theta0)
	perp := make([]float64, len(theta))
	r.span.Orthogonal(perp, diff)
	var s float64
	for j := range diff {
		d := diff[j] - perp[j] - (r.star[j] - r.theta0[j])
		s += d * d
	}
	return math.Sqrt(s)
}

// rateVerdict decides a run that has not (yet) reached its limit by the
// computed rate: violated when ‖e_T‖ > B_T + R_T (statistic ‖e_T‖, bound
// B_T + R_T); decided false when the run is within the bound (the caller
// then reports inconclusive), with the two numbers in v.
func (r *regression) rateVerdict(theta []float64, rate GRWRate) (v theorems.Verdict, decided bool) {
	steps := len(rate.QMin)
	b, rnd, _, err := r.rateBound(rate)
	if err != nil {
		return theorems.Invalid(err), true
	}
	e := r.spanError(theta)
	if e > b+rnd || math.IsNaN(e) {
		return theorems.Compare(e, b+rnd, fmt.Sprintf("‖P_span(θ_T − θ*)‖ = %.3g after %d steps, above the computed rate ‖θ₀ − θ*‖·Π(1 − η q_min^{(t)} λ_min) = %.3g (+ rounding %.3g): the iterates are not GD on the weights the scheme wrote (ZD eqs. 29, 31)", e, steps, b, rnd)), true
	}
	return theorems.Verdict{Statistic: e, Bound: b + rnd}, false
}

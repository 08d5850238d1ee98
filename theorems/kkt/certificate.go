package kkt

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
	"github.com/implicitbias/implicitbias/train"
)

// C8IdentityBound is LL-C8's bound on |LHS − RHS|/(q_min^{−2/L}ρ²), times the
// cancellation factor κ = Σ_n p_n f′(q_n)‖∇q_n‖ / ‖Σ_n p_n f′(q_n)∇q_n‖
// (p_n = ℓ_n/𝓛). The left side is a squared norm of θ̃ − Σλ_n h̃_n built from
// single-sample gradients, the right side comes from β and the batched
// gradient: each vector has norm R = q_min^{−1/L}ρ and a relative rounding
// of about κ·H·W·ε ≤ κ·4e-14 (see EulerBound), so the two squares differ by
// at most ~6κ·4e-14·R²; 1e-10 is the bound of the Euler identity (LL-B3).
const C8IdentityBound = 1e-10

// C8 is the Lemma C.8 certificate at one θ.
type C8 struct {
	// Beta = ⟨θ̂, h⟩/‖h‖, h = −∇𝓛.
	Beta float64
	// LHS = ‖θ̃ − Σ_n λ_n h̃_n‖² with λ_n = q_min^{1−2/L} ρ e^{−f(q_n)} f′(q_n)/‖h‖
	// and h̃_n = ∇q_n(θ)/q_min^{1−1/L}; RHS = q_min^{−2/L} ρ² (2 − 2β);
	// Bound = (2/γ̃^{2/L})(1 − β).
	LHS, RHS, Bound float64
	// Scale is R² = q_min^{−2/L}ρ² = ‖θ̃‖², the size of both sides' terms;
	// Kappa the cancellation factor of the gradient sum.
	Scale, Kappa float64
	// Lambda are the λ_n; Delta = Σ_n λ_n(q_n(θ̃) − 1), the δ of the
	// certificate (Epsilon = √LHS).
	Lambda []float64
	Delta  float64
}

// LemmaC8Certificate computes the certificate of LL Lemma C.8 at θ for a
// separated θ (𝓛 < ℓ(b_f)).
func LemmaC8Certificate(obj *train.Objective, theta []float64, L float64) (*C8, error) {
	m, L, bad := kktSetting(obj, L)
	if bad != nil {
		return nil, &assumptionError{bad.Detail}
	}
	ev, err := obj.Evaluate(theta, true)
	if err != nil {
		return nil, err
	}
	if !(ev.LogLoss < losses.LogThreshold(m)) {
		return nil, &assumptionError{fmt.Sprintf("Lemma C.8 needs t > t0, 𝓛 < ℓ(b_f): log 𝓛 = %.6g ≥ %.6g", ev.LogLoss, losses.LogThreshold(m))}
	}
	q, rho := ev.QMin, floats.Norm(theta, 2)
	dn := floats.Norm(ev.Dir, 2)
	if dn == 0 {
		return nil, errors.New("theorems: ∇𝓛 = 0 in float64")
	}
	c := &C8{Beta: -floats.Dot(theta, ev.Dir) / (rho * dn)}
	N, P := obj.Data.N, obj.Model.NumParams()
	// θ̃ − Σ λ_n h̃_n with λ_n h̃_n = q^{−1/L} ρ p_n f′(q_n) ∇q_n(θ)/‖Dir‖.
	v := make([]float64, P)
	floats.ScaleTo(v, math.Pow(q, -1/L), theta)
	g := models.NewGrader(obj.Model)
	grad := make([]float64, P)
	sum := make([]float64, P)
	var absSum float64
	c.Lambda = make([]float64, N)
	for n := 0; n < N; n++ {
		x := obj.Data.Row(n)
		y := obj.Data.Y[n]
		g.Grad(theta, x, 0, grad)
		w := math.Exp(ev.LogSample[n]-ev.LogLoss) * m.FPrime(ev.Margins[n])
		floats.AddScaled(sum, w*y, grad)
		absSum += w * floats.Norm(grad, 2)
		c.Lambda[n] = math.Pow(q, 1-2/L) * rho * w / dn
		c.Delta += c.Lambda[n] * (ev.Margins[n]/q - 1)
	}
	floats.AddScaled(v, -math.Pow(q, -1/L)*rho/dn, sum)
	c.LHS = floats.Dot(v, v)
	c.Scale = math.Pow(q, -2/L) * rho * rho
	c.RHS = c.Scale * (2 - 2*c.Beta)
	gt := m.G(-ev.LogLoss) / math.Pow(rho, L)
	c.Bound = 2 / math.Pow(gt, 2/L) * (1 - c.Beta)
	if sn := floats.Norm(sum, 2); sn > 0 {
		c.Kappa = absSum / sn
	} else {
		c.Kappa = math.Inf(1)
	}
	return c, nil
}

// LemmaC8 checks LL-C8 (Lemma C.8) at θ: the exact identity
//
//	‖θ̃ − Σ_n λ_n h̃_n‖² = q_min^{−2/L} ρ² (2 − 2β)
//
// to C8IdentityBound·max(1, κ) relative to q_min^{−2/L}ρ², and the bound
// q_min^{−2/L}ρ²(2 − 2β) ≤ (2/γ̃^{2/L})(1 − β), which is γ̃ ≤ γ̄ (Lemma A.5)
// multiplied by 2(1 − β) ≥ 0, to 1e-12 relative (a handful of roundings).
// The identity rests on the chain rule h = Σ_n e^{−f(q_n)} f′(q_n)∇q_n: it
// ties the engine's batched gradient to its single-sample gradients.
func LemmaC8(obj *train.Objective, theta []float64, L float64) theorems.Verdict {
	c, err := LemmaC8Certificate(obj, theta, L)
	if err != nil {
		return measureVerdict(err)
	}
	bound := C8IdentityBound * math.Max(1, c.Kappa)
	e := math.Abs(c.LHS-c.RHS) / c.Scale
	detail := fmt.Sprintf("‖θ̃ − Σλh̃‖² = %.17g, q^{−2/L}ρ²(2−2β) = %.17g, (2/γ̃^{2/L})(1−β) = %.6g (β = %.12g, κ = %.3g, δ = %.4g)", c.LHS, c.RHS, c.Bound, c.Beta, c.Kappa, c.Delta)
	if math.IsInf(c.Kappa, 0) {
		return theorems.Undecided("the gradient sum vanishes in float64: %s", detail)
	}
	v := theorems.Compare(e, bound, detail)
	if v.Status == theorems.Holds && c.RHS > c.Bound*(1+1e-12)+1e-12*c.Scale {
		v.Status = theorems.Violated
		v.Detail = "the bound q^{−2/L}ρ²(2−2β) ≤ (2/γ̃^{2/L})(1−β) fails: " + detail
	}
	return v
}

// MFCQ checks LL-C7 (Lemma C.7): (P) satisfies the Mangasarian–Fromovitz
// constraint qualification at the feasible point θ̃ = θ/q_min^{1/L}. It
// checks the paper's witness v = θ̃ on every constraint (a superset of the
// active ones): ⟨θ̃, ∇q_n(θ̃)⟩ = L q_n(θ̃) (Euler, to EulerBound relative to
// ‖θ̃‖‖∇q_n‖) and ⟨θ̃, ∇q_n(θ̃)⟩ > 0; and, independently of the witness, that
// the gradients of the active constraints (q_n(θ̃) ≤ 1 + MFCQActiveTol) can
// be strictly separated from 0 (Gordan's alternative, solved as a hard-margin
// SVM): MFCQ fails exactly when 0 is a convex combination of them.
func MFCQ(obj *train.Objective, theta []float64, L float64) theorems.Verdict {
	k, err := constraintGrads(obj, theta, L)
	if err != nil {
		return measureVerdict(err)
	}
	tt := make([]float64, len(theta))
	floats.ScaleTo(tt, math.Pow(k.QMin, -1/k.L), theta)
	_, N := k.Grads.Dims()
	worst, minCos := 0.0, math.Inf(1)
	detail := ""
	var active []int
	for n := 0; n < N; n++ {
		gn := k.Grads.ColView(n)
		ip := mat.Dot(mat.NewVecDense(len(tt), tt), gn)
		scale := floats.Norm(tt, 2) * mat.Norm(gn, 2)
		if scale == 0 {
			return violatedBy(fmt.Sprintf("∇q_%d(θ̃) = 0: no v has ⟨v, ∇q_%d⟩ > 0", n+1, n+1))
		}
		e := math.Abs(ip-k.L*k.Margins[n]) / scale
		if e > worst {
			worst = e
			detail = fmt.Sprintf("constraint %d: ⟨θ̃, ∇q⟩ = %.17g, L·q = %.17g (L = %g)", n+1, ip, k.L*k.Margins[n], k.L)
		}
		minCos = math.Min(minCos, ip/scale)
		if k.Margins[n]-1 <= MFCQActiveTol {
			active = append(active, n)
		}
	}
	v := theorems.Compare(worst, homogeneity.EulerBound, detail)
	if v.Status != theorems.Holds {
		v.Detail = "the witness argument ⟨θ, ∇q_n⟩ = L·q_n fails: " + v.Detail
		return v
	}
	if !(minCos > 0) {
		return violatedBy(fmt.Sprintf("v = θ̃ is not a witness: min_n cos∠(θ̃, ∇q_n) = %.3g", minCos))
	}
	if w := MFCQGordan(k.Grads, active); w.Status != theorems.Holds {
		return w
	}
	v.Detail = fmt.Sprintf("witness v = θ̃: min_n cos∠(v, ∇q_n) = %.4g > 0 over %d constraints (%d active); %s", minCos, N, len(active), detail)
	return v
}

// MFCQActiveTol is the slack within which a constraint q_n(θ̃) ≥ 1 counts as
// active: q_n(θ̃) = q_n(θ)/q_min is exactly 1 for the minimizer and within a
// few ulps of 1 for ties.
const MFCQActiveTol = 1e-9

// MFCQGordan checks MFCQ for the constraint gradients in the columns of
// grads listed in active: some v has ⟨v, g_n⟩ > 0 for all of them exactly
// when 0 is not a convex combination of them (Gordan). It solves the
// hard-margin SVM with features g_n and labels +1: separable means MFCQ
// holds (the SVM's w is a witness); not separable returns Violated with the
// certificate.
func MFCQGordan(grads *mat.Dense, active []int) theorems.Verdict {
	if len(active) == 0 {
		return theorems.Compare(0, 0, "no active constraint")
	}
	p, _ := grads.Dims()
	x := mat.NewDense(len(active), p, nil)
	ones := make([]float64, len(active))
	for i, n := range active {
		for j := 0; j < p; j++ {
			x.Set(i, j, grads.At(j, n))
		}
		ones[i] = 1
	}
	sol, err := numerics.HardMarginSVM(x, ones, nil)
	var ns *numerics.NotSeparableError
	switch {
	case errors.As(err, &ns):
		return violatedBy(fmt.Sprintf("MFCQ fails: 0 is a convex combination of the active gradients (weights %.3g, residual %.2g)", ns.Certificate, ns.Residual))
	case err != nil:
		return theorems.Undecided("Gordan test: %v", err)
	}
	return theorems.Compare(0, 0, fmt.Sprintf("active gradients separated from 0 with margin %.4g", sol.Margin))
}

// violatedBy returns a Violated verdict with a NaN statistic.
func violatedBy(detail string) theorems.Verdict {
	return theorems.Verdict{Status: theorems.Violated, Statistic: math.NaN(), Detail: detail}
}

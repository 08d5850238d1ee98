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
	"github.com/implicitbias/implicitbias/train"
)

// KKT measures the first-order optimality of the max-margin problem
//
//	(P)  minimize ½‖θ‖²  s.t.  q_n(θ) ≥ 1,  n = 1…N,
//
// at θ̃ = θ/q_min(θ)^{1/L}, the feasible point on θ's ray with q_min = 1
// (LL §4, App. C).
type KKT struct {
	// L is the homogeneity order used.
	L float64
	// QMin is q_min(θ), Rho is ρ = ‖θ‖, LogLoss is log 𝓛(θ).
	QMin, Rho, LogLoss float64
	// SmoothedMargin is γ̃(θ) = g(log 1/𝓛)/ρ^L; NormalizedMargin is γ̄ = q_min/ρ^L.
	SmoothedMargin, NormalizedMargin float64
	// Beta is β = ⟨θ̂, −∇𝓛⟩/‖∇𝓛‖, the cosine of the angle between θ and the
	// descent direction (LL App. C.3).
	Beta float64
	// ThetaTildeNorm is ‖θ̃‖ = ρ/q_min^{1/L} = γ̄^{−1/L}.
	ThetaTildeNorm float64
	// Epsilon and Delta make θ̃ an (Epsilon, Delta)-KKT point of (P) (LL
	// Def. C.6) with the multipliers Lambda:
	//
	//	Epsilon = ‖θ̃ − Σ_n λ_n ∇q_n(θ̃)‖,   Delta = Σ_n λ_n (q_n(θ̃) − 1).
	//
	// Lambda = L·α*, α* the dual of the hard-margin SVM (Q) in the
	// gradient-feature space at θ̃ (SVM below; LL Lemma C.13). Among all
	// λ ≥ 0 this λ minimizes Epsilon²/2 + L·Delta: with x = θ̃/L and
	// z_n = ∇q_n(θ̃), Euler's identity gives ⟨x, z_n⟩ = q_n(θ̃), so for
	// μ = λ/L the duality gap of (Q) at (x, μ) is
	//
	//	½‖x − Σμ_n z_n‖² + Σ_n μ_n(⟨x, z_n⟩ − 1) = (Epsilon²/2 + L·Delta)/L²,
	//
	// minimized by the dual optimum μ = α*. Both vanish exactly at a KKT
	// point, where θ̃/L solves (Q).
	Epsilon, Delta float64
	Lambda         []float64
	// Gap is (Epsilon²/2 + L·Delta)/L² = ½‖θ̃/L‖² − ½‖w*‖², the duality gap
	// of (Q) at θ̃/L; ‖θ̃/L − w*‖ ≤ √(2·Gap) (w* is the projection of 0 on
	// the feasible set of (Q), which contains θ̃/L).
	Gap float64
	// SVM is the solution of (Q): min ½‖w‖² s.t. ⟨w, ∇q_n(θ̃)⟩ ≥ 1.
	SVM *numerics.SVM
	// EpsilonNNLS = min_{λ ≥ 0} ‖θ̃ − Σ_n λ_n ∇q_n(θ̃)‖ (the catalog's NNLS
	// residual, a lower bound on Epsilon), LambdaNNLS its minimizer and
	// DeltaNNLS = Σ_n λ_n(q_n(θ̃) − 1) for it. When the gradients
	// positively span θ̃ (always once N > P) EpsilonNNLS = 0 and its
	// minimizer is not unique, so DeltaNNLS is an arbitrary member of a
	// range: it need not go to 0 along training.
	EpsilonNNLS, DeltaNNLS float64
	LambdaNNLS             []float64
	// Grads holds ∇q_n(θ̃) = y_n ∇Φ(θ̃; x_n) as the columns of a P×N matrix,
	// and Margins q_n(θ̃) = q_n(θ)/q_min (≥ 1).
	Grads   *mat.Dense
	Margins []float64
	// SVMAngle is ∠(θ̃, w*), w* the solution of (Q): by LL Cor 4.5 it → 0
	// along a converging trajectory; sin SVMAngle ≤ √(2·Gap)·L/‖θ̃‖.
	SVMAngle float64
	// Drift is the largest angle between the first iterate of a window and
	// the others (0 at a point).
	Drift float64
}

// ErrNotSeparated reports a θ with q_min ≤ 0, where θ̃ = θ/q_min^{1/L} does
// not exist (no positive multiple of θ is feasible for (P)).
var ErrNotSeparated = errors.New("theorems: q_min(θ) ≤ 0: no multiple of θ is feasible for (P)")

// kktSetting checks that obj is LL's setting — an unweighted sum of a binary
// margin loss ℓ = e^{−f} over a homogeneous model without regularizer — and
// returns the loss and the order L (declared, or derived when 0).
func kktSetting(obj *train.Objective, declared float64) (losses.Margin, float64, *theorems.Verdict) {
	if obj.Reg != nil {
		v := theorems.Assumption("(P) and LL's 𝓛 are stated without a regularizer; the objective has one")
		return nil, 0, &v
	}
	m, ok := losses.MarginOf(obj.Loss)
	if !ok || obj.Loss.Kind() != losses.Binary {
		v := theorems.Assumption("LL App. C needs a binary margin loss ℓ = e^{−f}, got %s", obj.Loss.Name())
		return nil, 0, &v
	}
	for n := 0; n < obj.Data.N; n++ {
		if obj.LogWeight(n) != 0 {
			v := theorems.Assumption("LL App. C's 𝓛 = Σ_n ℓ(q_n) is unweighted (its KKT multipliers λ_n are of equal samples); sample %d has weight %.6g relative to the smallest", n+1, math.Exp(obj.LogWeight(n)))
			return nil, 0, &v
		}
	}
	L := declared
	if L == 0 {
		d := obj.Model.Degree()
		if !d.Homogeneous {
			v := theorems.Assumption("(A2) homogeneity: model %s is %s", obj.Model, d)
			return nil, 0, &v
		}
		L = d.Order
	}
	if !(L > 0) {
		v := theorems.Assumption("(A2) needs an order L > 0, got %v", L)
		return nil, 0, &v
	}
	return m, L, nil
}

// assumptionError is an error that means the case is outside LL's
// hypotheses (reported as assumption-failed, never inconclusive).
type assumptionError struct{ msg string }

func (e *assumptionError) Error() string { return e.msg }

// MeasureKKT computes the KKT quantities of (P) at θ for order L (0: derive
// it from the model). It returns an error wrapping ErrNotSeparated when
// q_min ≤ 0.
func MeasureKKT(obj *train.Objective, theta []float64, L float64) (*KKT, error) {
	return MeasureKKTWindow(obj, [][]float64{theta}, L)
}

// MeasureKKTWindow computes the KKT quantities of (P) over a window of
// consecutive iterates θ_1 … θ_K of one trajectory (K = 1: at a point).
//
// Gradient descent on a ReLU network zigzags across kinks: from one step to
// the next some unit's pre-activation changes sign, and the gradient at any
// single iterate is the one-sided gradient of one smooth piece. The flow it
// tracks slides along the kink with a velocity in the Clarke subdifferential
// (LL assume (A1) and use ∂°), a convex combination of the one-sided
// gradients. Over a short window the averages
//
//	θ̃ = (1/K) Σ_s θ_s/q_min(θ_s)^{1/L},   h_n = (1/K) Σ_s ∇q_n(θ̃_s),
//	−∇𝓛 ≈ −Σ_s ∇𝓛(θ_s)   (the GD displacement over the window, up to η)
//
// are such combinations, and the quantities below are computed from them
// (Beta from the summed gradients, Epsilon and Delta from θ̃ and h_n).
// Scalars that describe θ (QMin, Rho, LogLoss, margins) are those of θ_1.
// Drift reports max_s ∠(θ_s, θ_1), the angle the window spans: the averages
// are Clarke subgradients at θ_1 up to that displacement. For smooth models
// one iterate suffices.
func MeasureKKTWindow(obj *train.Objective, thetas [][]float64, L float64) (*KKT, error) {
	return measureKKTWindow(obj, thetas, L, true)
}

// MeasureKKTWindowSVM is MeasureKKTWindow without the NNLS multipliers
// (EpsilonNNLS and DeltaNNLS NaN, LambdaNNLS nil): what the tail bounds of
// LL-4.4 and LL-A9 and the rows of package check read. The NNLS is a
// second QR of the P×N gradient matrix, about half of the measurement's
// cost (measured on check's width-32 MLP benchmark: 11.9 of 22.5 s).
func MeasureKKTWindowSVM(obj *train.Objective, thetas [][]float64, L float64) (*KKT, error) {
	return measureKKTWindow(obj, thetas, L, false)
}

func measureKKTWindow(obj *train.Objective, thetas [][]float64, L float64, nnls bool) (*KKT, error) {
	m, L, bad := kktSetting(obj, L)
	if bad != nil {
		return nil, &assumptionError{bad.Detail}
	}
	if len(thetas) == 0 {
		return nil, errors.New("theorems: empty window")
	}
	d, N, P := obj.Data, obj.Data.N, obj.Model.NumParams()
	k := &KKT{L: L, Grads: mat.NewDense(P, N, nil), Margins: make([]float64, N)}
	tt := make([]float64, P)
	descent := make([]float64, P) // Σ_s −∇𝓛(θ_s)·e^{−log 𝓛(θ_1)}
	g := models.NewGrader(obj.Model)
	grad := make([]float64, P)
	scaled := make([]float64, P)
	K := float64(len(thetas))
	var logL0 float64
	for s, theta := range thetas {
		if len(theta) != P {
			return nil, fmt.Errorf("theorems: θ has %d entries, model %s needs %d", len(theta), obj.Model, P)
		}
		ev, err := obj.Evaluate(theta, true)
		if err != nil {
			return nil, err
		}
		rho := floats.Norm(theta, 2)
		if !(ev.QMin > 0) {
			return nil, &assumptionError{fmt.Sprintf("%v (q_min = %.6g at iterate %d of the window): t < t0", ErrNotSeparated, ev.QMin, s+1)}
		}
		if rho == 0 || floats.Norm(ev.Dir, 2) == 0 {
			return nil, fmt.Errorf("theorems: degenerate point: ‖θ‖ = %g, ‖∇𝓛‖ = 0 in float64", rho)
		}
		if s == 0 {
			logL0 = ev.LogLoss
			k.QMin, k.LogLoss, k.Rho = ev.QMin, ev.LogLoss, rho
			rhoL := math.Pow(rho, L)
			k.SmoothedMargin = m.G(-ev.LogLoss) / rhoL
			k.NormalizedMargin = ev.QMin / rhoL
		} else {
			k.Drift = math.Max(k.Drift, numerics.Angle(theta, thetas[0]))
		}
		// ∇𝓛(θ_s) = e^{log 𝓛_s}·Dir_s; summed relative to 𝓛(θ_1).
		floats.AddScaled(descent, -math.Exp(ev.LogLoss-logL0), ev.Dir)
		c := math.Pow(ev.QMin, -1/L)
		floats.ScaleTo(scaled, c, theta)
		floats.AddScaled(tt, 1/K, scaled)
		raw := k.Grads.RawMatrix() // column n, written in place (At/Set per entry cost as much as the gradient)
		for n := 0; n < N; n++ {
			phi := g.Grad(scaled, d.Row(n), 0, grad)
			y := d.Y[n]
			k.Margins[n] += y * phi / K
			for p := 0; p < P; p++ {
				raw.Data[p*raw.Stride+n] += y * grad[p] / K
			}
		}
	}
	dn := floats.Norm(descent, 2)
	if dn == 0 || math.IsInf(dn, 0) || math.IsNaN(dn) {
		return nil, fmt.Errorf("theorems: the window's summed gradient has norm %v", dn)
	}
	k.Beta = floats.Dot(thetas[0], descent) / (k.Rho * dn)
	k.ThetaTildeNorm = floats.Norm(tt, 2)

	k.EpsilonNNLS, k.DeltaNNLS = math.NaN(), math.NaN()
	if nnls {
		res, err := numerics.NNLS(k.Grads, tt, nil)
		if err != nil {
			return nil, err
		}
		k.EpsilonNNLS, k.LambdaNNLS, k.DeltaNNLS = res.Residual, res.X, 0
		for n, l := range res.X {
			k.DeltaNNLS += l * (k.Margins[n] - 1)
		}
	}
	// (Q) with signed features z_n = ∇q_n(θ̃) and labels +1; θ̃/L is
	// feasible (Euler's identity), so (Q) is separable.
	ones := make([]float64, N)
	for n := range ones {
		ones[n] = 1
	}
	sol, err := numerics.HardMarginSVM(k.Grads.T(), ones, nil)
	if err != nil {
		return nil, fmt.Errorf("theorems: SVM in the gradient-feature space at θ̃: %w", err)
	}
	k.SVM = sol
	k.Lambda = make([]float64, N)
	floats.ScaleTo(k.Lambda, L, sol.Alpha)
	r := make([]float64, P)
	floats.AddScaledTo(r, tt, -L, sol.W)
	k.Epsilon = floats.Norm(r, 2)
	for n, l := range k.Lambda {
		k.Delta += l * (k.Margins[n] - 1)
	}
	k.Gap = (k.Epsilon*k.Epsilon/2 + L*k.Delta) / (L * L)
	k.SVMAngle = numerics.Angle(tt, sol.W)
	return k, nil
}

// measureVerdict turns a measuring error into a verdict: a case outside the
// hypotheses is assumption-failed; a measurement that failed numerically
// could not decide.
func measureVerdict(err error) theorems.Verdict {
	var ae *assumptionError
	if errors.As(err, &ae) {
		return theorems.Verdict{Status: theorems.AssumptionFailed, Statistic: math.NaN(), Detail: ae.msg}
	}
	return theorems.Undecided("could not measure: %v", err)
}

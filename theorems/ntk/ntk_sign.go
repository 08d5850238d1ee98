package ntk

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
)

// SignRun is one (width, seed, μ) of a ZD-T9 sweep: a network trained
// from θ₀ by a GRW (Assumption 1) on the logistic loss plus
// (μ/2)‖θ − θ₀‖², and its linearization trained the same way, with the
// max-margin linearized network f_MM(x) = ⟨θ̂_MM, ∇f^{(0)}(x)⟩ (ZD eq. 18)
// from the kernel SVM on Θ^{(0)}(X, X).
type SignRun struct {
	Width int
	Seed  uint64
	Mu    float64
	// LastLayerNorm is ‖W^L(θ₀)‖ (ZD eq. 9: 0).
	LastLayerNorm float64
	// Risk is the network's ERM training risk (1/n)Σ log(1 + e^{−y_i f(x_i)})
	// at the end: the ε of Thm 9.
	Risk float64
	// R = ‖θ_lin − θ₀‖ of the linearized run's end, Gamma the kernel SVM's
	// margin γ = min_i y_i⟨θ̂_MM, ∇f^{(0)}(x_i)⟩, M = max_i |f^{(0)}(x_i)|,
	// QStar a lower bound on the limit weights (min_i q_i), Delta the
	// measured δ = ‖θ̂_MM − (θ_lin − θ₀)/R‖.
	R, Gamma, M, QStar, Delta float64
	// On the test points: f_MM, ‖∇f^{(0)}(x)‖, f^{(0)}, the network's and
	// the linearization's outputs at the end.
	FMM, GNorm, F0, FReg, FLin []float64
	// ApproxGap is sup_t max_x |f_reg^{(t)} − f_linreg^{(t)}| (Lemma 16).
	ApproxGap float64
	// Settled reports that both runs stopped by their drift test.
	Settled bool
	// LinPath compares the linearized run with GD on eq. (11) +
	// (μ/2)‖θ − θ₀‖² on the logistic loss computed in function space, and
	// measures the weights' effect on that path.
	LinPath LinPath
}

// DeltaBound is the bound on δ = ‖θ̂_MM − θ̃_R‖ in ZD's proof of Thm 9
// (App. D.6, eq. 157–158), for the exact minimizer Rθ̃_R of the
// regularized linearized objective with limit weights q ≥ q*:
//
//	q*·ℓ((1 − δ²/4)Rγ + M) ≤ F(Rθ̃_R) ≤ F(Rθ̂_MM) ≤ ℓ(Rγ − M),
//
// ℓ(z) = log(1 + e^{−z}), solved exactly for δ:
//
//	δ ≤ 2√(1 − (z* − M)/(Rγ)),   z* = ℓ⁻¹(ℓ(Rγ − M)/q*) = −log(e^{ℓ(Rγ−M)/q*} − 1).
//
// For large Rγ this is 2√((2M − log q*)/(Rγ)) (eq. 160). ZD's eq. (159)
// gets there through (1 + a)^{q*} ≥ 1 + q*a, which is reversed for
// q* < 1 (Bernoulli); solving the inequality directly avoids that step.
// The result is capped at 2 (δ ≤ 2 for unit vectors).
func DeltaBound(R, gamma, M, qstar float64) float64 {
	if !(R > 0) || !(gamma > 0) || !(qstar > 0) || qstar > 1 {
		return math.NaN()
	}
	// In log domain: ℓ(Rγ − M) underflows for Rγ ≳ 745. With
	// lv = log v, v = ℓ(Rγ − M)/q*: z* = −log(e^v − 1), and for tiny v
	// log(e^v − 1) = log v + log(expm1(v)/v) = log v + v/2 + O(v²).
	lv := numerics.LogLog1pExp(-(R*gamma - M)) - math.Log(qstar)
	var zstar float64
	if lv < -40 {
		zstar = -(lv + math.Exp(lv)/2)
	} else {
		zstar = -numerics.LogExpm1(math.Exp(lv))
	}
	s := 1 - (zstar-M)/(R*gamma)
	if s >= 1 {
		return 2
	}
	return 2 * math.Sqrt(math.Max(s, 0))
}

// deltaSlack is the slack of δ ≤ DeltaBound: the linearized runs stop
// once their test outputs can move by at most 1e-7 (their drift test), an
// optimization error of that order in F and in δ; the bound is compared
// with 1e-6 of room.
const deltaSlack = 1e-6

// MaxSignRisk is Thm 9's hypothesis on the training risk: ε < 1/4.
const MaxSignRisk = 0.25

// SignAgreement checks ZD-T9 (Thm 9, App. D.6) on a sweep over widths and
// μ. For every run:
//
//   - the linearized run is GD on eq. (11) + (μ/2)‖θ − θ₀‖² with its
//     weights: it must follow that GD computed in function space (LinPath),
//     and the weights must move it visibly from the uniform weights' path;
//   - the linear core, exact: the linearized run's direction is within
//     DeltaBound(R, γ, M, q*) of θ̂_MM (violated otherwise), so the
//     linearization agrees in sign with f_MM wherever
//     |f_MM(x)| > δ‖∇f^{(0)}(x)‖ + |f^{(0)}(x)|/R (checked too);
//   - the approximation (Lemma 16, whose loss condition the logistic loss
//     meets): sup_t |f_reg − f_linreg| falls with the width at least like
//     d̃^{−1/4} for each μ (decided as in NTKApproximation);
//   - the network's sign agrees with f_MM on the test points certified by
//     the measured δ (|f_MM(x)| > δ‖∇f^{(0)}(x)‖ + |f^{(0)}(x)|/R): required
//     at the widest width; a disagreement there while the gaps do fall is
//     inconclusive (the width is not yet in the asymptotic regime).
//
// Hypotheses: ε = Risk < 1/4, q* > 0 (Assumption 1), W^L(θ₀) = 0. The
// Detail reports, by width and μ, the agreement of the network with f_MM
// on the certified points and on all test points, and δ√R, which the
// theorem keeps bounded (δ = O(R^{−1/2})). With the proof's own constants
// the certified set of Thm 9 (DeltaBound in place of the measured δ) is
// empty until Rγ ≫ 2M − log q*, i.e. training risks like e^{−Rγ}: the
// Detail reports the bound next to δ.
func SignAgreement(runs []SignRun) theorems.Verdict { return signAgreement(runs, false) }

// signAgreement is SignAgreement; a probe (one job, ProbeSign) skips the
// width requirement and stops before the fits.
func signAgreement(runs []SignRun, probe bool) theorems.Verdict {
	var widths []int
	for _, r := range runs {
		widths = append(widths, r.Width)
		m := len(r.FMM)
		if m == 0 || len(r.GNorm) != m || len(r.F0) != m || len(r.FReg) != m || len(r.FLin) != m {
			return theorems.Invalid(fmt.Errorf("theorems: width %d seed %d: test-point arrays of unequal lengths", r.Width, r.Seed))
		}
		for _, v := range []float64{r.Mu, r.Risk, r.R, r.Gamma, r.M, r.QStar, r.Delta, r.ApproxGap, r.LastLayerNorm, r.LinPath.Err, r.LinPath.Effect} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return theorems.Invalid(fmt.Errorf("theorems: width %d seed %d μ %g: a measurement is %v", r.Width, r.Seed, r.Mu, v))
			}
		}
	}
	ws := distinctWidths(widths)
	if len(ws) < MinWidths && !probe {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-T9 needs ≥ %d widths, got %v", MinWidths, ws))
	}
	for _, r := range runs {
		switch {
		case r.LastLayerNorm != 0:
			return theorems.Assumption("ZD eq. (9) W^L(0) = 0 fails (width %d seed %d: ‖W^L(0)‖ = %.3g)", r.Width, r.Seed, r.LastLayerNorm)
		case !(r.QStar > 0):
			return theorems.Assumption("Assumption 1's min q > 0 fails (width %d seed %d)", r.Width, r.Seed)
		case !(r.Gamma > 0):
			return theorems.Assumption("the gradient features are not separable (width %d seed %d): no max-margin direction", r.Width, r.Seed)
		case r.Risk >= MaxSignRisk:
			v := theorems.Assumption("Thm 9's training risk ε < 1/4 fails: μ = %.3g (width %d seed %d) leaves ε = %.3g; δ = %.3g, and the network agrees with f_MM on %s of the test points",
				r.Mu, r.Width, r.Seed, r.Risk, r.Delta, agreeAll(r))
			v.Statistic, v.Bound = r.Risk, MaxSignRisk
			return v
		}
	}
	for _, r := range runs {
		if v, ok := linPathVerdict(fmt.Sprintf("width %d seed %d μ = %.3g", r.Width, r.Seed, r.Mu), r.LinPath); ok {
			return v
		}
	}
	for _, r := range runs {
		b := DeltaBound(r.R, r.Gamma, r.M, r.QStar)
		if r.Delta > b+deltaSlack {
			return theorems.Verdict{Status: theorems.Violated, Statistic: r.Delta, Bound: b,
				Detail: fmt.Sprintf("ZD App. D.6 (eq. 157–158): width %d seed %d μ = %.3g: the linearized direction is δ = %.4g from θ̂_MM, above the bound %.4g at R = %.3g, γ = %.3g, M = %.3g, q* = %.3g", r.Width, r.Seed, r.Mu, r.Delta, b, r.R, r.Gamma, r.M, r.QStar)}
		}
		for i := range r.FMM {
			if margin := r.R*(math.Abs(r.FMM[i])-b*r.GNorm[i]) - math.Abs(r.F0[i]); margin > deltaSlack*r.R*r.GNorm[i] && r.FLin[i]*r.FMM[i] <= 0 {
				return theorems.Verdict{Status: theorems.Violated, Statistic: r.FLin[i] * r.FMM[i], Bound: 0,
					Detail: fmt.Sprintf("width %d seed %d μ = %.3g: test point %d is certified (|f_MM| = %.3g > δ_bound‖∇f⁰‖ + |f⁰|/R) but f_lin = %.3g has the other sign", r.Width, r.Seed, r.Mu, i, math.Abs(r.FMM[i]), r.FLin[i])}
			}
		}
	}
	if probe {
		return probeUndecided
	}
	byMu := map[float64][]SignRun{}
	var mus []float64
	for _, r := range runs {
		if _, ok := byMu[r.Mu]; !ok {
			mus = append(mus, r.Mu)
		}
		byMu[r.Mu] = append(byMu[r.Mu], r)
	}
	sort.Float64s(mus)
	var parts []string
	var fits []LogLogFit
	for _, mu := range mus {
		var x, y []float64
		for _, r := range byMu[mu] {
			x, y = append(x, float64(r.Width)), append(y, r.ApproxGap)
		}
		f, err := FitLogLog(x, y, nil)
		if err != nil {
			return theorems.Undecided("cannot fit sup|f_reg − f_linreg| at μ = %g: %v", mu, err)
		}
		fits = append(fits, f)
		parts = append(parts, fmt.Sprintf("μ = %g: slope of sup_t|f_reg − f_linreg| %s; %s", mu, f, signTable(byMu[mu])))
	}
	detail := strings.Join(parts, "; ")
	for _, r := range runs {
		if !r.Settled {
			return theorems.Undecided("width %d seed %d μ = %.3g: a run did not settle within its budget; %s", r.Width, r.Seed, r.Mu, detail)
		}
	}
	worst := math.Inf(-1)
	for i, f := range fits {
		if lo := f.Slope - f.HalfWidth(); lo > ApproximationExponent {
			return theorems.Verdict{Status: theorems.Violated, Statistic: lo, Bound: ApproximationExponent, Detail: fmt.Sprintf("μ = %g: sup_t|f_reg − f_linreg| does not fall like d̃^{−1/4} (Lemma 16); %s", mus[i], detail)}
		}
		worst = math.Max(worst, f.Slope+f.HalfWidth())
	}
	if worst > ApproximationExponent {
		return theorems.Undecided("a slope's confidence interval reaches above −1/4 (upper bound %.3f); %s", worst, detail)
	}
	widest := ws[len(ws)-1]
	certified := 0
	for _, r := range runs {
		c, agree := r.CertifiedAgreement()
		if r.Width == widest {
			certified += c
			if agree < c {
				return theorems.Undecided("width %d seed %d μ = %.3g: the network disagrees with f_MM on %d of the %d test points the linearization certifies, at the widest width; %s", r.Width, r.Seed, r.Mu, c-agree, c, detail)
			}
		}
	}
	if certified == 0 {
		return theorems.Undecided("no test point is certified at the widest width (|f_MM| ≤ δ‖∇f⁰‖ + |f⁰|/R everywhere); %s", detail)
	}
	return theorems.Verdict{Status: theorems.Holds, Statistic: worst, Bound: ApproximationExponent, Detail: detail}
}

// CertifiedAgreement counts the test points certified by the measured δ
// (|f_MM| > δ‖∇f⁰‖ + |f⁰|/R) and those of them where the network's sign is
// f_MM's.
func (r SignRun) CertifiedAgreement() (certified, agree int) {
	for i := range r.FMM {
		if r.R*(math.Abs(r.FMM[i])-r.Delta*r.GNorm[i]) > math.Abs(r.F0[i]) {
			certified++
			if r.FReg[i]*r.FMM[i] > 0 {
				agree++
			}
		}
	}
	return
}

// agreeAll is "k/m": the test points where the network's sign is f_MM's.
func agreeAll(r SignRun) string {
	k := 0
	for i := range r.FMM {
		if r.FReg[i]*r.FMM[i] > 0 {
			k++
		}
	}
	return fmt.Sprintf("%d/%d", k, len(r.FMM))
}

// signTable summarizes runs of one μ by width: mean ε, mean δ√R and the
// bound, agreement on the certified points and on all points.
func signTable(runs []SignRun) string {
	by := map[int][]SignRun{}
	var widths []int
	for _, r := range runs {
		by[r.Width] = append(by[r.Width], r)
		widths = append(widths, r.Width)
	}
	var cells []string
	for _, w := range distinctWidths(widths) {
		var eps, dr, db float64
		c, a, all, m := 0, 0, 0, 0
		for _, r := range by[w] {
			eps += r.Risk
			dr += r.Delta * math.Sqrt(r.R)
			db += DeltaBound(r.R, r.Gamma, r.M, r.QStar)
			ci, ai := r.CertifiedAgreement()
			c, a = c+ci, a+ai
			for i := range r.FMM {
				if r.FReg[i]*r.FMM[i] > 0 {
					all++
				}
			}
			m += len(r.FMM)
		}
		k := float64(len(by[w]))
		cells = append(cells, fmt.Sprintf("%d: ε %.3g, δ√R %.3g (bound on δ %.3g), agree %d/%d certified, %d/%d all", w, eps/k, dr/k, db/k, a, c, all, m))
	}
	return strings.Join(cells, ", ")
}

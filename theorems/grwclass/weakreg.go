package grwclass

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Weak regularization (XY Claim 1, Prop. 3): the optima of
//
//	L_λ(θ; w) = Σ_i w̄_i ℓ(y_i⟨θ, x_i⟩) + λ‖θ‖^r,   w̄ = w/Σw,
//
// of a linear model with an exponentially tailed loss. (XY writes the risk
// as a mean (1/n)Σ w_i ℓ_i with Σw = 1 and drops the 1/n in the proofs; the
// normalized sum here is the GRW objective of the engine, and the bounds
// below are written for it.)

// RegOptimum is a (computed) minimizer θ_λ of L_λ.
type RegOptimum struct {
	Lambda float64
	Theta  []float64
}

// NearOptimal is a point θ' with L_λ(θ') = Tau·L_λ(θ_λ) (XY Prop. 3,
// finite steps: τ ≤ 2).
type NearOptimal struct {
	Lambda, Tau float64
	Theta       []float64
}

// OptimalityTol is the relative slack of the comparisons of L_λ(θ_λ) with
// other points: the optima come from train.Minimize, stationary to 1e-10 in
// the gradient of log L_λ, so log L_λ is within ~1e-20/λ_min of its minimum
// (λ_min ≳ 1e-6 on the scales here); 1e-9 covers that and the rounding of
// the log-domain sums.
const OptimalityTol = 1e-9

// weakProblem holds what the weak-regularization checks share.
type weakProblem struct {
	data  *dataset.Dataset
	m     losses.Margin
	r     float64
	wbar  []float64
	wmin  float64
	xmax  float64
	gamma float64
	qStar []float64 // y_i⟨θ*, x_i⟩ of the unit SVM direction
	dir   []float64
	terms []float64
}

func newWeakProblem(data *dataset.Dataset, w []float64, m losses.Margin, r float64) (*weakProblem, *theorems.Verdict) {
	sol, bad := svm(data)
	if bad != nil {
		return nil, bad
	}
	wbar, err := train.NormalizeWeights(w)
	if err != nil || len(wbar) != data.N {
		v := theorems.Invalid(fmt.Errorf("weights: %v (%d for %d samples)", err, len(w), data.N))
		return nil, &v
	}
	if !(r > 0) {
		v := theorems.Invalid(fmt.Errorf("regularizer exponent r = %v, want > 0", r))
		return nil, &v
	}
	p := &weakProblem{data: data, m: m, r: r, wbar: wbar, wmin: floats.Min(wbar), gamma: sol.Margin, dir: sol.Direction(), terms: make([]float64, data.N)}
	for i := 0; i < data.N; i++ {
		p.xmax = math.Max(p.xmax, floats.Norm(data.Row(i), 2))
		p.qStar = append(p.qStar, data.Y[i]*floats.Dot(data.Row(i), p.dir))
	}
	return p, nil
}

// logLoss returns log L(θ) = log Σ w̄_i ℓ(q_i) for margins q.
func (p *weakProblem) logLoss(q []float64) float64 {
	for i, v := range q {
		p.terms[i] = math.Log(p.wbar[i]) + p.m.LogLoss(v)
	}
	return numerics.LogSumExp(p.terms)
}

func (p *weakProblem) margins(theta []float64) []float64 {
	q := make([]float64, p.data.N)
	for i := range q {
		q[i] = p.data.Y[i] * floats.Dot(p.data.Row(i), theta)
	}
	return q
}

// logObjective returns log L_λ(θ) = log(L(θ) + λ‖θ‖^r).
func (p *weakProblem) logObjective(theta []float64, lambda float64) float64 {
	return numerics.LogAddExp(p.logLoss(p.margins(theta)), math.Log(lambda)+p.r*math.Log(floats.Norm(theta, 2)))
}

// logRay returns log L_λ(Kθ*) for K ≥ 0.
func (p *weakProblem) logRay(k, lambda float64) float64 {
	q := make([]float64, len(p.qStar))
	floats.ScaleTo(q, k, p.qStar)
	l := p.logLoss(q)
	if k == 0 {
		return l
	}
	return numerics.LogAddExp(l, math.Log(lambda)+p.r*math.Log(k))
}

// logU returns log U(λ) = log min_{K≥0} L_λ(Kθ*), the best value along the
// SVM ray (XY (A.1), (A.13)). K ↦ L_λ(Kθ*) is convex for a convex loss and
// r ≥ 1, so golden-section search on [0, K_max] finds it, with K_max where
// λK^r alone exceeds L(0) = ℓ(0).
func (p *weakProblem) logU(lambda float64) float64 {
	kmax := math.Pow(math.Exp(-p.m.F(0))/lambda, 1/p.r)
	a, b := 0.0, kmax
	const g = 0.6180339887498949
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := p.logRay(c, lambda), p.logRay(d, lambda)
	for i := 0; i < 200 && b-a > 1e-13*(1+b); i++ {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = p.logRay(c, lambda)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = p.logRay(d, lambda)
		}
	}
	return math.Min(math.Min(fc, fd), p.logRay(0, lambda))
}

// weak reports whether θ is in the weak regime of ZD Thm 8 (iii) and XY
// Claim 1: L(θ) < min_i w̄_i ℓ(0), so that every sample is strictly
// separated (w̄_i ℓ(q_i) ≤ L < w̄_i ℓ(0) ⇒ q_i > 0).
func (p *weakProblem) weak(theta []float64) bool {
	return p.logLoss(p.margins(theta)) < math.Log(p.wmin)-p.m.F(0)
}

// StationarityTol bounds ‖∇ log L_λ(θ_λ)‖∞ recomputed by the checks from
// the data, the loss's slope and the regularizer's formula (stationarity),
// independently of the engine's gradient: train.Minimize stops at 1e-10 on
// its own ∇ log(𝓛 + R) (DefaultMinimizeGradTol), and the two computations
// of the same quantity differ by rounding, ≤ 8(N + 4)·ε·Σ|terms|/L_λ ≈ 1e-13
// here (terms of order max‖x‖ ≤ 1 and r); twice the minimizer's threshold
// leaves a factor 10³ over that. False-alarm rate: 0 (a bound; measured on
// the correct engine: at most 1.0e-10 of it on XY-C1's and XY-P3's ladders
// at seed 1). Catches an optimum of another objective: reweighting faults
// (faults' weights-ignored: the optimum of uniform weights leaves a
// gradient of the weights' effect, ≳ 10⁻³), a regularizer whose gradient is
// not its value's, a minimizer that stops early (at 1e-2: the norms still
// grow and the margins stay inside their bound, so only stationarity
// refutes it).
const StationarityTol = 2 * train.DefaultMinimizeGradTol

// stationarity returns ‖∇ log L_λ(θ)‖∞ = ‖∇L_λ‖∞/L_λ, from
// ∇L_λ = −Σ_i w̄_i f′(q_i)e^{−f(q_i)} y_i x_i + λ r ‖θ‖^{r−2} θ, each term
// scaled by 1/L_λ in log domain.
func (p *weakProblem) stationarity(theta []float64, lambda float64) float64 {
	q := p.margins(theta)
	logL := p.logLoss(q) // fills p.terms with log w̄_i ℓ(q_i)
	rho := floats.Norm(theta, 2)
	logR := math.Log(lambda) + p.r*math.Log(rho)
	logObj := numerics.LogAddExp(logL, logR)
	g := make([]float64, len(theta))
	for i := range q {
		floats.AddScaled(g, -math.Exp(p.terms[i]-logObj)*p.m.FPrime(q[i])*p.data.Y[i], p.data.Row(i))
	}
	if rho > 0 {
		floats.AddScaled(g, math.Exp(logR-logObj)*p.r/(rho*rho), theta)
	}
	return floats.Norm(g, math.Inf(1))
}

// stationary returns a violated verdict when a point of the ladder is not
// stationary for L_λ (StationarityTol), else the largest residual.
func (p *weakProblem) stationary(ladder []RegOptimum) (float64, *theorems.Verdict) {
	worst := 0.0
	for _, o := range ladder {
		res := p.stationarity(o.Theta, o.Lambda)
		if !(res <= StationarityTol) {
			v := theorems.Verdict{Status: theorems.Violated, Statistic: res / StationarityTol, Bound: 1, Detail: fmt.Sprintf("at λ = %.0e the point is not an optimum of L_λ: ‖∇ log L_λ‖∞ = %.3g, recomputed from the data, against %.3g (the minimizer stops at %.3g on its own gradient)", o.Lambda, res, StationarityTol, train.DefaultMinimizeGradTol)}
			return res, &v
		}
		worst = math.Max(worst, res)
	}
	return worst, nil
}

func sortedLadder(ladder []RegOptimum) []RegOptimum {
	l := append([]RegOptimum(nil), ladder...)
	sort.Slice(l, func(i, j int) bool { return l[i].Lambda > l[j].Lambda })
	return l
}

// WeakRegNorms checks XY Claim 1 on a ladder of weakly regularized optima
// θ_λ(w) of L_λ with the margin loss m and exponent r: the norm diverges as
// λ → 0, for every bounded weighting. It rests on XY (A.1): with
// U(λ) = min_K L_λ(Kθ*) the best value on the SVM ray, an optimum has
// L(θ_λ) ≤ L_λ(θ_λ) ≤ U(λ), and every term of L is at least
// w̄_i ℓ(‖θ‖·max‖x‖), so
//
//	‖θ_λ‖ ≥ ρ_lb(λ) = ℓ⁻¹(U(λ))/max_i‖x_i‖ = g(−log U(λ))/max‖x‖,
//
// and U(λ) ~ λ(log 1/λ)^r → 0, so ρ_lb(λ) ~ log(1/λ)/max‖x‖ → ∞. Checked at
// every λ of the weak regime (L(θ_λ) < min_i w̄_i ℓ(0)): L_λ(θ_λ) ≤ U(λ)
// (the optimum beats the SVM ray; OptimalityTol), ‖θ_λ‖ ≥ ρ_lb(λ)
// (statistic max ρ_lb/‖θ_λ‖ ≤ 1), and ‖θ_λ‖ does not decrease as λ falls
// (an exact property of minimizers: for λ₁ > λ₂, adding the two optimality
// inequalities gives (λ₁ − λ₂)(‖θ₁‖^r − ‖θ₂‖^r) ≤ 0). A ladder with fewer
// than two λ in the weak regime is not weak regularization
// (assumption-failed): strong regularization keeps the norm bounded by
// (ℓ(0)/λ)^{1/r}.
func WeakRegNorms(data *dataset.Dataset, w []float64, m losses.Margin, r float64, ladder []RegOptimum) theorems.Verdict {
	p, bad := newWeakProblem(data, w, m, r)
	if bad != nil {
		return *bad
	}
	res, bad := p.stationary(ladder)
	if bad != nil {
		return *bad
	}
	var weakL []RegOptimum
	var strong []string
	for _, o := range sortedLadder(ladder) {
		if p.weak(o.Theta) {
			weakL = append(weakL, o)
		} else {
			strong = append(strong, fmt.Sprintf("λ = %.0e: ‖θ‖ = %.3g ≤ (ℓ(0)/λ)^{1/r} = %.3g", o.Lambda, floats.Norm(o.Theta, 2), math.Pow(math.Exp(-m.F(0))/o.Lambda, 1/r)))
		}
	}
	if len(weakL) < 2 {
		return theorems.Assumption("regularization is not weak: L(θ_λ) ≥ min_i w̄_i ℓ(0) at %d of %d λ (%s)", len(ladder)-len(weakL), len(ladder), strings.Join(strong, "; "))
	}
	worst, prev := 0.0, 0.0
	var parts []string
	for _, o := range weakL {
		rho := floats.Norm(o.Theta, 2)
		lu := p.logU(o.Lambda)
		if lo := p.logObjective(o.Theta, o.Lambda); lo > lu+OptimalityTol*math.Max(1, math.Abs(lu)) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: lo - lu, Bound: 0, Detail: fmt.Sprintf("at λ = %.0e the point is worse than the SVM ray: log L_λ(θ_λ) = %.10g > log U(λ) = %.10g (not an optimum)", o.Lambda, lo, lu)}
		}
		if rho < prev*(1-1e-6) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: prev / rho, Bound: 1, Detail: fmt.Sprintf("‖θ_λ‖ fell from %.6g to %.6g as λ fell to %.0e (optima's norms cannot decrease as λ falls)", prev, rho, o.Lambda)}
		}
		prev = rho
		lb := p.m.G(-lu) / p.xmax
		worst = math.Max(worst, lb/rho)
		parts = append(parts, fmt.Sprintf("λ=%.0e: ‖θ‖ %.4g ≥ %.4g", o.Lambda, rho, lb))
	}
	return theorems.Compare(worst, 1, fmt.Sprintf("weak regime at %d of %d λ; %s (ρ_lb ~ log(1/λ)/max‖x‖ → ∞); stationarity ‖∇ log L_λ‖∞ ≤ %.3g", len(weakL), len(ladder), strings.Join(parts, ", "), res))
}

// expTail returns κ with κe^{−q} ≤ ℓ(q) ≤ e^{−q} for q ≥ 0 (XY C1's
// exponential tail, made quantitative): 1 for the exponential loss; log 2
// for the logistic loss, whose ℓ(q)e^q = e^q log(1 + e^{−q}) increases from
// log 2 at q = 0 to 1.
func expTail(m losses.Margin) (float64, bool) {
	switch losses.Declared(m).(type) {
	case losses.Exponential:
		return 1, true
	case losses.Logistic:
		return math.Ln2, true
	}
	return 0, false
}

// PropThreeC is the constant c of XY Prop. 3's finite-step bound
// γ̃(θ') ≥ c·γ*/τ^{α/r}; the proposition allows any c ∈ [1/10, 1) for λ
// small enough, and the check uses the weakest, 1/10.
const PropThreeC = 0.1

// WeakRegMargins checks XY Prop. 3 for the linear model (α = 1) with the
// exponential or logistic loss on a ladder of optima θ_λ(w):
//
//   - asymptotic: γ̄(θ_λ) → γ*. At every λ of the weak regime the optimum
//     beats the SVM direction at its own norm, L_λ(θ_λ) ≤ L_λ(‖θ_λ‖θ*), so
//     L(θ_λ) ≤ L(ρθ*) ≤ e^{−ργ*}, while L(θ_λ) ≥ w̄_min ℓ(ργ̄) ≥ κ w̄_min e^{−ργ̄}
//     (expTail): the gap obeys
//
//     γ* − γ̄(θ_λ) ≤ log(1/(κ w̄_min))/‖θ_λ‖,
//
//     which tends to 0 because ‖θ_λ‖ → ∞ (WeakRegNorms). The statistic is
//     the largest gap·‖θ_λ‖/log(1/(κ w̄_min)), against 1.
//
//   - finite steps: a point θ' with L_λ(θ') ≤ τ L_λ(θ_λ), τ ≤ 2, has
//     ‖θ'‖ ≤ (τL_λ(θ_λ)/λ)^{1/r} and κ w̄_min e^{−‖θ'‖γ̄'} ≤ τL_λ(θ_λ), so
//     γ̄(θ') ≥ log(κ w̄_min/(τL_λ(θ_λ)))·(λ/(τL_λ(θ_λ)))^{1/r}; at the λ where
//     that bound guarantees PropThreeC·γ*/τ^{1/r} for τ = 2 ("λ small
//     enough"; the bound times τ^{1/r} decreases in τ), every near-optimal
//     point must reach it. The detail reports the smallest c measured.
func WeakRegMargins(data *dataset.Dataset, w []float64, m losses.Margin, r float64, ladder []RegOptimum, near []NearOptimal) theorems.Verdict {
	kappa, ok := expTail(m)
	if !ok {
		return theorems.Assumption("XY Prop. 3 needs an exponentially tailed loss (C1): the check knows the tail constants of exp and logistic, not %s", m.Name())
	}
	p, bad := newWeakProblem(data, w, m, r)
	if bad != nil {
		return *bad
	}
	res, bad := p.stationary(ladder)
	if bad != nil {
		return *bad
	}
	c := math.Log(1 / (kappa * p.wmin))
	worst := 0.0
	var parts []string
	optimum := map[float64]float64{} // λ → log L_λ(θ_λ)
	nWeak := 0
	for _, o := range sortedLadder(ladder) {
		lo := p.logObjective(o.Theta, o.Lambda)
		optimum[o.Lambda] = lo
		if !p.weak(o.Theta) {
			continue
		}
		nWeak++
		rho := floats.Norm(o.Theta, 2)
		ray := make([]float64, len(p.dir))
		floats.ScaleTo(ray, rho, p.dir)
		if lr := p.logObjective(ray, o.Lambda); lo > lr+OptimalityTol*math.Max(1, math.Abs(lr)) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: lo - lr, Bound: 0, Detail: fmt.Sprintf("at λ = %.0e the point is worse than the SVM direction at its norm %.4g: log L_λ = %.10g > %.10g (not an optimum: margin %.4g vs γ* = %.4g)",
				o.Lambda, rho, lo, lr, floats.Min(p.margins(o.Theta))/rho, p.gamma)}
		}
		gap := p.gamma - floats.Min(p.margins(o.Theta))/rho
		worst = math.Max(worst, gap*rho/c)
		parts = append(parts, fmt.Sprintf("λ=%.0e: γ* − γ̄ = %.3g ≤ %.3g", o.Lambda, gap, c/rho))
	}
	if nWeak < 2 {
		return theorems.Assumption("regularization is not weak at %d of %d λ", len(ladder)-nWeak, len(ladder))
	}
	asym := theorems.Compare(worst, 1, fmt.Sprintf("γ* = %.5g; %s", p.gamma, strings.Join(parts, ", ")))
	// Finite steps.
	guaranteed := map[float64]bool{}
	var smallest []float64
	for lam, lo := range optimum {
		u := math.Exp(lo)
		lb := math.Log(kappa*p.wmin/(2*u)) * math.Pow(lam/(2*u), 1/r)
		if lb*math.Pow(2, 1/r) >= PropThreeC*p.gamma {
			guaranteed[lam] = true
			smallest = append(smallest, lam)
		}
	}
	minC, checked := math.Inf(1), 0
	for _, np := range near {
		if !guaranteed[np.Lambda] || !(np.Tau >= 1 && np.Tau <= 2) {
			continue
		}
		rho := floats.Norm(np.Theta, 2)
		got := floats.Min(p.margins(np.Theta)) / rho * math.Pow(np.Tau, 1/r) / p.gamma
		minC = math.Min(minC, got)
		checked++
	}
	sort.Float64s(smallest)
	fin := fmt.Sprintf("finite steps: %d near-optimal points (τ ≤ 2) at the %d λ where the bound guarantees c ≥ %.2g", checked, len(smallest), PropThreeC)
	if checked > 0 {
		fin += fmt.Sprintf(": smallest γ̃(θ')τ^{1/r}/γ* = %.3g", minC)
	}
	var steps theorems.Verdict
	if checked > 0 {
		steps = theorems.Compare(PropThreeC/minC, 1, "")
	} else {
		steps = theorems.Verdict{Status: theorems.Holds, Statistic: 0, Bound: 1}
	}
	v := theorems.Worst(asym, steps)
	v.Detail = asym.Detail + "; " + fin + fmt.Sprintf("; stationarity ‖∇ log L_λ‖∞ ≤ %.3g", res)
	return v
}

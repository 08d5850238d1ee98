package grwclass

import (
	"fmt"
	"github.com/implicitbias/implicitbias/theorems"
	"math"
	"sort"
)

// XY Thm 1: the importance-weighted margin bound. For a classifier
// f(θ, ·) = ⟨θ, ·⟩ (H = 1 layer) trained on n samples of the source P_s and
// tested on the target P_t with density ratio η = p_t/p_s, with probability
// at least 1 − δ over the sample, for every γ > 0,
//
//	P_t(y f(θ, x) ≤ 0) ≤ (I) + (II) + ε(γ, n, δ),
//	(I)  = (1/n) Σ_i η(x_i)·1[y_i⟨θ̂, x_i⟩ < γ],
//	(II) = 4·C·√(D_χ²(P_t‖P_s) + 1)·(√(2H log 2) + 1)·H^{−H/2}/(γ√n),
//	ε    = √(log log₂(4C/γ)/n) + √(log(1/δ)/n),
//
// with C = sup_x ‖x‖. (II) is 4·R_{n,η}/γ with the weighted Rademacher
// bound of XY Lemma A.7 and the layer norms 1/√H of Lemma A.8; Thm 1's
// statement prints (II) as C√(D + 1)/(γ H^{(H−1)/2}√n), without the factor
// 4(√(2H log 2) + 1)/√H ≈ 8.7 (H = 1) of its own proof — the check uses the
// proof's constants and reports the printed form's failures apart.

// IWTrial is one repetition: the normalized training margins y_i⟨θ̂, x_i⟩,
// the density ratios η(x_i), and the target error measured on TestN fresh
// target samples.
type IWTrial struct {
	Margins, Eta []float64
	TestError    float64
	TestN        int
}

// IWBoundValue returns the bound of XY Thm 1 minimized over γ (it holds for
// every γ at once: Lemma A.6 is uniform in the margin), with the proof's
// constants (stated false) or the printed ones (stated true), and the γ
// that attains it. The candidates are the training margins in (0, C] (where
// (I) jumps) and a geometric grid.
func IWBoundValue(margins, eta []float64, chi2, c, delta float64, stated bool) (bound, gamma float64) {
	return newIWMargins(margins, eta).bound(chi2, c, delta, stated)
}

// iwMargins are a trial's margins in increasing order with the prefix sums
// of their density ratios, which both forms of the bound read.
type iwMargins struct {
	sorted, prefix []float64 // prefix[k] = Σ of η over the k smallest margins
}

func newIWMargins(margins, eta []float64) iwMargins {
	idx := make([]int, len(margins))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return margins[idx[a]] < margins[idx[b]] })
	sorted := make([]float64, len(idx))
	prefix := make([]float64, len(idx)+1) // prefix[k] = Σ of η over the k smallest margins
	for k, i := range idx {
		sorted[k] = margins[i]
		prefix[k+1] = prefix[k] + eta[i]
	}
	return iwMargins{sorted, prefix}
}

// bound is IWBoundValue of the trial's margins.
func (m iwMargins) bound(chi2, c, delta float64, stated bool) (bound, gamma float64) {
	sorted, prefix := m.sorted, m.prefix
	n := float64(len(sorted))
	k := 4 * (math.Sqrt(2*math.Ln2) + 1) // H = 1
	if stated {
		k = 1
	}
	two := k * c * math.Sqrt(chi2+1) / math.Sqrt(n)
	eval := func(g float64) float64 {
		// (I): the weighted share of the margins < g.
		first := prefix[sort.SearchFloat64s(sorted, g)] / n
		eps := math.Sqrt(math.Log(math.Log2(4*c/g))/n) + math.Sqrt(math.Log(1/delta)/n)
		return first + two/g + eps
	}
	bound, gamma = math.Inf(1), math.NaN()
	try := func(g float64) {
		if g > 0 && g <= c {
			if v := eval(g); v < bound {
				bound, gamma = v, g
			}
		}
	}
	for _, v := range sorted {
		// Just above a margin value, (I) has counted it: the smallest
		// float above it is the best γ with that (I).
		try(math.Nextafter(v, math.Inf(1)))
	}
	for g := c; g > 1e-6*c; g /= 1.1 {
		try(g)
	}
	return bound, gamma
}

// IWBoundReject is the level of the binomial test of IWMarginBound: the
// check reports a violation when the number of failures would occur with
// probability below 1e-3 if each repetition failed with probability δ.
const IWBoundReject = 1e-3

// binomTail returns P(Bin(n, p) ≥ k).
func binomTail(n, k int, p float64) float64 {
	var s float64
	for j := k; j <= n; j++ {
		lc, _ := math.Lgamma(float64(n + 1))
		la, _ := math.Lgamma(float64(j + 1))
		lb, _ := math.Lgamma(float64(n - j + 1))
		s += math.Exp(lc - la - lb + float64(j)*math.Log(p) + float64(n-j)*math.Log1p(-p))
	}
	return s
}

// iwSlack is the Hoeffding slack of a trial's measured target error
// (IWMarginBound).
func iwSlack(t IWTrial) float64 { return math.Sqrt(math.Log(2e6) / (2 * float64(t.TestN))) }

// IWTrialFails reports whether the trial t fails IWMarginBound's test (its
// target error above the bound with the proof's constants by more than
// the measurement's slack), with that bound and its γ.
func IWTrialFails(t IWTrial, chi2, c, delta float64) (fails bool, bound, gamma float64) {
	b, g := IWBoundValue(t.Margins, t.Eta, chi2, c, delta, false)
	return t.TestError-iwSlack(t) > b, b, g
}

// IWBoundAllowed is the number of failing trials of r that IWMarginBound
// allows at δ: the largest F that a failure probability δ per trial makes
// likelier than IWBoundReject. It never decreases with r (P(Bin(r, δ) ≥ k)
// grows with r), so more than IWBoundAllowed(r, δ) failures among the
// first trials of r decide the verdict on all r as violated, and on those
// first trials alone too: a run of trials may stop there.
func IWBoundAllowed(r int, delta float64) int {
	allowed := 0
	for allowed < r && binomTail(r, allowed+1, delta) >= IWBoundReject {
		allowed++
	}
	return allowed
}

// IWMarginBound checks XY-T1 by Monte Carlo: each trial is an independent
// training sample from P_s with its trained classifier; the bound (with
// the χ² divergence chi2 of P_t from P_s computed exactly, C = sup‖x‖ and
// confidence δ) must be at least the target error, except with probability
// δ. A trial fails when its measured error exceeds the bound by more than
// the measurement's own Hoeffding slack √(log(2·10⁶)/(2·TestN)) (so that
// the finite test sample makes a false failure with probability < 10⁻⁶).
// The statistic is the number of failures F; the bound is the largest F
// that a failure probability δ makes likelier than IWBoundReject
// (one-sided binomial test).
func IWMarginBound(trials []IWTrial, chi2, c, delta float64) theorems.Verdict {
	if len(trials) == 0 {
		return theorems.Undecided("no trials")
	}
	if !(delta > 0 && delta < 1) || !(chi2 >= 0) || !(c > 0) {
		return theorems.Invalid(fmt.Errorf("δ = %v, χ² = %v, C = %v", delta, chi2, c))
	}
	fails, failsStated := 0, 0
	worst := math.Inf(-1)
	var worstBound, worstErr, worstGamma float64
	for _, t := range trials {
		m := newIWMargins(t.Margins, t.Eta)
		b, g := m.bound(chi2, c, delta, false)
		bs, _ := m.bound(chi2, c, delta, true)
		if t.TestError-iwSlack(t) > b {
			fails++
		}
		if t.TestError-iwSlack(t) > bs {
			failsStated++
		}
		if t.TestError-b > worst {
			worst, worstBound, worstErr, worstGamma = t.TestError-b, b, t.TestError, g
		}
	}
	r := len(trials)
	allowed := IWBoundAllowed(r, delta)
	return theorems.Compare(float64(fails), float64(allowed), fmt.Sprintf(
		"%d of %d trials above the bound (%d allowed at δ = %.2g, binomial level %.0e); closest: target error %.4g vs bound %.4g at γ = %.3g; D_χ² = %.4g, C = %.3g; the printed (II) without its proof's factor 8.7 fails in %d of %d",
		fails, r, allowed, delta, IWBoundReject, worstErr, worstBound, worstGamma, chi2, c, failsStated, r))
}

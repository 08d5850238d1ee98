package theorems

import (
	"math"

	"github.com/implicitbias/implicitbias/symbolic"
)

// Pseudo-hypotheses of the applicability table, beyond section G's own.
const (
	// reqExp: ℓ(q) = e^{−q}, LL's (A3), which LL's gradient-descent theorems
	// (App. E) and XY Prop. 1 assume.
	reqExp = "A3 (ℓ = e^{−q})"
	// reqPolyTail: f′(q)q stays bounded, the polynomial tail of ZD eq. 19.
	reqPolyTail = "f′(q)q bounded"
	// reqFPrimeNonNeg: f′ ≥ 0 on ℝ (XY's weaker form of (B3.2)).
	reqFPrimeNonNeg = "f′ ≥ 0"
)

// lossEntry is a catalog entry and the hypotheses on the loss it needs.
type lossEntry struct {
	id       string
	requires []string
	note     string
}

var b3b4 = []string{HypB31, HypB32, HypB33, HypB34, HypB4}

// lossEntries lists the catalog entries whose hypotheses are about the loss.
// The requirements come from the papers: LL Thms A.7–A.10 assume (B3), (B4)
// (footnotes 3 and 4: (B3.4) is not needed for Lemma A.5 and Thm A.7); LL's
// gradient-descent theorems (App. E.1) and XY Prop. 1 assume the
// exponential loss; ZD Thm 8 assumes ℓ convex, L-smooth and strictly
// decreasing to 0; XY's C1 is LL's class (f smooth, f′ ≥ 0, f′q
// non-decreasing beyond some c and → ∞).
var lossEntries = []lossEntry{
	{"LL-B4", nil, "radial identity ⟨θ, −∇𝓛⟩ = L·ν (Euler's identity): holds for any ℓ = e^{−f} at points where ℓ is differentiable at every margin"},
	{"LL-A5", []string{HypB31, HypB32, HypB33, HypB4}, "LL Lemma A.5 ((B3.4) not needed, footnote 3)"},
	{"LL-5.1", []string{HypB31, HypB32, HypB33, HypB4}, "LL Lemma 5.1 / B.1"},
	{"LL-4.1", []string{HypB31, HypB32, HypB33, HypB4}, "margin monotonicity under gradient flow, LL Thm A.7 ((B3.4) not needed, footnote 4)"},
	{"LL-4.3", b3b4, "rates for a general loss, LL Thm A.10: 𝓛 = Θ(g(log T)^{2/L}/(T (log T)²)), ρ = Θ(g(log T)^{1/L})"},
	{"LL-4.4", b3b4, "KKT convergence under gradient flow, LL Thm A.8"},
	{"LL-A9", b3b4, "(ε, δ)-KKT points along the flow, LL Thm A.9"},
	{"LL-C10", b3b4, "LL Cor C.10"},
	{"LL-lin", b3b4, "linear model: the KKT point of (P) is the hard-margin SVM (LL Thm A.8 with L = 1)"},
	{"LL-4.2", []string{reqExp}, "LL's gradient-descent theorems (App. E) are stated for the exponential loss"},
	{"XY-C1", []string{HypB31, reqFPrimeNonNeg, HypB33}, "XY's exponential-tail class (C1, App. A.1.1) is LL's (B3.1), (B3.3) with f′ ≥ 0"},
	{"XY-P1", []string{reqExp}, "XY Prop. 1 is stated for the exponential loss"},
	{"ZD-T8", []string{HypConvex, HypSmooth, HypDecrease}, "GRW direction = lim θ_R/R (ZD Thm 8, linear model)"},
	{"ZD-T7", []string{HypConvex, HypSmooth, HypDecrease, HypTightTail}, "GRW-direction independence (→ SVM for every weighting): ZD states it for the logistic loss; it follows from ZD Thm 8 when lim θ_R/R is the SVM direction, which the tight exponential tail gives (ZD App. D.5.3's argument)"},
	{"ZD-PT", []string{reqPolyTail}, "polynomial tail: the GRW limit direction depends on the weights (ZD eq. 19, App. C)"},
}

// applicability evaluates lossEntries against the report.
func applicability(r *LossReport, fm *symbolic.Formula, a *lossAnalysis) []LossApplicability {
	holds := func(req string) bool {
		switch req {
		case reqFPrimeNonNeg:
			if _, undefined := a.domainFailure(math.Inf(-1)); undefined {
				return false
			}
			fp := a.scanFPrime()
			for _, f := range fp.fails {
				if !(f[1] == 0) {
					return false
				}
			}
			return fp.nonNeg
		case reqExp:
			return fm.IsExponential()
		case reqPolyTail:
			h, ok := r.Hypothesis(HypB33)
			return ok && h.Status == Violated && h.Witness != nil && h.Witness.Q == r.EvidenceTo
		}
		h, ok := r.Hypothesis(req)
		return ok && h.Status == Holds
	}
	var out []LossApplicability
	for _, e := range lossEntries {
		ap := LossApplicability{ID: e.id, Requires: e.requires, Note: e.note, Applies: true}
		if info, ok := Lookup(e.id); ok {
			ap.Claim = info.Claim
		}
		for _, req := range e.requires {
			if !holds(req) {
				ap.Applies = false
				ap.Missing = append(ap.Missing, req)
			}
		}
		out = append(out, ap)
	}
	return out
}

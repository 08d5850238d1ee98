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

// b3b4 is (B3) and (B4) whole, which LL Thms A.8–A.10 assume.
var b3b4 = []string{HypB31, HypB32, HypB33, HypB34, HypB4}

// The catalog rows' Loss fields (catalog.go) list the entries whose
// hypotheses are about the loss. The requirements come from the papers:
// LL Thms A.7–A.10 assume (B3), (B4) (footnotes 3 and 4: (B3.4) is not
// needed for Lemma A.5 and Thm A.7); LL's gradient-descent theorems (App.
// E.1) and XY Prop. 1 assume the exponential loss; ZD Thm 8 assumes ℓ
// convex, L-smooth and strictly decreasing to 0; XY's C1 is LL's class (f
// smooth, f′ ≥ 0, f′q non-decreasing beyond some c and → ∞).

// applicability evaluates the catalog's loss requirements (Info.Loss)
// against the report, in catalog order.
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
	for _, info := range catalog {
		if info.Loss == nil {
			continue
		}
		ap := LossApplicability{ID: info.ID, Claim: info.Claim, Requires: info.Loss.Requires, Note: info.Loss.Note, Applies: true}
		for _, req := range info.Loss.Requires {
			if !holds(req) {
				ap.Applies = false
				ap.Missing = append(ap.Missing, req)
			}
		}
		out = append(out, ap)
	}
	return out
}

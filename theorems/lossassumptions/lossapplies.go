package lossassumptions

import (
	"math"

	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems"
)

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
		case theorems.ReqFPrimeNonNeg:
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
		case theorems.ReqExp:
			return fm.IsExponential()
		case theorems.ReqPolyTail:
			h, ok := r.Hypothesis(theorems.HypB33)
			return ok && h.Status == theorems.Violated && h.Witness != nil && h.Witness.Q == r.EvidenceTo
		}
		h, ok := r.Hypothesis(req)
		return ok && h.Status == theorems.Holds
	}
	var out []LossApplicability
	for _, info := range theorems.Catalog() {
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

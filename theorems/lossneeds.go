package theorems

// What the catalog's claims need of a loss (Info.Loss): the hypotheses of
// section G that package lossassumptions decides for a formula, named here
// so that the catalog rows can list them without importing the analyzer.

// LossNeeds is what a claim needs of a binary margin loss ℓ = e^{−f}.
type LossNeeds struct {
	// Requires are the hypotheses of section G (HypB31 …) and the
	// pseudo-hypotheses below (Req…) that must hold.
	Requires []string
	// Note says where the requirement comes from.
	Note string
}

// Hypothesis IDs of section G.
const (
	HypB31       = "B3.1"
	HypB32       = "B3.2"
	HypB33       = "B3.3"
	HypB34       = "B3.4"
	HypB4        = "B4"
	HypTightTail = "XY-tail"
	HypConvex    = "ZD-convex"
	HypSmooth    = "ZD-smooth"
	HypDecrease  = "ZD-decreasing"
)

// Pseudo-hypotheses of the applicability table, beyond section G's own.
const (
	// ReqExp: ℓ(q) = e^{−q}, LL's (A3), which LL's gradient-descent theorems
	// (App. E) and XY Prop. 1 assume.
	ReqExp = "A3 (ℓ = e^{−q})"
	// ReqPolyTail: f′(q)q stays bounded, the polynomial tail of ZD eq. 19.
	ReqPolyTail = "f′(q)q bounded"
	// ReqFPrimeNonNeg: f′ ≥ 0 on ℝ (XY's weaker form of (B3.2)).
	ReqFPrimeNonNeg = "f′ ≥ 0"
)

// b3b4 is (B3) and (B4) whole, which LL Thms A.8–A.10 assume.
var b3b4 = []string{HypB31, HypB32, HypB33, HypB34, HypB4}

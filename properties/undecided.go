package properties

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Rate is a measured fraction of generated cases: Count of Of. A property
// whose check is honestly inconclusive on some cases at the quick budget (a
// quantity that tends to 0 like 1/log t has not halved within the run)
// declares the rate measured for it (Property.Undecided), so that the test
// harness allows enough inconclusive cases for the property not to flake.
type Rate struct{ Count, Of int }

func (r Rate) String() string { return fmt.Sprintf("%d of %d", r.Count, r.Of) }

// Upper returns the one-sided 95% Clopper–Pearson upper confidence bound
// on the rate: the p at which Count or fewer of Of cases occur with
// probability 5%, the Beta(Count+1, Of−Count) quantile 0.95 (1 when
// Count = Of; 0 for an unmeasured rate).
func (r Rate) Upper() float64 {
	switch {
	case r.Of <= 0:
		return 0
	case r.Count >= r.Of:
		return 1
	}
	return distuv.Beta{Alpha: float64(r.Count + 1), Beta: float64(r.Of - r.Count)}.Quantile(0.95)
}

// FlakeRisk is the largest probability, at a property's measured rate of
// inconclusive cases, that one run of the property meets more of them than
// it allows (DiscardAllowance). The soak runs the ~150 properties 50 times;
// only the few with a declared rate come near this risk, so a clean soak is
// the expected outcome (two such properties × 50 runs × 1e-4 = 1%).
const FlakeRisk = 1e-4

// DiscardAllowance returns how many inconclusive cases a property run may
// meet while it draws n decided ones: max(3, n/10) (an inconclusive verdict
// is never a pass: each is replaced by a fresh case), raised for a property
// with a measured rate to the smallest k such that more than k inconclusive
// cases come before the n-th decided one with probability at most
// FlakeRisk when each case is inconclusive with the rate's upper bound p.
// That count is negative binomial:
//
//	P(more than k) = 1 − Σ_{j≤k} C(n−1+j, j) p^j (1−p)^n = I_p(k+1, n),
//
// with I the regularized incomplete beta function (NegBinTail).
func DiscardAllowance(n int, undecided Rate) int {
	k := max(3, n/10)
	p := undecided.Upper()
	if !(p > 0) {
		return k
	}
	if p >= 1 {
		return math.MaxInt
	}
	for ; NegBinTail(n, k, p) > FlakeRisk; k++ {
	}
	return k
}

// NegBinTail is the probability that more than k failures come before the
// n-th success in independent trials that fail with probability p: the
// negative binomial tail I_p(k+1, n), computed directly rather than as
// 1 − I_{1−p}(n, k+1), which cancels in the tail.
func NegBinTail(n, k int, p float64) float64 {
	return mathext.RegIncBeta(float64(k+1), float64(n), p)
}

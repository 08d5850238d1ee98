package numerics

import "math"

// ExtrapolatedOrders returns the Richardson-extrapolated orders of a
// method from its global errors at step sizes that halve from one entry to
// the next. A method of order p has E(h) = C·h^p(1 + κh + O(h²)), so the
// observed order p̂_k = log₂ E_{k−1}/E_k tends to p with a deviation that
// halves with h, and
//
//	p̃_k = 2·p̂_{k+1} − p̂_k = p + O(h²).
//
// len(errs) − 2 orders are returned (nil for fewer than three errors).
func ExtrapolatedOrders(errs []float64) []float64 {
	var p, out []float64
	for i := 1; i < len(errs); i++ {
		p = append(p, math.Log2(errs[i-1]/errs[i]))
	}
	for k := 1; k < len(p); k++ {
		out = append(out, 2*p[k]-p[k-1])
	}
	return out
}

package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// pullIntegral bounds ∫ Σ_n p_n(s) ds from record j to record j + 1 of
// positive pulls p_n known at the records (s the records' log T): per
// sample Δs·max(p_n(s_j), p_n(s_{j+1}))·e^{κΔs²/8}, κ the larger
// |(log p_n)″| at the two records (three-point differences with their
// neighbours). A function whose log has curvature ≤ κ on the interval
// exceeds its larger endpoint by at most that factor inside it (the
// chord's deviation is ≤ κΔs²/8); the pulls decay smoothly, like
// T^{−(m_n − 1)}, so the endpoints nearly always bound them already.
func pullIntegral(s []float64, p [][]float64, j int) float64 {
	ds := s[j+1] - s[j]
	curv := func(i, k int) float64 {
		if k <= 0 || k+1 >= len(s) || !(p[k-1][i] > 0) || !(p[k][i] > 0) || !(p[k+1][i] > 0) {
			return 0
		}
		h1, h2 := s[k]-s[k-1], s[k+1]-s[k]
		y0, y1, y2 := math.Log(p[k-1][i]), math.Log(p[k][i]), math.Log(p[k+1][i])
		return math.Abs(2 * ((y2-y1)/h2 - (y1-y0)/h1) / (h1 + h2))
	}
	var sum float64
	for i := range p[j] {
		hi := math.Max(p[j][i], p[j+1][i])
		if !(hi > 0) {
			continue
		}
		kappa := math.Max(curv(i, j), curv(i, j+1))
		sum += ds * hi * math.Exp(kappa*ds*ds/8)
	}
	return sum
}

// roundingBudget bounds the rounding a run accumulates over dt steps from
// θa to θb: each step adds ≤ 2ε|θ_j| per coordinate (the update and the
// product before it), and the step, computed in log domain from n samples,
// carries a relative error ≤ 2⁹·n·ε (generous: the LSE and the backward pass
// add a few ε per sample).
func roundingBudget(dt float64, a, b []float64, n int) float64 {
	const eps = 0x1p-52
	return eps * (2*dt*math.Max(floats.Norm(a, 1), floats.Norm(b, 1)) + 512*float64(n)*floats.Distance(a, b, 2))
}

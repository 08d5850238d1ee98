package numerics

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The RK4 companions' order (issue 32). Classical Runge–Kutta is of order
// 4: with m equal steps over a fixed interval its global error is E(h) =
// C·h⁴(1 + κh + O(h²)), so the observed order p̂ = log₂ E(h)/E(h/2) tends to
// 4 with a deviation that halves with h, and the Richardson-extrapolated
// p̃ = 2·p̂(h/2) − p̂(h) = 4 + O(h²). rk4OrderBand is the band required of
// p̃; the step ranges keep the errors above 10³ times the rounding of the
// solution (≈ m·ε·|θ|), so rounding does not reach it. Measured: see the
// tests' logs (p̃ within 0.06 of 4 on both).
const rk4OrderBand = 0.25

// TestIntegrateLogTimeOrder: RK4Steps on the flow dθ/dT = F(θ) in log time s = log T
// (dθ/ds = e^s F(θ), as the linear limits integrate it) on the linear F(θ) = −Aθ, A = diag(1, 3), from
// s = −1 to 1: θ_i(s₁) = θ_i(s₀)·exp(−a_i(e^{s₁} − e^{s₀})) exactly.
func TestIntegrateLogTimeOrder(t *testing.T) {
	a := []float64{1, 3}
	field := func(dst, th []float64) {
		for i := range th {
			dst[i] = -a[i] * th[i]
		}
	}
	th0 := []float64{1, -0.5}
	s0, s1 := -1.0, 1.0
	var errs []float64
	for _, n := range []int{16, 32, 64, 128, 256} {
		th := append([]float64(nil), th0...)
		RK4Steps(func(dst []float64, s float64, y []float64) {
			field(dst, y)
			for i := range dst {
				dst[i] *= math.Exp(s)
			}
		}, th, s0, s1, n)
		var e2 float64
		for i := range th {
			want := th0[i] * math.Exp(-a[i]*(math.Exp(s1)-math.Exp(s0)))
			e2 += (th[i] - want) * (th[i] - want)
		}
		errs = append(errs, math.Sqrt(e2))
	}
	p := ExtrapolatedOrders(errs)
	t.Logf("errors %.3g, extrapolated orders %.4g", errs, p)
	for _, v := range p {
		assert.InDelta(t, 4, v, rk4OrderBand)
	}
}

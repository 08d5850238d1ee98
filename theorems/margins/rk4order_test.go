package margins

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/numerics"
)

// The RK4 companions' order (issue 32). Classical Runge–Kutta is of order
// 4: with m equal steps over a fixed interval its global error is E(h) =
// C·h⁴(1 + κh + O(h²)), so the observed order p̂ = log₂ E(h)/E(h/2) tends to
// 4 with a deviation that halves with h, and the Richardson-extrapolated
// p̃ = 2·p̂(h/2) − p̂(h) = 4 + O(h²). companionOrderBand is the band required of
// p̃; the step ranges keep the errors above 10³ times the rounding of the
// solution (≈ m·ε·|θ|), so rounding does not reach it. Measured: see the
// tests' logs (p̃ within 0.06 of 4 on both).
const companionOrderBand = 0.25

// TestFlowCompanionOrder: the flow companion's RK4 (rk43, dθ/dλ =
// Dir/‖Dir‖² in λ = log F) on the decoupled flow of F = e^{−θ₁} + e^{−θ₂},
// e^{θ_i(t)} = e^{θ_i(0)} + t: the exact point at a level λ₁ is that of the
// t solving Σ_i 1/(e^{θ_i(0)} + t) = e^{λ₁}, found by bisection to
// rounding.
func TestFlowCompanionOrder(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Exponential{}), []float64{1, 0, 0, 1}, []float64{1, 1})
	th0 := []float64{0.5, -1}
	a := []float64{math.Exp(th0[0]), math.Exp(th0[1])}
	level := func(tt float64) float64 { return math.Log(1/(a[0]+tt) + 1/(a[1]+tt)) }
	lam0, lam1 := level(0), level(20)
	lo, hi := 0.0, 40.0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if level(mid) > lam1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	want := []float64{math.Log(a[0] + lo), math.Log(a[1] + lo)}
	c := newFlowCompanion(obj, 2)
	if err := c.field(th0, c.f0); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 2)
	var errs []float64
	for _, m := range []int{2, 4, 8, 16, 32} {
		if _, err := c.rk43(th0, lam1-lam0, m, out); err != nil {
			t.Fatal(err)
		}
		errs = append(errs, math.Hypot(out[0]-want[0], out[1]-want[1]))
	}
	p := numerics.ExtrapolatedOrders(errs)
	t.Logf("errors %.3g, extrapolated orders %.4g", errs, p)
	for _, v := range p {
		assert.InDelta(t, 4, v, companionOrderBand)
	}
}

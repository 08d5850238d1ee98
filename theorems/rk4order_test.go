package theorems

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/losses"
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

// extrapolatedOrders returns 2·p̂_{k+1} − p̂_k from the errors at steps
// halving from one to the next.
func extrapolatedOrders(errs []float64) []float64 {
	var p, out []float64
	for i := 1; i < len(errs); i++ {
		p = append(p, math.Log2(errs[i-1]/errs[i]))
	}
	for k := 1; k < len(p); k++ {
		out = append(out, 2*p[k]-p[k-1])
	}
	return out
}

// TestIntegrateLogTimeOrder: integrateLogTime (dθ/ds = e^s F(θ), the flow
// dθ/dT = F(θ) in log time) on the linear F(θ) = −Aθ, A = diag(1, 3), from
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
		integrateLogTime(field, th, s0, s1, n)
		var e2 float64
		for i := range th {
			want := th0[i] * math.Exp(-a[i]*(math.Exp(s1)-math.Exp(s0)))
			e2 += (th[i] - want) * (th[i] - want)
		}
		errs = append(errs, math.Sqrt(e2))
	}
	p := extrapolatedOrders(errs)
	t.Logf("errors %.3g, extrapolated orders %.4g", errs, p)
	for _, v := range p {
		assert.InDelta(t, 4, v, rk4OrderBand)
	}
}

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
	p := extrapolatedOrders(errs)
	t.Logf("errors %.3g, extrapolated orders %.4g", errs, p)
	for _, v := range p {
		assert.InDelta(t, 4, v, rk4OrderBand)
	}
}

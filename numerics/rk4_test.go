package numerics

import (
	"fmt"
	"math"
	"testing"
)

// TestRK4Order: on dy/dt = y the error of RK4Steps falls by 2⁴ per halving
// of h (order 4), and RK4's step-doubling estimate is about 15 times the
// fine solution's error.
func TestRK4Order(t *testing.T) {
	grow := func(dst []float64, _ float64, y []float64) { copy(dst, y) }
	exact := rk4Exact(1, 0, 1)
	errAt := func(n int) float64 {
		y := []float64{1}
		RK4Steps(grow, y, 0, 1, n)
		return math.Abs(y[0] - exact)
	}
	for _, n := range []int{4, 8, 16} {
		if r := errAt(n) / errAt(2*n); r < 14 || r > 17 {
			t.Errorf("error ratio from %d to %d steps = %.3g, want ≈ 16 (order 4)", n, 2*n, r)
		}
	}
	y, est := RK4(grow, []float64{1}, 0, 1, &RK4Settings{Steps: 8})
	if got := math.Abs(y[0] - exact); est/got < 13 || est/got > 17 {
		t.Errorf("estimate %.3g over the error %.3g = %.3g, want ≈ 15", est, got, est/got)
	}
}

// TestRK4Settings: nil and zero Steps take DefaultRK4Steps, y0 is kept,
// and a time-dependent field is sampled at the stages' times.
func TestRK4Settings(t *testing.T) {
	tests := []struct {
		name string
		s    *RK4Settings
		n    int
	}{
		{"nil", nil, DefaultRK4Steps},
		{"zero", &RK4Settings{}, DefaultRK4Steps},
		{"negative", &RK4Settings{Steps: -3}, DefaultRK4Steps},
		{"given", &RK4Settings{Steps: 5}, 5},
	}
	ramp := func(dst []float64, tt float64, _ []float64) { dst[0] = 3 * tt * tt } // y = t³, exact for RK4
	for _, tc := range tests {
		calls := 0
		f := func(dst []float64, tt float64, y []float64) { calls++; ramp(dst, tt, y) }
		y0 := []float64{0}
		y, est := RK4(f, y0, 0, 2, tc.s)
		if calls != 4*3*tc.n {
			t.Errorf("%s: %d field evaluations, want %d (4 per step, n + 2n steps)", tc.name, calls, 12*tc.n)
		}
		if y0[0] != 0 || math.Abs(y[0]-8) > 1e-13 || est > 1e-13 {
			t.Errorf("%s: y0 = %v, y(2) = %v (want 8), estimate %g", tc.name, y0, y, est)
		}
	}
	y := []float64{1}
	RK4Steps(func(dst []float64, _ float64, y []float64) { dst[0] = y[0] }, y, 0, 1, 0)
	if y[0] != 1 {
		t.Errorf("RK4Steps with n = 0 moved y to %v", y)
	}
}

// ExampleRK4 integrates the logistic equation dy/dt = y(1 − y).
func ExampleRK4() {
	f := func(dst []float64, _ float64, y []float64) { dst[0] = y[0] * (1 - y[0]) }
	y, est := RK4(f, []float64{0.5}, 0, 2, nil)
	exact := 1 / (1 + math.Exp(-2))
	fmt.Printf("y(2) = %.6f (exact %.6f), error estimate below 1e-6: %v\n", y[0], exact, est < 1e-6)
	// Output: y(2) = 0.880797 (exact 0.880797), error estimate below 1e-6: true
}

// rk4Exact is e^{t1−t0}·y0, which solves dy/dt = y.
func rk4Exact(y0, t0, t1 float64) float64 { return y0 * math.Exp(t1-t0) }

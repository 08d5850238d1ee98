package numerics

import "gonum.org/v1/gonum/floats"

// ODE is the right-hand side of dy/dt = F(t, y): it writes F(t, y) into
// dst (len(dst) = len(y)) and must not keep y.
type ODE func(dst []float64, t float64, y []float64)

// DefaultRK4Steps is RK4's coarse step count when its settings leave
// Steps at zero.
const DefaultRK4Steps = 16

// RK4Settings are RK4's settings; nil means the defaults.
type RK4Settings struct {
	// Steps is the number n of equal steps of the coarse integration; the
	// fine one takes 2n. Zero or less means DefaultRK4Steps.
	Steps int
}

// RK4 integrates dy/dt = f(t, y) from y0 at t0 to t1 with the classical
// Runge–Kutta method, twice: in n = Steps and in 2n equal steps. It
// returns the fine solution and the step-doubling estimate of its error,
//
//	errEst = ‖y_n(t1) − y_2n(t1)‖₂,
//
// of which the fine solution's own global error is about 1/15 (RK4 is of
// order 4: halving h divides the error by 2⁴, so y_n − y_2n ≈ 15·(y_2n − y))
// when f is smooth along the path. y0 is not modified. t1 < t0 integrates
// backwards.
func RK4(f ODE, y0 []float64, t0, t1 float64, s *RK4Settings) (y []float64, errEst float64) {
	n := DefaultRK4Steps
	if s != nil && s.Steps > 0 {
		n = s.Steps
	}
	coarse := append([]float64(nil), y0...)
	RK4Steps(f, coarse, t0, t1, n)
	y = append([]float64(nil), y0...)
	RK4Steps(f, y, t0, t1, 2*n)
	return y, floats.Distance(coarse, y, 2)
}

// RK4Steps advances y in place from t0 to t1 by n ≥ 1 equal steps of the
// classical Runge–Kutta method,
//
//	k₁ = f(t, y), k₂ = f(t + h/2, y + h/2·k₁), k₃ = f(t + h/2, y + h/2·k₂),
//	k₄ = f(t + h, y + h·k₃),  y ← y + h/6·(k₁ + 2k₂ + 2k₃ + k₄),
//
// h = (t1 − t0)/n, t = t0 + i·h at step i (not accumulated, so that the
// last step ends at t1 to rounding). n < 1 leaves y as it is.
func RK4Steps(f ODE, y []float64, t0, t1 float64, n int) {
	if n < 1 {
		return
	}
	d := len(y)
	k1, k2, k3, k4, tmp := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	h := (t1 - t0) / float64(n)
	for i := 0; i < n; i++ {
		t := t0 + float64(i)*h
		f(k1, t, y)
		floats.AddScaledTo(tmp, y, h/2, k1)
		f(k2, t+h/2, tmp)
		floats.AddScaledTo(tmp, y, h/2, k2)
		f(k3, t+h/2, tmp)
		floats.AddScaledTo(tmp, y, h, k3)
		f(k4, t+h, tmp)
		for j := range y {
			y[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
		}
	}
}

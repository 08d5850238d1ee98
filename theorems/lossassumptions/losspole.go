package lossassumptions

import "math"

// A division by u (or a negative integer power of u) is a pole of ℓ where
// u = 0. A sign change of u between two samples is bisected to the zero
// (guardFailures); a zero of even order, as in 1/(1+q)², touches 0 without
// changing sign, and float64 samples next to it only see |u| dip. So every
// local minimum of |u| among the samples is refined by golden section to
// adjacent floats, and reported as a pole when |u| there is 0 to float64
// precision.
//
// "0 to float64 precision": near a zero z of order 2, u(z + h) ≈ c·h², and
// the nearest float to z is within h = ε·|z|. With c estimated from the
// bracket's ends (c ≈ |u(end)|/(end − z)²), the minimum is a pole when
// |u(q*)| ≤ c·(poleFloats·ε·max(|z|, 1))², i.e. when no float64 margin
// could tell it from a double zero. A correct (pole-free) loss is flagged
// only if its divisor dips below that, where ℓ exceeds its value at the
// bracket ends by (end − z)²/(poleFloats·ε)² ≳ 10²⁰ — numerically a pole,
// at which every derivative the other hypotheses test is meaningless. The
// fault it catches: (B3.1) "holds" across the pole of 1/(1+q)² (issue 21).
const poleFloats = 4

// evenZero refines a local minimum of |u| bracketed by a < m < b (|u(m)| ≤
// |u(a)|, |u(b)|) and returns where u is 0 to float64 precision, if it is.
func evenZero(u func(float64) float64, a, b float64) (float64, bool) {
	abs := func(q float64) float64 { return math.Abs(u(q)) }
	lo, hi := a, b
	for i := 0; i < 200; i++ {
		m1, m2 := hi-0.618*(hi-lo), lo+0.618*(hi-lo)
		if !(lo < m1 && m1 < m2 && m2 < hi) {
			break
		}
		if abs(m1) < abs(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	z, uz := lo, abs(lo)
	for _, q := range []float64{hi, lo + (hi-lo)/2} {
		if v := abs(q); v < uz {
			z, uz = q, v
		}
	}
	if math.IsNaN(uz) {
		return z, false
	}
	if uz == 0 {
		return z, true
	}
	tol := math.Inf(1)
	h := poleFloats * 0x1p-52 * math.Max(math.Abs(z), 1)
	for _, end := range []float64{a, b} {
		if d := end - z; d != 0 {
			c := abs(end) / (d * d)
			tol = math.Min(tol, c*h*h)
		}
	}
	return z, uz <= tol
}

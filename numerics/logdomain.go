package numerics

import "math"

// LogSumExp returns log Σ_i exp(x_i), computed as m + log Σ exp(x_i − m) with
// m = max x_i so that no term overflows and the largest term is exactly 1.
//
// Special cases are:
//
//	LogSumExp([]) = -Inf
//	LogSumExp(x) = -Inf if every x_i = -Inf
//	LogSumExp(x) = +Inf if some x_i = +Inf
//	LogSumExp(x) = NaN if some x_i is NaN
func LogSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if math.IsNaN(v) {
			return math.NaN()
		}
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// LogAddExp returns log(exp(a) + exp(b)) without overflow or underflow.
//
// Special cases are:
//
//	LogAddExp(-Inf, b) = b
//	LogAddExp(a, -Inf) = a
//	LogAddExp(+Inf, b) = +Inf for b ≠ NaN
//	LogAddExp(a, b) = NaN if a or b is NaN
func LogAddExp(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, 0) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// Log1pExp returns the softplus log(1 + e^x), accurate for every x: for
// x ≤ -37 it is e^x to double precision (the next term −e^{2x}/2 is below
// half an ulp); for x ≥ 37 it is x + e^{−x}.
//
// Special cases are:
//
//	Log1pExp(-Inf) = 0
//	Log1pExp(+Inf) = +Inf
//	Log1pExp(NaN) = NaN
func Log1pExp(x float64) float64 {
	switch {
	case x <= -37:
		return math.Exp(x)
	case x <= 18:
		return math.Log1p(math.Exp(x))
	case x <= 37:
		return x + math.Exp(-x)
	default:
		return x
	}
}

// LogExpm1 returns log(e^x − 1) for x > 0, accurate for tiny and huge x:
// for x ≤ 0.5 it is log(expm1(x)); otherwise x + log1p(−e^{−x}).
//
// Special cases are:
//
//	LogExpm1(0) = -Inf
//	LogExpm1(x) = NaN for x < 0
//	LogExpm1(+Inf) = +Inf
func LogExpm1(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return math.NaN()
	case x <= 0.5:
		return math.Log(math.Expm1(x))
	default:
		return x + math.Log1p(-math.Exp(-x))
	}
}

// LogLog1pExp returns log(log(1 + e^x)), the logarithm of the softplus, so
// that for x → −∞ it is x (not log(0) = −Inf) and for x → +∞ it is log x.
//
// Special cases are:
//
//	LogLog1pExp(-Inf) = -Inf
//	LogLog1pExp(+Inf) = +Inf
func LogLog1pExp(x float64) float64 {
	switch {
	case x <= -37:
		// log(1+e^x) = e^x − e^{2x}/2 + …, so log of it is x + log1p(−e^x/2 + …).
		return x + math.Log1p(-0.5*math.Exp(x))
	case x >= 37:
		// log(1+e^x) = x + log1p(e^{−x}) = x (1 + e^{−x}/x + …).
		return math.Log(x) + math.Log1p(math.Exp(-x)/x)
	default:
		return math.Log(Log1pExp(x))
	}
}

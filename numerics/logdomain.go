package numerics

import "math"

// LogSumExp returns log Σ_i exp(x_i), computed as
//
//	m + log1p(Σ_{i≠k} exp(x_i − m)),  m = x_k = max_i x_i,
//
// so that no term overflows, the largest term is exactly 1 and the result
// keeps full relative precision when the other terms are small (for example
// LogSumExp([0, −40]) = e^{−40}, not 0).
//
// Special cases are:
//
//	LogSumExp(x) = NaN if some x_i is NaN
//	LogSumExp(x) = +Inf if some x_i = +Inf and none is NaN
//	LogSumExp(x) = -Inf if len(x) = 0 or every x_i = -Inf
func LogSumExp(x []float64) float64 {
	// k is set whenever m is raised above −Inf; otherwise m = −Inf returns
	// before k is used.
	m := math.Inf(-1)
	var k int
	for i, v := range x {
		if math.IsNaN(v) {
			return math.NaN()
		}
		if v > m {
			m, k = v, i
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var s float64
	for i, v := range x {
		if i != k {
			s += math.Exp(v - m)
		}
	}
	return m + math.Log1p(s)
}

// LogAddExp returns log(exp(a) + exp(b)) without overflow or underflow,
// as max(a, b) + log1p(exp(−|a − b|)).
//
// Special cases are:
//
//	LogAddExp(a, b) = NaN if a or b is NaN
//	LogAddExp(+Inf, b) = LogAddExp(b, +Inf) = +Inf for b ≠ NaN
//	LogAddExp(-Inf, b) = LogAddExp(b, -Inf) = b
func LogAddExp(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	a, b = max(a, b), min(a, b)
	if math.IsInf(a, 0) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// Log1pExp returns the softplus log(1 + e^x), accurate for every x: for
// x ≤ −37 it is e^x (the next term −e^{2x}/2 is below e^{−37}/2 < 2^{−54}
// relative, half an ulp); for 18 < x ≤ 37 it is x + e^{−x} (the next term
// e^{−2x}/2 < 2^{−53}·18 is below half an ulp of x); beyond, x.
//
// Special cases are:
//
//	Log1pExp(+Inf) = +Inf
//	Log1pExp(-Inf) = 0
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

// LogExpm1 returns log(e^x − 1) for x ≥ 0, the inverse of Log1pExp,
// accurate for tiny (even subnormal) and huge x: for x ≤ 0.5 it is
// Log(expm1(x)); otherwise x + log1p(−e^{−x}).
//
// Special cases are:
//
//	LogExpm1(+Inf) = +Inf
//	LogExpm1(±0) = -Inf
//	LogExpm1(x < 0) = NaN
//	LogExpm1(NaN) = NaN
func LogExpm1(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return math.NaN()
	case x <= 0.5:
		return Log(math.Expm1(x))
	default:
		return x + math.Log1p(-math.Exp(-x))
	}
}

// LogLog1pExp returns log(log(1 + e^x)), the logarithm of the softplus, so
// that for x → −∞ it is x (not log(0) = −Inf) and for x → +∞ it is log x.
// It is the log-loss of the logistic loss at margin −x.
//
// Special cases are:
//
//	LogLog1pExp(+Inf) = +Inf
//	LogLog1pExp(-Inf) = -Inf
//	LogLog1pExp(NaN) = NaN
func LogLog1pExp(x float64) float64 {
	switch {
	case x <= -37:
		// log(1+e^x) = e^x − e^{2x}/2 + …, so log of it is x + log1p(−e^x/2
		// + …) = x − e^x/2 + …; |e^x/2| ≤ e^{−37}/2 ≈ 4.3e-17 is below half
		// an ulp of |x| ≥ 37 (3.6e-15): the sum rounds to x.
		return x
	case x >= 37:
		// log(1+e^x) = x + log1p(e^{−x}) = x (1 + e^{−x}/x + …), so log of
		// it is log x + e^{−x}/x + …; e^{−37}/37 ≈ 2.3e-18 is below half an
		// ulp of log x ≥ log 37 ≈ 3.6 (2.2e-16): the sum rounds to log x.
		return math.Log(x)
	default:
		return math.Log(Log1pExp(x))
	}
}

// Exp returns e^x like math.Exp, but stays finite up to the true overflow
// threshold log(MaxFloat64) ≈ 709.7827: on amd64 math.Exp returns +Inf
// already for x > 1023.5·log 2 ≈ 709.4361 (its assembly rounds x·log₂e to
// an exponent of 1024 and takes that for an overflow). Above 709 it returns
// exp(x/2)², where x/2 is exact, which costs about one more ulp.
//
// Special cases are the same as math.Exp's:
//
//	Exp(+Inf) = +Inf
//	Exp(-Inf) = 0
//	Exp(NaN) = NaN
//	Exp(x > 709.782712893384) = +Inf
func Exp(x float64) float64 {
	if x > 709 {
		h := math.Exp(0.5 * x)
		return h * h
	}
	return math.Exp(x)
}

// Log returns the natural logarithm like math.Log, but also for subnormal x
// (below 2⁻¹⁰²² ≈ 2.2e-308): on amd64 math.Log gives log(2⁻¹⁰²²) ≈ −708.4
// or nearby for all of them (math.Log(5e-324) = −709.09 instead of −744.44;
// golang/go#56600). A subnormal x is scaled by 2⁵² exactly first:
//
//	log x = log(x·2⁵²) − 52·log 2.
//
// Special cases are the same as math.Log's:
//
//	Log(+Inf) = +Inf
//	Log(0) = -Inf
//	Log(x < 0) = NaN
//	Log(NaN) = NaN
func Log(x float64) float64 {
	// Also for x ≤ 0 and −Inf the scaled form gives math.Log's −Inf or NaN.
	if x < 0x1p-1022 {
		return math.Log(x*0x1p52) - 52*math.Ln2
	}
	return math.Log(x)
}

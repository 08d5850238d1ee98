package symbolic

import (
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// The stable primitives, in float64. Each is accurate to a few ulps on all
// of ℝ (its error bound, used by the interval extension, is in interval.go).

// softplus returns log(1 + eˣ) (numerics.Log1pExp).
func softplus(x float64) float64 { return numerics.Log1pExp(x) }

// sigmoid returns 1/(1 + e^{−x}), as eˣ/(1 + eˣ) for x < 0 so that it
// keeps its relative precision for x → −∞.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	t := math.Exp(x)
	return t / (1 + t)
}

// logSoftplus returns log log(1 + eˣ) (numerics.LogLog1pExp): x for
// x → −∞, log x for x → +∞.
func logSoftplus(x float64) float64 { return numerics.LogLog1pExp(x) }

// dLogSoftplus returns sigmoid(x)/softplus(x), the derivative of
// logsoftplus, which decreases from 1 (x → −∞) to 0 (~1/x as x → +∞). With
// t = eˣ it is (t/log1p(t))/(1 + t) for x ≤ 0, where t/log1p(t) is exactly 1
// in float64 below t = 2⁻⁵³, and 1/((1 + e^{−x})·softplus(x)) for x > 0
// (the logistic loss's f′(q) at q = −x, losses.Logistic.FPrime).
func dLogSoftplus(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if x <= 0 {
		t := math.Exp(x)
		r := 1.0
		if t > 0x1p-53 {
			r = t / math.Log1p(t)
		}
		return r / (1 + t)
	}
	return 1 / ((1 + math.Exp(-x)) * numerics.Log1pExp(x))
}

// logExpm1 returns log(eˣ − 1) for x > 0 (numerics.LogExpm1).
func logExpm1(x float64) float64 { return numerics.LogExpm1(x) }

// laeSwitch is where lae leaves log1p(k·expm1(x)), which overflows at
// x ≈ 709.78, for x + log k + log1p((1 − k)/(k·eˣ)).
const laeSwitch = 700

// lae returns log(1 − k + k·eˣ) for k ∈ (0, 1): log1p(k·expm1(x)), which
// keeps its relative precision as x → 0 (lae(x, k) ≈ k·x), and for x > 700
// x + log k + log1p((1 − k)/k·e^{−x}).
func lae(x, k float64) float64 {
	if x > laeSwitch {
		return x + math.Log(k) + math.Log1p((1-k)/k*math.Exp(-x))
	}
	return math.Log1p(k * math.Expm1(x))
}

// logAddExp returns log(eᵃ + eᵇ) (numerics.LogAddExp).
func logAddExp(a, b float64) float64 { return numerics.LogAddExp(a, b) }

// sign returns −1, 0 or 1 (NaN for NaN).
func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

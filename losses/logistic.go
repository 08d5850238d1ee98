package losses

import (
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// Logistic is the logistic loss ℓ(q) = log(1 + e^{−q}) (LL Remark A.2):
//
//	f(q)  = −log log(1 + e^{−q})
//	f′(q) = e^{−q} / ((1 + e^{−q}) log(1 + e^{−q}))
//	g(u)  = −log(e^{e^{−u}} − 1)
//	g′(u) = e^{−u} / (1 − e^{−e^{−u}})   (LL prints e^{−u}/(e^{e^{−u}} − 1): see GPrime)
//	b_f = 0,  ℓ(b_f) = log 2.
type Logistic struct{}

// Name returns "logistic".
func (Logistic) Name() string { return "logistic" }

// LogLoss returns log log(1 + e^{−q}); for q → ∞ it is −q − e^{−q}/2, never −Inf
// for finite q.
//
// Special cases are:
//
//	LogLoss(+Inf) = -Inf
//	LogLoss(-Inf) = +Inf
//	LogLoss(NaN) = NaN
func (Logistic) LogLoss(q float64) float64 { return numerics.LogLog1pExp(-q) }

// DLogLoss returns −f′(q).
func (l Logistic) DLogLoss(q float64) float64 { return -l.FPrime(q) }

// F returns −log log(1 + e^{−q}).
//
// Special cases are:
//
//	F(+Inf) = +Inf
//	F(-Inf) = -Inf
//	F(NaN) = NaN
func (Logistic) F(q float64) float64 { return -numerics.LogLog1pExp(-q) }

// FPrime returns f′(q). With t = e^{−q} it is (t/log1p(t))/(1+t) for q ≥ 0,
// where t/log1p(t) → 1 as t → 0 (and is exactly 1 in double precision below
// t = 2⁻⁵³); for q < 0 it is 1/((1 + e^{q})·log(1 + e^{−q})), so f′(q) ≈ 1/|q|
// for q → −∞.
//
// Special cases are:
//
//	FPrime(+Inf) = 1
//	FPrime(-Inf) = 0
//	FPrime(NaN) = NaN
func (Logistic) FPrime(q float64) float64 {
	if q >= 0 {
		t := math.Exp(-q)
		r := 1.0
		if t > 0x1p-53 {
			r = t / math.Log1p(t)
		}
		return r / (1 + t)
	}
	u := math.Exp(q)
	return 1 / ((1 + u) * numerics.Log1pExp(-q))
}

// G returns g(u) = −log(e^{e^{−u}} − 1). With x = e^{−u}: for x ≤ 1/2 it is
// u − log(expm1(x)/x), exact to rounding for huge u (g(u) = u − x/2 + O(x²));
// for larger x it is −log(e^x − 1) in the overflow-free form −x − log1p(−e^{−x}).
//
// Special cases are:
//
//	G(+Inf) = +Inf
//	G(-Inf) = -Inf
//	G(NaN) = NaN
func (Logistic) G(u float64) float64 {
	x := numerics.Exp(-u)
	switch {
	case x == 0:
		return u
	case x <= 0.5:
		return u - math.Log(math.Expm1(x)/x)
	default:
		return -numerics.LogExpm1(x)
	}
}

// GPrime returns g′(u) = 1/f′(g(u)) = x e^x/(e^x − 1) = x/(1 − e^{−x}) with
// x = e^{−u}, formed as x/(−expm1(−x)). It tends to 1 as u → ∞ and to
// e^{−u} as u → −∞.
//
// LL Remark A.2 prints g′(u) = x/(e^x − 1), which lacks the factor e^x
// (differentiate g(u) = −log(e^x − 1): dx/du = −x, so g′ = x e^x/(e^x − 1)).
// Both tend to 1, which is all the paper uses, but the printed one is off by
// a factor 2 at u = log(1/log 2), the margin 0.
//
// Special cases are:
//
//	GPrime(+Inf) = 1
//	GPrime(-Inf) = +Inf
//	GPrime(NaN) = NaN
func (Logistic) GPrime(u float64) float64 {
	x := numerics.Exp(-u)
	if x == 0 {
		return 1
	}
	return x / -math.Expm1(-x)
}

// BF returns 0.
func (Logistic) BF() float64 { return 0 }

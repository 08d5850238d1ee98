package losses

import (
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// Squared is the regression loss ℓ(p; y) = ½(p − y)² (ZD §4.1).
type Squared struct{}

// Name returns "squared".
func (Squared) Name() string { return "squared" }

// Kind returns Regression.
func (Squared) Kind() Kind { return Regression }

// LogLoss returns log ℓ = 2 log|p − y| − log 2; −Inf at an exact fit.
//
// Special cases are:
//
//	LogLoss = -Inf if p = y
//	LogLoss = +Inf if p or y is ±Inf (and not both the same infinity)
//	LogLoss = NaN if p or y is NaN, or p = y = ±Inf
func (Squared) LogLoss(s []float64, y float64) float64 {
	return 2*numerics.Log(math.Abs(s[0]-y)) - math.Ln2
}

// ScaledGrad writes (p − y)·e^{−shift}: as the product when e^{−shift} is a
// normal float (a subnormal or infinite product is then the true result's
// own underflow or overflow), otherwise as ±exp(log|p − y| − shift), which
// is finite whenever the result is. At an exact fit it writes 0 (not NaN).
func (Squared) ScaledGrad(dst, s []float64, y float64, shift float64) {
	r := s[0] - y
	if r == 0 {
		dst[0] = 0
		return
	}
	if e := numerics.Exp(-shift); e >= 0x1p-1022 && e <= math.MaxFloat64 {
		dst[0] = r * e
		return
	}
	dst[0] = math.Copysign(numerics.Exp(numerics.Log(math.Abs(r))-shift), r)
}

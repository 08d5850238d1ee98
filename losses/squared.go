package losses

import "math"

// Squared is the regression loss ℓ(p; y) = ½(p − y)² (ZD §4.1).
type Squared struct{}

// Name returns "squared".
func (Squared) Name() string { return "squared" }

// Kind returns Regression.
func (Squared) Kind() Kind { return Regression }

// LogLoss returns 2 log|p − y| − log 2; −Inf at an exact fit.
func (Squared) LogLoss(s []float64, y float64) float64 {
	return 2*math.Log(math.Abs(s[0]-y)) - math.Ln2
}

// ScaledGrad writes (p − y)·e^{−shift}, formed as ±exp(log|p − y| − shift).
func (Squared) ScaledGrad(dst, s []float64, y float64, shift float64) {
	r := s[0] - y
	if r == 0 {
		dst[0] = 0
		return
	}
	dst[0] = math.Copysign(math.Exp(math.Log(math.Abs(r))-shift), r)
}

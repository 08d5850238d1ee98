package losses

import (
	"math"
	"strconv"

	"github.com/implicitbias/implicitbias/numerics"
)

// BinaryLoss turns a margin loss into a Loss of one score s and a label
// y ∈ {−1, +1}: ℓ(s; y) = ℓ(y·s).
type BinaryLoss struct {
	M Margin
}

// NewBinary returns m as a Loss of binary scores.
func NewBinary(m Margin) BinaryLoss { return BinaryLoss{M: m} }

// Name returns the margin loss's name.
func (b BinaryLoss) Name() string { return b.M.Name() }

// Kind returns Binary.
func (BinaryLoss) Kind() Kind { return Binary }

// LogLoss returns log ℓ(y·s[0]).
func (b BinaryLoss) LogLoss(s []float64, y float64) float64 { return b.M.LogLoss(y * s[0]) }

// ScaledGrad writes ∂ℓ/∂s·e^{−shift} = −y f′(q) e^{−f(q) − shift}, q = y·s.
// The exponent e = −f(q) − shift is formed first, so that neither ℓ nor
// e^{−shift} is ever computed on its own. Where e^e is a normal float
// (−708 ≤ e ≤ 709) the result is the product f′(q)·e^e, correctly rounded
// from two accurate factors: a subnormal or infinite product is then the
// true result's own underflow or overflow. Outside that range (e^e
// overflowing while f′ is small, or subnormal while f′ is large) log |f′(q)|
// is moved into the exponent, so that the result is finite and normal
// whenever it can be.
func (b BinaryLoss) ScaledGrad(dst, s []float64, y float64, shift float64) {
	q := y * s[0]
	fp := b.M.FPrime(q)
	if fp == 0 {
		dst[0] = 0
		return
	}
	e := b.M.LogLoss(q) - shift
	if e <= 709 && e >= -708 {
		dst[0] = -y * (fp * math.Exp(e))
		return
	}
	dst[0] = -y * math.Copysign(numerics.Exp(e+numerics.Log(math.Abs(fp))), fp)
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

package losses

import (
	"math"
	"strconv"
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
func (b BinaryLoss) ScaledGrad(dst, s []float64, y float64, shift float64) {
	q := y * s[0]
	fp := b.M.FPrime(q)
	if fp == 0 {
		dst[0] = 0
		return
	}
	dst[0] = -y * fp * math.Exp(b.M.LogLoss(q)-shift)
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

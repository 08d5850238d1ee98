package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// actLayer applies σ elementwise; aux keeps σ'(z) for the backward pass,
// except for ReLU, whose σ′(z) = [z > 0] the backward pass reads off its
// input. The input may be the layer's own output (a Network computes a
// ReLU in place, fused with the dense layer before it): [relu(z) > 0] =
// [z > 0].
type actLayer struct {
	dim int
	act Activation
}

func (l *actLayer) dims() (int, int) { return l.dim, l.dim }
func (l *actLayer) numParams() int   { return 0 }
func (l *actLayer) scratchSize() int { return 0 }

func (l *actLayer) auxSize() int {
	if l.isReLU() {
		return 0
	}
	return l.dim
}

func (l *actLayer) isReLU() bool { return l.act.Kind == ReLU }

func (l *actLayer) forward(_, in, out, aux, _ []float64, n int) {
	m := n * l.dim
	if l.isReLU() {
		linalg.ReLU(out[:m], nil, in[:m])
		return
	}
	l.act.apply(out[:m], aux[:m], in[:m])
}

func (l *actLayer) backward(_, in, gOut, gIn, _, aux, _ []float64, n int) {
	if gIn == nil {
		return
	}
	m := n * l.dim
	if l.isReLU() {
		linalg.MulPos(gIn[:m], gOut[:m], in[:m])
		return
	}
	linalg.Mul(gIn[:m], gOut[:m], aux[:m])
}

func (l *actLayer) degree(d multiDegree, _ int) multiDegree {
	k, ok := l.act.Degree()
	if ok {
		return d.times(k)
	}
	if d.homogeneous() && d.isZero() {
		return d // σ of the raw input does not depend on θ.
	}
	if !d.homogeneous() {
		return d
	}
	return multiDegree{reason: fmt.Sprintf("activation %s is not homogeneous", l.act)}
}

func (l *actLayer) initParams(*rand.Rand, []float64) {}

func (l *actLayer) pattern(in, _ []float64, n int, dst []byte) []byte {
	if !l.act.kinked() {
		return dst
	}
	var b byte
	for i, v := range in[:n*l.dim] {
		if v > 0 {
			b |= 1 << (i % 8)
		}
		if i%8 == 7 {
			dst = append(dst, b)
			b = 0
		}
	}
	return append(dst, b)
}

func (l *actLayer) String() string { return l.act.String() }

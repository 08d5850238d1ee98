package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// dense is z = W·a (+ b) with W out×in stored row-major, then b.
type dense struct {
	in, out int
	bias    bool
	he      bool // He-normal weights and zero biases (2-D CNNs, LL App. J)
}

func (l *dense) dims() (int, int) { return l.in, l.out }

func (l *dense) numParams() int {
	if l.bias {
		return l.in*l.out + l.out
	}
	return l.in * l.out
}

func (l *dense) auxSize() int     { return 0 }
func (l *dense) scratchSize() int { return 0 }

func (l *dense) forward(p, in, out, _, _ []float64, n int) {
	w := p[:l.in*l.out]
	linalg.MulABt(n, l.out, l.in, in, l.in, w, l.in, out, l.out, false)
	if l.bias {
		b := p[l.in*l.out:]
		for i := 0; i < n; i++ {
			row := out[i*l.out : (i+1)*l.out]
			for j := range row {
				row[j] += b[j]
			}
		}
	}
}

func (l *dense) backward(p, in, gOut, gIn, gp, _, _ []float64, n int) {
	w := p[:l.in*l.out]
	// ∂/∂W = gOutᵀ·in (out×in); ∂/∂in = gOut·W (n×in).
	linalg.MulAtB(l.out, l.in, n, gOut, l.out, in, l.in, gp[:l.in*l.out], l.in, false)
	if l.bias {
		gb := gp[l.in*l.out:]
		clear(gb)
		for i := 0; i < n; i++ {
			row := gOut[i*l.out : (i+1)*l.out]
			for j, v := range row {
				gb[j] += v
			}
		}
	}
	if gIn != nil {
		linalg.MulAB(n, l.in, l.out, gOut, l.out, w, l.in, gIn, l.in, false)
	}
}

// forwardReLU writes relu(W·a) for the n samples of in: the forward pass
// of this layer and a following ReLU in one pass over out (no bias).
func (l *dense) forwardReLU(p, in, out []float64, n int) {
	linalg.MulABtReLU(n, l.out, l.in, in, l.in, p[:l.in*l.out], l.in, out, l.out)
}

// backwardReLU is backward followed by the backward pass of a ReLU layer
// whose output is in (no bias): gIn = (gOut·W) ⊙ [in > 0], the gradient with
// respect to the ReLU's input, since [in > 0] = [z > 0] for in = relu(z).
func (l *dense) backwardReLU(p, in, gOut, gIn, gp []float64, n int) {
	w := p[:l.in*l.out]
	linalg.MulAtB(l.out, l.in, n, gOut, l.out, in, l.in, gp[:l.in*l.out], l.in, false)
	linalg.MulABMask(n, l.in, l.out, gOut, l.out, w, l.in, gIn, l.in, in, l.in)
}

func (l *dense) degree(d multiDegree, block int) multiDegree {
	return affineDegree(d, block, l.bias)
}

// initParams draws W ~ N(0, 1/in) and b ~ N(0, 1), or with he set
// W ~ N(0, 2/in) and b = 0.
func (l *dense) initParams(r *rand.Rand, p []float64) {
	if l.he {
		heNormal(r, p[:l.in*l.out], l.in)
		clear(p[l.in*l.out:])
		return
	}
	s := 1 / math.Sqrt(float64(l.in))
	for i := range p[:l.in*l.out] {
		p[i] = s * r.NormFloat64()
	}
	for i := l.in * l.out; i < len(p); i++ {
		p[i] = r.NormFloat64()
	}
}

func (l *dense) pattern(_, _ []float64, _ int, dst []byte) []byte { return dst }

func (l *dense) String() string {
	if l.bias {
		return fmt.Sprintf("dense(%d→%d, bias)", l.in, l.out)
	}
	return fmt.Sprintf("dense(%d→%d)", l.in, l.out)
}

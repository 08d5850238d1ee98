package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// conv1d is a valid (unpadded) 1-D convolution over positions, channels last:
//
//	out[t][o] = Σ_{j<K} Σ_{c<Cin} W[o][j·Cin + c] · in[t·S + j][c]  (+ b[o]).
//
// The window of output position t is the contiguous slice
// in[t·S·Cin : (t·S+K)·Cin], so im2col copies rows and one matrix product
// does the whole batch. aux keeps the im2col matrix for the backward pass.
type conv1d struct {
	length, cin     int // input positions and channels
	cout, k, stride int
	bias            bool
}

func (l *conv1d) lout() int { return (l.length-l.k)/l.stride + 1 }

func (l *conv1d) dims() (int, int) { return l.length * l.cin, l.lout() * l.cout }

func (l *conv1d) nw() int { return l.cout * l.k * l.cin }

func (l *conv1d) numParams() int {
	if l.bias {
		return l.nw() + l.cout
	}
	return l.nw()
}

func (l *conv1d) auxSize() int     { return l.lout() * l.k * l.cin }
func (l *conv1d) scratchSize() int { return l.lout() * l.k * l.cin }

func (l *conv1d) im2col(in, col []float64, n int) {
	in0, _ := l.dims()
	lo, w := l.lout(), l.k*l.cin
	for i := 0; i < n; i++ {
		x := in[i*in0 : (i+1)*in0]
		for t := 0; t < lo; t++ {
			s := t * l.stride * l.cin
			copy(col[(i*lo+t)*w:(i*lo+t+1)*w], x[s:s+w])
		}
	}
}

func (l *conv1d) forward(p, in, out, aux, _ []float64, n int) {
	lo, w := l.lout(), l.k*l.cin
	l.im2col(in, aux, n)
	rows := n * lo
	linalg.MulABt(rows, l.cout, w, aux, w, p[:l.nw()], w, out, l.cout, false)
	if l.bias {
		b := p[l.nw():]
		for r := 0; r < rows; r++ {
			row := out[r*l.cout : (r+1)*l.cout]
			for j := range row {
				row[j] += b[j]
			}
		}
	}
}

func (l *conv1d) backward(p, _, gOut, gIn, gp, aux, scratch []float64, n int) {
	lo, w := l.lout(), l.k*l.cin
	rows := n * lo
	linalg.MulAtB(l.cout, w, rows, gOut, l.cout, aux, w, gp[:l.nw()], w, false)
	if l.bias {
		gb := gp[l.nw():]
		clear(gb)
		for r := 0; r < rows; r++ {
			for j, v := range gOut[r*l.cout : (r+1)*l.cout] {
				gb[j] += v
			}
		}
	}
	if gIn == nil {
		return
	}
	gcol := scratch[:rows*w]
	linalg.MulAB(rows, w, l.cout, gOut, l.cout, p[:l.nw()], w, gcol, w, false)
	in0, _ := l.dims()
	clear(gIn[:n*in0])
	for i := 0; i < n; i++ {
		g := gIn[i*in0 : (i+1)*in0]
		for t := 0; t < lo; t++ {
			s := t * l.stride * l.cin
			src := gcol[(i*lo+t)*w : (i*lo+t+1)*w]
			dst := g[s : s+w]
			for j, v := range src {
				dst[j] += v
			}
		}
	}
}

func (l *conv1d) degree(d multiDegree, block int) multiDegree {
	return affineDegree(d, block, l.bias)
}

// initParams draws W ~ N(0, 1/(K·Cin)) and b ~ N(0, 1).
func (l *conv1d) initParams(r *rand.Rand, p []float64) {
	s := 1 / math.Sqrt(float64(l.k*l.cin))
	for i := range p[:l.nw()] {
		p[i] = s * r.NormFloat64()
	}
	for i := l.nw(); i < len(p); i++ {
		p[i] = r.NormFloat64()
	}
}

func (l *conv1d) pattern(_, _ []float64, _ int, dst []byte) []byte { return dst }

func (l *conv1d) String() string {
	s := fmt.Sprintf("conv(%dx%d→%d, k=%d, s=%d", l.length, l.cin, l.cout, l.k, l.stride)
	if l.bias {
		s += ", bias"
	}
	return s + ")"
}

// PoolKind selects max or average pooling.
type PoolKind int

const (
	// NoPool leaves a convolution's output as it is.
	NoPool PoolKind = iota
	// MaxPool takes the maximum over each window; degree 1.
	MaxPool
	// AvgPool takes the mean over each window; degree 1, linear.
	AvgPool
)

// pool1d pools non-overlapping windows of size p over positions, channels
// last; positions beyond the last full window are dropped. For max pooling,
// aux keeps the argmax offset of each output.
type pool1d struct {
	length, ch, size int
	kind             PoolKind
}

func (l *pool1d) lout() int        { return l.length / l.size }
func (l *pool1d) dims() (int, int) { return l.length * l.ch, l.lout() * l.ch }
func (l *pool1d) numParams() int   { return 0 }
func (l *pool1d) scratchSize() int { return 0 }

func (l *pool1d) auxSize() int {
	if l.kind == MaxPool {
		return l.lout() * l.ch
	}
	return 0
}

func (l *pool1d) forward(_, in, out, aux, _ []float64, n int) {
	in0, out0 := l.dims()
	lo := l.lout()
	inv := 1 / float64(l.size)
	for i := 0; i < n; i++ {
		x := in[i*in0 : (i+1)*in0]
		y := out[i*out0 : (i+1)*out0]
		for t := 0; t < lo; t++ {
			for c := 0; c < l.ch; c++ {
				base := t*l.size*l.ch + c
				switch l.kind {
				case MaxPool:
					best, arg := x[base], 0
					for j := 1; j < l.size; j++ {
						if v := x[base+j*l.ch]; v > best {
							best, arg = v, j
						}
					}
					y[t*l.ch+c] = best
					aux[i*out0+t*l.ch+c] = float64(arg)
				default:
					var s float64
					for j := 0; j < l.size; j++ {
						s += x[base+j*l.ch]
					}
					y[t*l.ch+c] = s * inv
				}
			}
		}
	}
}

func (l *pool1d) backward(_, _, gOut, gIn, _, aux, _ []float64, n int) {
	if gIn == nil {
		return
	}
	in0, out0 := l.dims()
	lo := l.lout()
	inv := 1 / float64(l.size)
	clear(gIn[:n*in0])
	for i := 0; i < n; i++ {
		g := gIn[i*in0 : (i+1)*in0]
		gy := gOut[i*out0 : (i+1)*out0]
		for t := 0; t < lo; t++ {
			for c := 0; c < l.ch; c++ {
				base := t*l.size*l.ch + c
				v := gy[t*l.ch+c]
				if l.kind == MaxPool {
					g[base+int(aux[i*out0+t*l.ch+c])*l.ch] = v
					continue
				}
				for j := 0; j < l.size; j++ {
					g[base+j*l.ch] = v * inv
				}
			}
		}
	}
}

func (l *pool1d) degree(d multiDegree, _ int) multiDegree { return d }

func (l *pool1d) initParams(*rand.Rand, []float64) {}

func (l *pool1d) pattern(_, aux []float64, n int, dst []byte) []byte {
	_, out0 := l.dims()
	return poolPattern(l.kind, aux, n*out0, dst)
}

func (l *pool1d) String() string { return poolName(l.kind, "", l.size) }

package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// maxPool2dSize bounds the pooling window so that a max pool's argmax
// (a·P + b < P²) fits the byte Pattern records.
const maxPool2dSize = 16

// pool2d pools non-overlapping P×P windows (stride P) of a height×width×C
// image, channels last, channel by channel: the maximum (degree 1, kinked)
// or the mean (degree 1, linear). Rows and columns past the last full
// window are dropped (⌊height/P⌋×⌊width/P⌋ outputs; TensorFlow's "valid"
// pooling, and the same as its "same" pooling whenever P divides the size,
// as in LL's 28 → 14 → 7). For max pooling, aux keeps the argmax a·P + b of
// each output (the first position holding the maximum; see maxWindow).
type pool2d struct {
	h, w, ch, size int
	kind           PoolKind
}

func (l *pool2d) ho() int { return l.h / l.size }
func (l *pool2d) wo() int { return l.w / l.size }

func (l *pool2d) dims() (int, int) { return l.h * l.w * l.ch, l.ho() * l.wo() * l.ch }
func (l *pool2d) numParams() int   { return 0 }
func (l *pool2d) scratchSize() int { return 0 }

func (l *pool2d) auxSize() int {
	if l.kind == MaxPool {
		_, out := l.dims()
		return out
	}
	return 0
}

// in returns the C inputs at row r, column c of sample x.
func (l *pool2d) in(x []float64, r, c int) []float64 {
	s := (r*l.w + c) * l.ch
	return x[s : s+l.ch]
}

func (l *pool2d) forward(_, in, out, aux, _ []float64, n int) {
	in0, out0 := l.dims()
	inv := 1 / float64(l.size*l.size)
	for i := 0; i < n; i++ {
		x := in[i*in0 : (i+1)*in0]
		for oh := 0; oh < l.ho(); oh++ {
			for ow := 0; ow < l.wo(); ow++ {
				o := i*out0 + (oh*l.wo()+ow)*l.ch
				y := out[o : o+l.ch]
				if l.kind == MaxPool {
					l.maxWindow(x, oh, ow, y, aux[o:o+l.ch])
					continue
				}
				clear(y)
				for a := 0; a < l.size; a++ {
					for b := 0; b < l.size; b++ {
						for c, v := range l.in(x, oh*l.size+a, ow*l.size+b) {
							y[c] += v
						}
					}
				}
				for c := range y {
					y[c] *= inv
				}
			}
		}
	}
}

// maxWindow writes the channelwise maximum of window (oh, ow) into y and
// its position in the window into arg: Go's max (NaN propagates, +0 is
// above −0), at the first position in raster order holding it (the last
// when none does, for NaN).
func (l *pool2d) maxWindow(x []float64, oh, ow int, y, arg []float64) {
	if l.size == 2 {
		l.maxWindow2(x, oh, ow, y, arg)
		return
	}
	l.maxWindowAny(x, oh, ow, y, arg)
}

// maxWindowAny is maxWindow for any window size: the maximum, then a pass
// from the last position to the first that leaves the first one equal to
// it.
func (l *pool2d) maxWindowAny(x []float64, oh, ow int, y, arg []float64) {
	p2 := l.size * l.size
	copy(y, l.in(x, oh*l.size, ow*l.size))
	for j := 1; j < p2; j++ {
		for c, v := range l.in(x, oh*l.size+j/l.size, ow*l.size+j%l.size) {
			y[c] = max(y[c], v)
		}
	}
	for c := range arg {
		arg[c] = float64(p2 - 1)
	}
	for j := p2 - 1; j >= 0; j-- {
		for c, v := range l.in(x, oh*l.size+j/l.size, ow*l.size+j%l.size) {
			if v == y[c] {
				arg[c] = float64(j)
			}
		}
	}
}

// maxWindow2 is maxWindow for 2×2 windows (LL's pooling): linalg.Max4 on
// the four positions' channel vectors, without branches (ReLU's zeros make
// the comparisons of a running maximum unpredictable) and with AVX-512
// where the CPU has it.
func (l *pool2d) maxWindow2(x []float64, oh, ow int, y, arg []float64) {
	r, c := 2*oh, 2*ow
	linalg.Max4(y, arg, l.in(x, r, c), l.in(x, r, c+1), l.in(x, r+1, c), l.in(x, r+1, c+1))
}

func (l *pool2d) backward(_, _, gOut, gIn, _, aux, _ []float64, n int) {
	if gIn == nil {
		return
	}
	if l.kind == MaxPool && l.size == 2 && l.h%2 == 0 && l.w%2 == 0 {
		l.backwardMax2(gOut, gIn, aux, n)
		return
	}
	in0, out0 := l.dims()
	inv := 1 / float64(l.size*l.size)
	clear(gIn[:n*in0])
	for i := 0; i < n; i++ {
		g := gIn[i*in0 : (i+1)*in0]
		for oh := 0; oh < l.ho(); oh++ {
			for ow := 0; ow < l.wo(); ow++ {
				o := i*out0 + (oh*l.wo()+ow)*l.ch
				gy := gOut[o : o+l.ch]
				if l.kind == MaxPool {
					// Windows do not overlap: each input gets at most one
					// output's gradient.
					for c, v := range gy {
						j := int(aux[o+c])
						l.in(g, oh*l.size+j/l.size, ow*l.size+j%l.size)[c] = v
					}
					continue
				}
				for a := 0; a < l.size; a++ {
					for b := 0; b < l.size; b++ {
						dst := l.in(g, oh*l.size+a, ow*l.size+b)
						for c, v := range gy {
							dst[c] = v * inv
						}
					}
				}
			}
		}
	}
}

// backwardMax2 is backward for 2×2 max pooling of an image of even sides,
// LL's case: every input lies in exactly one window, so each window's four
// gradients are written — the output's gradient at the argmax, +0
// elsewhere, the values of clearing gIn and scattering — in one pass and
// without branches.
func (l *pool2d) backwardMax2(gOut, gIn, aux []float64, n int) {
	in0, out0 := l.dims()
	ho, wo := l.ho(), l.wo()
	for i := 0; i < n; i++ {
		g := gIn[i*in0 : (i+1)*in0]
		for oh := 0; oh < ho; oh++ {
			for ow := 0; ow < wo; ow++ {
				o := i*out0 + (oh*wo+ow)*l.ch
				gy, arg := gOut[o:o+l.ch], aux[o:o+l.ch]
				linalg.Unpool4(l.in(g, 2*oh, 2*ow), l.in(g, 2*oh, 2*ow+1), l.in(g, 2*oh+1, 2*ow), l.in(g, 2*oh+1, 2*ow+1), gy, arg)
			}
		}
	}
}

// fusesReLU reports whether backwardReLU runs in one pass: 2×2 max
// pooling of even sides.
func (l *pool2d) fusesReLU() bool {
	return l.kind == MaxPool && l.size == 2 && l.h%2 == 0 && l.w%2 == 0
}

// backwardReLU is backwardMax2 followed by the backward pass of the ReLU
// layer before the pooling, whose output is in (the pooling's input):
// gIn = unpool(gOut) ⊙ [in > 0], the gradient with respect to the ReLU's
// input ([relu(z) > 0] = [z > 0]), in one pass (fusesReLU). With pooled,
// in is the pooling's output instead, which gives the same bits (see
// poolOut) without reading the ReLU's.
func (l *pool2d) backwardReLU(in, gOut, gIn, aux []float64, n int, pooled bool) {
	in0, out0 := l.dims()
	ho, wo := l.ho(), l.wo()
	for i := 0; i < n; i++ {
		g := gIn[i*in0 : (i+1)*in0]
		for oh := 0; oh < ho; oh++ {
			for ow := 0; ow < wo; ow++ {
				o := i*out0 + (oh*wo+ow)*l.ch
				r, c := 2*oh, 2*ow
				gy, arg := gOut[o:o+l.ch], aux[o:o+l.ch]
				q0, q1, q2, q3 := l.in(g, r, c), l.in(g, r, c+1), l.in(g, r+1, c), l.in(g, r+1, c+1)
				if pooled {
					y := in[o : o+l.ch]
					linalg.Unpool4ReLU(q0, q1, q2, q3, gy, arg, y, y, y, y)
					continue
				}
				x := in[i*in0 : (i+1)*in0]
				linalg.Unpool4ReLU(q0, q1, q2, q3, gy, arg, l.in(x, r, c), l.in(x, r, c+1), l.in(x, r+1, c), l.in(x, r+1, c+1))
			}
		}
	}
}

func (l *pool2d) degree(d multiDegree, _ int) multiDegree { return d }

func (l *pool2d) initParams(*rand.Rand, []float64) {}

func (l *pool2d) pattern(_, aux []float64, n int, dst []byte) []byte {
	_, out0 := l.dims()
	return poolPattern(l.kind, aux, n*out0, dst)
}

func (l *pool2d) String() string { return poolName(l.kind, "2d", l.size) }

// poolPattern appends the argmaxes of a max pool's count outputs (the
// piece of Φ it selects), nothing for average pooling (linear; no aux).
func poolPattern(kind PoolKind, aux []float64, count int, dst []byte) []byte {
	if kind != MaxPool {
		return dst
	}
	for _, v := range aux[:count] {
		dst = append(dst, byte(v))
	}
	return dst
}

// poolName is "maxpool<dim>(size)" or "avgpool<dim>(size)".
func poolName(kind PoolKind, dim string, size int) string {
	if kind == MaxPool {
		return fmt.Sprintf("maxpool%s(%d)", dim, size)
	}
	return fmt.Sprintf("avgpool%s(%d)", dim, size)
}

package models_test

import (
	"fmt"
	"math"
)

// A naive reference for the 2-D CNNs, written independently of the package:
// one sample at a time, one output entry at a time, padding handled by a
// bounds test on every tap (no im2col, no matrix kernels). Only the
// documented layout is shared: images are rows × columns × channels,
// channels last; a conv layer with Cin inputs, Cout filters of side K is
// W[o][(a·K + b)·Cin + c] (Cout rows of K·K·Cin) then Cout biases; dense
// layers are as in reference_test.go. Padding follows TensorFlow's "same"
// rule, derived here from its definition: out = ⌈n/S⌉, total padding
// max((out−1)·S + K − n, 0), the smaller half before.

type ref2dKind int

const (
	ref2dConv ref2dKind = iota
	ref2dMax
	ref2dAvg
	ref2dDense
	ref2dAct
)

type ref2dOp struct {
	kind        ref2dKind
	cout, k, s  int  // conv
	valid, bias bool // conv, dense
	size        int  // pooling
	out         int  // dense outputs
	f           func(float64) float64
}

func conv2(cout, k, s int, valid, bias bool) ref2dOp {
	return ref2dOp{kind: ref2dConv, cout: cout, k: k, s: s, valid: valid, bias: bias}
}
func max2(p int) ref2dOp                   { return ref2dOp{kind: ref2dMax, size: p} }
func avg2(p int) ref2dOp                   { return ref2dOp{kind: ref2dAvg, size: p} }
func fc2(out int, bias bool) ref2dOp       { return ref2dOp{kind: ref2dDense, out: out, bias: bias} }
func act2(f func(float64) float64) ref2dOp { return ref2dOp{kind: ref2dAct, f: f} }

// ref2d is a reference 2-D CNN on h×w×c images.
type ref2d struct {
	h, w, c int
	ops     []ref2dOp
}

// outSize returns the output length and the padding before, along an axis
// of n inputs.
func outSize(n, k, s int, valid bool) (int, int) {
	if valid {
		return (n-k)/s + 1, 0
	}
	out := (n + s - 1) / s
	return out, max((out-1)*s+k-n, 0) / 2
}

func (r ref2d) forward(theta, x []float64) []float64 {
	h, w, ch := r.h, r.w, r.c
	a, off := x, 0
	take := func(n int) []float64 {
		p := theta[off : off+n]
		off += n
		return p
	}
	at := func(v []float64, i, j, c int) float64 { return v[(i*w+j)*ch+c] }
	for _, op := range r.ops {
		switch op.kind {
		case ref2dConv:
			ho, pt := outSize(h, op.k, op.s, op.valid)
			wo, pl := outSize(w, op.k, op.s, op.valid)
			wt := take(op.cout * op.k * op.k * ch)
			var b []float64
			if op.bias {
				b = take(op.cout)
			}
			y := make([]float64, ho*wo*op.cout)
			for i := 0; i < ho; i++ {
				for j := 0; j < wo; j++ {
					for o := 0; o < op.cout; o++ {
						s := 0.0
						for p := 0; p < op.k; p++ {
							for q := 0; q < op.k; q++ {
								ii, jj := i*op.s+p-pt, j*op.s+q-pl
								if ii < 0 || ii >= h || jj < 0 || jj >= w {
									continue
								}
								for c := 0; c < ch; c++ {
									s += wt[o*op.k*op.k*ch+(p*op.k+q)*ch+c] * at(a, ii, jj, c)
								}
							}
						}
						if op.bias {
							s += b[o]
						}
						y[(i*wo+j)*op.cout+o] = s
					}
				}
			}
			a, h, w, ch = y, ho, wo, op.cout
		case ref2dMax, ref2dAvg:
			ho, wo := h/op.size, w/op.size
			y := make([]float64, ho*wo*ch)
			for i := 0; i < ho; i++ {
				for j := 0; j < wo; j++ {
					for c := 0; c < ch; c++ {
						best, sum := math.Inf(-1), 0.0
						for p := 0; p < op.size; p++ {
							for q := 0; q < op.size; q++ {
								v := at(a, i*op.size+p, j*op.size+q, c)
								best = math.Max(best, v)
								sum += v
							}
						}
						if op.kind == ref2dMax {
							y[(i*wo+j)*ch+c] = best
						} else {
							y[(i*wo+j)*ch+c] = sum / float64(op.size*op.size)
						}
					}
				}
			}
			a, h, w = y, ho, wo
		case ref2dDense:
			in := len(a)
			wt := take(in * op.out)
			var b []float64
			if op.bias {
				b = take(op.out)
			}
			y := make([]float64, op.out)
			for o := range y {
				for i := 0; i < in; i++ {
					y[o] += wt[o*in+i] * a[i]
				}
				if op.bias {
					y[o] += b[o]
				}
			}
			a, h, w, ch = y, 1, 1, op.out
		case ref2dAct:
			y := make([]float64, len(a))
			for i, v := range a {
				y[i] = op.f(v)
			}
			a = y
		}
	}
	if off != len(theta) {
		panic(fmt.Sprintf("reference 2-D: uses %d parameters, θ has %d", off, len(theta)))
	}
	return a
}

// ref2dCases pairs 2-D CNN specs with hand-written references; the
// comments give the shapes, derived by hand.
var ref2dCases = []struct {
	spec string
	ref  ref2d
}{
	// 5×5 "same": 5×5×2, flatten 50.
	{"cnn2d:5x5x1:relu:2c3", ref2d{5, 5, 1, []ref2dOp{conv2(2, 3, 1, false, false), act2(refReLU), fc2(1, false)}}},
	// 6×6×2 valid k3: 4×4×3, max2: 2×2×3 = 12, dense 4, 3 outputs.
	{"cnn2d:6x6x2:relu:3c3-valid-max2:4:3", ref2d{6, 6, 2, []ref2dOp{
		conv2(3, 3, 1, true, false), act2(refReLU), max2(2), fc2(4, false), act2(refReLU), fc2(3, false)}}},
	// 7×6 same, stride 2: ⌈7/2⌉ = 4 rows (pad 2: 1 above, 1 below), ⌈6/2⌉ = 3
	// columns (pad 1: 0 left, 1 right); avg2: 2×1×2; 1×1 valid conv: 2×1×3
	// = 6; dense 5; 2 outputs; bias everywhere.
	{"cnn2d:7x6x1:lrelu0.1:2c3s2-avg2,3c1-valid:5:2+bias", ref2d{7, 6, 1, []ref2dOp{
		conv2(2, 3, 2, false, true), act2(refLeaky(0.1)), avg2(2), conv2(3, 1, 1, true, true), act2(refLeaky(0.1)),
		fc2(5, true), act2(refLeaky(0.1)), fc2(2, true)}}},
	// LL's architecture in miniature: 8×8 same k5 → 8×8×2, max2 → 4×4×2,
	// same k3 → 4×4×3, max2 → 2×2×3 = 12, no hidden dense, 2 outputs, bias
	// in layer 1 only.
	{"cnn2d:8x8x1:relu:2c5-max2,3c3-max2::2+bias@1", ref2d{8, 8, 1, []ref2dOp{
		conv2(2, 5, 1, false, true), act2(refReLU), max2(2), conv2(3, 3, 1, false, false), act2(refReLU), max2(2), fc2(2, false)}}},
	// 5×4×3 same k2: pad 1 row and 1 column, both after; 5×4×2; max3 drops
	// 2 rows and 1 column: 1×1×2.
	{"cnn2d:5x4x3:quad:2c2-max3", ref2d{5, 4, 3, []ref2dOp{conv2(2, 2, 1, false, false), act2(refQuad), max2(3), fc2(1, false)}}},
	// 9×9 valid k3 stride 3: 3×3×2, avg2: 1×1×2.
	{"cnn2d:9x9x1:relu3:2c3s3-valid-avg2", ref2d{9, 9, 1, []ref2dOp{conv2(2, 3, 3, true, false), act2(refPow(3)), avg2(2), fc2(1, false)}}},
	// Smooth and non-homogeneous: 4×4×2 same k3, 3 hidden, bias in layer 1.
	{"cnn2d:4x4x2:tanh:2c3:3+bias@1", ref2d{4, 4, 2, []ref2dOp{
		conv2(2, 3, 1, false, true), act2(refTanh), fc2(3, false), act2(refTanh), fc2(1, false)}}},
}

func (r ref2d) in() int { return r.h * r.w * r.c }

package models_test

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// This file holds a naive reference implementation of the networks, written
// independently of the package: one sample at a time, plain loops, no im2col
// and no matrix kernels. Only the parameter layout is shared, as documented:
// a dense layer a→b is W (b×a, row-major) then b biases; a convolution with
// Cin input and Cout output channels and width K is W[o][j·Cin + c] (Cout rows
// of K·Cin) then Cout biases. A sample is positions × channels, channels last.

type refKind int

const (
	refDense refKind = iota
	refAct
	refConv
	refMaxPool
	refAvgPool
)

// refOp is one stage of a reference network.
type refOp struct {
	kind    refKind
	in, out int                   // dense
	cout, k int                   // conv: filters and width
	stride  int                   // conv
	size    int                   // pooling window
	bias    bool                  // dense, conv
	f       func(float64) float64 // activation
}

func dense(in, out int) refOp           { return refOp{kind: refDense, in: in, out: out} }
func denseB(in, out int) refOp          { return refOp{kind: refDense, in: in, out: out, bias: true} }
func act(f func(float64) float64) refOp { return refOp{kind: refAct, f: f} }
func conv(cout, k, stride int) refOp {
	return refOp{kind: refConv, cout: cout, k: k, stride: stride}
}
func convB(cout, k, stride int) refOp {
	return refOp{kind: refConv, cout: cout, k: k, stride: stride, bias: true}
}
func maxPool(size int) refOp { return refOp{kind: refMaxPool, size: size} }
func avgPool(size int) refOp { return refOp{kind: refAvgPool, size: size} }

// refNet is a reference network on inputs of ch channels.
type refNet struct {
	ch  int
	ops []refOp
}

// forward returns Φ(θ; x) for one sample x. It panics if θ does not have
// exactly the number of parameters the stages use.
func (r refNet) forward(theta, x []float64) []float64 {
	a, ch, off := x, r.ch, 0
	take := func(n int) []float64 {
		p := theta[off : off+n]
		off += n
		return p
	}
	for _, op := range r.ops {
		switch op.kind {
		case refDense:
			if len(a) != op.in {
				panic(fmt.Sprintf("reference: dense expects %d inputs, gets %d", op.in, len(a)))
			}
			w := take(op.in * op.out)
			var b []float64
			if op.bias {
				b = take(op.out)
			}
			y := make([]float64, op.out)
			for o := range y {
				s := 0.0
				for i := 0; i < op.in; i++ {
					s += w[o*op.in+i] * a[i]
				}
				if op.bias {
					s += b[o]
				}
				y[o] = s
			}
			a, ch = y, 1
		case refAct:
			y := make([]float64, len(a))
			for i, v := range a {
				y[i] = op.f(v)
			}
			a = y
		case refConv:
			// out[t][o] = Σ_{j<K} Σ_{c<Cin} W[o][j·Cin+c] · in[t·S+j][c] (+ b[o]).
			length := len(a) / ch
			lo := (length-op.k)/op.stride + 1
			w := take(op.cout * op.k * ch)
			var b []float64
			if op.bias {
				b = take(op.cout)
			}
			y := make([]float64, lo*op.cout)
			for t := 0; t < lo; t++ {
				for o := 0; o < op.cout; o++ {
					s := 0.0
					for j := 0; j < op.k; j++ {
						for c := 0; c < ch; c++ {
							s += w[o*op.k*ch+j*ch+c] * a[(t*op.stride+j)*ch+c]
						}
					}
					if op.bias {
						s += b[o]
					}
					y[t*op.cout+o] = s
				}
			}
			a, ch = y, op.cout
		case refMaxPool, refAvgPool:
			// Non-overlapping windows; positions past the last full window
			// are dropped.
			lo := len(a) / ch / op.size
			y := make([]float64, lo*ch)
			for t := 0; t < lo; t++ {
				for c := 0; c < ch; c++ {
					best, sum := math.Inf(-1), 0.0
					for j := 0; j < op.size; j++ {
						v := a[(t*op.size+j)*ch+c]
						best = math.Max(best, v)
						sum += v
					}
					if op.kind == refMaxPool {
						y[t*ch+c] = best
					} else {
						y[t*ch+c] = sum / float64(op.size)
					}
				}
			}
			a = y
		}
	}
	if off != len(theta) {
		panic(fmt.Sprintf("reference: uses %d parameters, θ has %d", off, len(theta)))
	}
	return a
}

// Reference activations, written from their definitions.
var (
	refReLU = func(z float64) float64 { return math.Max(z, 0) }
	refID   = func(z float64) float64 { return z }
	refQuad = func(z float64) float64 { return z * z }
	refTanh = math.Tanh
	refSoft = func(z float64) float64 { return math.Log(1 + math.Exp(z)) }
)

func refLeaky(alpha float64) func(float64) float64 {
	return func(z float64) float64 {
		if z < 0 {
			return alpha * z
		}
		return z
	}
}

func refPow(k float64) func(float64) float64 {
	return func(z float64) float64 { return math.Pow(math.Max(z, 0), k) }
}

// refCases pairs specs with hand-written reference networks.
var refCases = []struct {
	spec string
	in   int
	ref  refNet
}{
	{"linear", 5, refNet{1, []refOp{dense(5, 1)}}},
	{"linear/3+bias", 5, refNet{1, []refOp{denseB(5, 3)}}},
	{"deeplinear:3", 3, refNet{1, []refOp{dense(3, 3), act(refID), dense(3, 3), act(refID), dense(3, 1)}}},
	{"mlp:relu:3x6", 4, refNet{1, []refOp{dense(4, 6), act(refReLU), dense(6, 6), act(refReLU), dense(6, 1)}}},
	{"mlp:lrelu0.2:2x5/3", 4, refNet{1, []refOp{dense(4, 5), act(refLeaky(0.2)), dense(5, 3)}}},
	{"mlp:relu2:3x4", 3, refNet{1, []refOp{dense(3, 4), act(refPow(2)), dense(4, 4), act(refPow(2)), dense(4, 1)}}},
	{"mlp:relu3:3x4", 3, refNet{1, []refOp{dense(3, 4), act(refPow(3)), dense(4, 4), act(refPow(3)), dense(4, 1)}}},
	{"mlp:quad:2x5", 3, refNet{1, []refOp{dense(3, 5), act(refQuad), dense(5, 1)}}},
	{"mlp:tanh:3x5/2", 3, refNet{1, []refOp{dense(3, 5), act(refTanh), dense(5, 5), act(refTanh), dense(5, 2)}}},
	{"mlp:softplus:2x5", 3, refNet{1, []refOp{dense(3, 5), act(refSoft), dense(5, 1)}}},
	{"mlp:relu:5-3+bias", 4, refNet{1, []refOp{denseB(4, 5), act(refReLU), denseB(5, 3), act(refReLU), denseB(3, 1)}}},
	{"mlp:relu:3x4+bias@2", 3, refNet{1, []refOp{dense(3, 4), act(refReLU), denseB(4, 4), act(refReLU), dense(4, 1)}}},
	// 6 positions → 5, flatten 15.
	{"cnn:relu:3c2", 6, refNet{1, []refOp{conv(3, 2, 1), act(refReLU), dense(15, 1)}}},
	// 8 → 7 positions, max3 → 2 (the 7th position is dropped), flatten 4.
	{"cnn:relu:2c2-max3", 8, refNet{1, []refOp{conv(2, 2, 1), act(refReLU), maxPool(3), dense(4, 1)}}},
	// 9 → 8, avg3 → 2 (2 positions dropped), flatten 6, dense 5.
	{"cnn:quad:3c2-avg3:5", 9, refNet{1, []refOp{conv(3, 2, 1), act(refQuad), avgPool(3), dense(6, 5), act(refQuad), dense(5, 1)}}},
	// 9 positions × 3 channels, stride 2: (9−3)/2+1 = 4 positions, flatten 16.
	{"cnn:lrelu0.3:4c3s2@3", 27, refNet{3, []refOp{conv(4, 3, 2), act(refLeaky(0.3)), dense(16, 1)}}},
	// 7 × 2 → 6, max2 → 3, flatten 6, dense 3.
	{"cnn:relu3:2c2-max2:3@2", 14, refNet{2, []refOp{conv(2, 2, 1), act(refPow(3)), maxPool(2), dense(6, 3), act(refPow(3)), dense(3, 1)}}},
	// 5 → 5, avg2 → 2, flatten 4.
	{"cnn:id:2c1-avg2", 5, refNet{1, []refOp{conv(2, 1, 1), act(refID), avgPool(2), dense(4, 1)}}},
	// 15 × 2, stride 2: 7 positions, max2 → 3 (1 dropped); 3c2: 2, avg2 → 1;
	// flatten 3, dense 4, output 2. Bias everywhere.
	{"cnn:relu:2c3s2-max2,3c2-avg2:4@2/2+bias", 30, refNet{2, []refOp{
		convB(2, 3, 2), act(refReLU), maxPool(2), convB(3, 2, 1), act(refReLU), avgPool(2),
		denseB(3, 4), act(refReLU), denseB(4, 2)}}},
	// 10 positions × 2 → 8; stride 2: (8−3)/2+1 = 3 (position 7 unused),
	// flatten 6. The strided conv's input gradient feeds the first conv.
	{"cnn:lrelu0.1:3c3,2c3s2@2", 20, refNet{2, []refOp{conv(3, 3, 1), act(refLeaky(0.1)), conv(2, 3, 2), act(refLeaky(0.1)), dense(6, 1)}}},
	{"cnn:tanh:2c2s3+bias@1", 7, refNet{1, []refOp{convB(2, 2, 3), act(refTanh), dense(4, 1)}}},
}

// randVec returns n standard normal numbers.
func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

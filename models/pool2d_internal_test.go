package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxWindow2: the 2×2 fast path gives the values and argmaxes of the
// general loop, bit for bit, ties included (inputs drawn from {0, 1, 2}, as
// a ReLU's zeros make ties common), and with −0 and NaN.
func TestMaxWindow2(t *testing.T) {
	l := &pool2d{h: 12, w: 8, ch: 5, size: 2, kind: MaxPool}
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, l.h*l.w*l.ch)
	for i := range x {
		x[i] = []float64{0, 1, 2, math.Copysign(0, -1), math.NaN()}[r.IntN(5)]
	}
	y1, a1 := make([]float64, l.ch), make([]float64, l.ch)
	y2, a2 := make([]float64, l.ch), make([]float64, l.ch)
	for oh := 0; oh < l.ho(); oh++ {
		for ow := 0; ow < l.wo(); ow++ {
			l.maxWindow2(x, oh, ow, y1, a1)
			l.maxWindowAny(x, oh, ow, y2, a2)
			for c := range y1 {
				if math.Float64bits(y1[c]) != math.Float64bits(y2[c]) || a1[c] != a2[c] {
					t.Fatalf("window (%d,%d) channel %d: fast %v at %v, general %v at %v", oh, ow, c, y1[c], a1[c], y2[c], a2[c])
				}
			}
		}
	}
}

// TestBackwardMax2: the one-pass backward of 2×2 max pooling writes what
// clearing and scattering write, bit for bit (with ties, −0 and NaN among
// the inputs, and negative, zero and infinite output gradients).
func TestBackwardMax2(t *testing.T) {
	const n = 3
	l := &pool2d{h: 6, w: 4, ch: 3, size: 2, kind: MaxPool}
	in0, out0 := l.dims()
	r := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, n*in0)
	for i := range x {
		x[i] = []float64{0, 1, 2, math.Copysign(0, -1), math.NaN()}[r.IntN(5)]
	}
	y, aux := make([]float64, n*out0), make([]float64, n*out0)
	l.forward(nil, x, y, aux, nil, n)
	gOut := make([]float64, n*out0)
	for i := range gOut {
		gOut[i] = []float64{-1.5, 0, 2, math.Inf(1), math.Copysign(0, -1)}[r.IntN(5)]
	}
	fast := make([]float64, n*in0)
	for i := range fast {
		fast[i] = 7 // stale values must be overwritten
	}
	l.backwardMax2(gOut, fast, aux, n)
	want := make([]float64, n*in0)
	for i := 0; i < n; i++ {
		for o := 0; o < out0; o++ {
			pos, c := o/l.ch, o%l.ch
			oh, ow := pos/l.wo(), pos%l.wo()
			j := int(aux[i*out0+o])
			want[i*in0+((2*oh+j/2)*l.w+2*ow+j%2)*l.ch+c] = gOut[i*out0+o]
		}
	}
	for i := range want {
		if math.Float64bits(fast[i]) != math.Float64bits(want[i]) {
			t.Fatalf("gIn[%d] = %v, want %v", i, fast[i], want[i])
		}
	}
}

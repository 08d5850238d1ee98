package models

import (
	"math/rand/v2"
	"testing"
)

// TestMaxWindow2: the 2×2 fast path gives the values and argmaxes of the
// general loop, ties included (inputs drawn from {0, 1, 2}, as a ReLU's
// zeros make ties common).
func TestMaxWindow2(t *testing.T) {
	l := &pool2d{h: 6, w: 4, ch: 5, size: 2, kind: MaxPool}
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, l.h*l.w*l.ch)
	for i := range x {
		x[i] = float64(r.IntN(3))
	}
	y1, a1 := make([]float64, l.ch), make([]float64, l.ch)
	y2, a2 := make([]float64, l.ch), make([]float64, l.ch)
	for oh := 0; oh < l.ho(); oh++ {
		for ow := 0; ow < l.wo(); ow++ {
			l.maxWindow2(x, oh, ow, y1, a1)
			l.maxWindowAny(x, oh, ow, y2, a2)
			for c := range y1 {
				if y1[c] != y2[c] || a1[c] != a2[c] {
					t.Fatalf("window (%d,%d) channel %d: fast %v at %v, general %v at %v", oh, ow, c, y1[c], a1[c], y2[c], a2[c])
				}
			}
		}
	}
}

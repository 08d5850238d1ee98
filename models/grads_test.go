package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGraderGradsSameBits: Grads (one forward, K backward passes) gives
// every output's value and gradient bit for bit as K calls of Grad (a
// forward each), on the model families with several outputs or kinks.
func TestGraderGradsSameBits(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
	}{
		{"mlp:relu:3x5", 4},
		{"mlp:relu:3x5/3", 4},
		{"mlp:relu:3x5+bias/4", 4},
		{"cnn2d:8x8x1:relu:3c3-max2,4c3:6:5+bias@1", 64},
		{"cnn2d:8x8x1:relu:3c3-valid-max2:6:3", 64},
		{"cnn:relu:4c3-max2,4c3-avg2:8/3", 12},
		{"cnn:quad:2c3-max2/3", 12},
		{"cnn:lrelu0.5:2c3@3+bias", 12},
		{"mlp:lrelu0.1:2x4", 4},
		{"deeplinear:3x5", 4},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := Parse(tc.spec, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(9, 9))
			theta := make([]float64, m.NumParams())
			m.Init(r, theta)
			x := make([]float64, tc.in)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			want := NewGrader(m)
			one := make([]float64, m.NumParams())
			n := 0
			NewGrader(m).Grads(theta, x, make([]float64, m.NumParams()), func(k int, phi float64, grad []float64) {
				n++
				if p := want.Grad(theta, x, k, one); math.Float64bits(p) != math.Float64bits(phi) {
					t.Errorf("output %d: Φ %v, Grad gives %v", k, phi, p)
				}
				for i := range grad {
					if math.Float64bits(grad[i]) != math.Float64bits(one[i]) {
						t.Fatalf("output %d, parameter %d: %v, Grad gives %v", k, i, grad[i], one[i])
					}
				}
			})
			if n != m.Out() {
				t.Errorf("%d outputs visited, model has %d", n, m.Out())
			}
		})
	}
}

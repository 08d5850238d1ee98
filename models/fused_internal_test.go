package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFusedDenseReLUBitIdentical: the fused dense+ReLU forward and backward
// passes give the same bits as the layers run one by one, and the fusion
// is found where it applies.
func TestFusedDenseReLUBitIdentical(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		in, n int
		fused int // dense+ReLU pairs fused in Forward
	}{
		{"mlp:relu:3x8", 5, 7, 2},
		{"mlp:relu:4x37", 13, 40, 3},
		{"mlp:relu:2x16", 3, 1, 1},
		{"mlp:relu:3x8+bias@2", 5, 9, 1},
		{"mlp:relu:3x8/3", 5, 9, 2},
		{"cnn:relu:4c3-max2:8", 12, 6, 1},
		{"mlp:lrelu:3x8", 5, 7, 0},
	} {
		fused, err := Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		plain, err := Parse(tc.spec, tc.in)
		require.NoError(t, err)
		count := 0
		for i := range plain.fused {
			if fused.fused[i] {
				count++
			}
			plain.fused[i], plain.fusedBack[i] = false, false
		}
		require.Equal(t, tc.fused, count, tc.spec)
		r := rand.New(rand.NewPCG(1, 9))
		theta := make([]float64, fused.NumParams())
		fused.Init(r, theta)
		x := make([]float64, tc.n*tc.in)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		gOut := make([]float64, tc.n*fused.Out())
		for i := range gOut {
			gOut[i] = r.NormFloat64()
		}
		var outs, grads [2][]float64
		for k, net := range []*Network{fused, plain} {
			ws := net.NewWorkspace(tc.n)
			outs[k] = append([]float64(nil), net.Forward(ws, theta, x, tc.n)...)
			grads[k] = make([]float64, net.NumParams())
			net.Backward(ws, theta, gOut, grads[k])
		}
		for k, pair := range [][2][]float64{{outs[0], outs[1]}, {grads[0], grads[1]}} {
			for i := range pair[0] {
				if math.Float64bits(pair[0][i]) != math.Float64bits(pair[1][i]) {
					t.Fatalf("%s: %s[%d] fused %v, unfused %v", tc.spec, []string{"output", "gradient"}[k], i, pair[0][i], pair[1][i])
				}
			}
		}
	}
}

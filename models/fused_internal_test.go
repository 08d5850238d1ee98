package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFusedDenseReLUBitIdentical: the fused dense+ReLU forward and backward
// passes (and conv+ReLU+2×2 max pooling, poolOut) give the same bits as
// the layers run one by one, and the fusion is found where it applies.
func TestFusedDenseReLUBitIdentical(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		in, n int
		fused int // dense+ReLU pairs fused in Forward
		pools int // conv+ReLU+max pooling stages fused
	}{
		{"mlp:relu:3x8", 5, 7, 2, 0},
		{"mlp:relu:4x37", 13, 40, 3, 0},
		{"mlp:relu:2x16", 3, 1, 1, 0},
		{"mlp:relu:3x8+bias@2", 5, 9, 1, 0},
		{"mlp:relu:3x8/3", 5, 9, 2, 0},
		{"cnn:relu:4c3-max2:8", 12, 6, 1, 0},
		{"mlp:lrelu:3x8", 5, 7, 0, 0},
		{"cnn2d:8x8x2:relu:4c3-max2,3c3-max2:5:3+bias", 128, 4, 2, 2},
		{"cnn2d:8x8x2:relu:4c3-max2,3c3-max2:5:3+bias@1", 128, 3, 3, 2},
		{"cnn2d:8x6x2:relu:4c3-max2,3c3-max2:5:3", 96, 3, 3, 1},
		{"cnn2d:10x6x1:relu:1c3-max2,3c2-max3:5:3", 60, 3, 3, 1},
		{"cnn2d:8x8x1:relu:2c3s2-max2:4:2", 64, 2, 2, 1},
		{"cnn2d:8x8x1:lrelu:2c3-max2:4:2", 64, 2, 0, 0},
	} {
		fused, err := Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		plain, err := Parse(tc.spec, tc.in)
		require.NoError(t, err)
		count, pools := 0, 0
		for i := range plain.fused {
			if fused.fused[i] {
				count++
			}
			if fused.fusedPool[i] {
				pools++
			}
			plain.fused[i], plain.fusedBack[i], plain.fusedPool[i] = false, false, false
		}
		require.Equal(t, tc.fused, count, tc.spec)
		require.Equal(t, tc.pools, pools, tc.spec)
		r := rand.New(rand.NewPCG(1, 9))
		theta := make([]float64, fused.NumParams())
		fused.Init(r, theta)
		x := make([]float64, tc.n*tc.in)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		if strings.HasPrefix(tc.spec, "cnn2d") {
			// NaN and ∞ inputs: the conv outputs they reach are NaN or
			// ±∞, which the ReLU and the pooling must pass on alike.
			x[3], x[tc.in+5], x[2*tc.in-1] = math.NaN(), math.Inf(1), math.Inf(-1)
		}
		gOut := make([]float64, tc.n*fused.Out())
		for i := range gOut {
			gOut[i] = r.NormFloat64()
		}
		var outs, grads [2][]float64
		var pats [2][]byte
		for k, net := range []*Network{fused, plain} {
			ws := net.NewWorkspace(tc.n)
			// The kink patterns of a batch of n, then of n−1 on the same
			// workspace (whose bits past the batch must not leak in).
			for _, m := range []int{tc.n, tc.n - 1} {
				net.Forward(ws, theta, x, m)
				pats[k] = net.Pattern(ws, pats[k])
			}
			outs[k] = append([]float64(nil), net.Forward(ws, theta, x, tc.n)...)
			grads[k] = make([]float64, net.NumParams())
			net.Backward(ws, theta, gOut, grads[k])
		}
		require.Equal(t, pats[1], pats[0], "%s: kink patterns", tc.spec)
		for k, pair := range [][2][]float64{{outs[0], outs[1]}, {grads[0], grads[1]}} {
			for i := range pair[0] {
				if math.Float64bits(pair[0][i]) != math.Float64bits(pair[1][i]) {
					t.Fatalf("%s: %s[%d] fused %v, unfused %v", tc.spec, []string{"output", "gradient"}[k], i, pair[0][i], pair[1][i])
				}
			}
		}
	}
}

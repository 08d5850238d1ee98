package train

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// TestBlockedEvaluation: an objective evaluated in blocks of samples gives
// the outputs, log-losses and margins of the one-block evaluation, its
// gradient to the rounding of the blocks' partial sums, the same bits on a
// second objective, and the same after a Reweight or a Pattern in between
// (which run forward passes of their own on the block workspace).
func TestBlockedEvaluation(t *testing.T) {
	cases := []struct {
		name, spec string
		loss       losses.Loss
		n, d, size int
	}{
		{"mlp logistic, blocks of 4 of 11", "mlp:relu:8", losses.NewBinary(losses.Logistic{}), 11, 5, 4},
		{"mlp logistic, blocks of 1", "mlp:relu:8", losses.NewBinary(losses.Logistic{}), 6, 5, 1},
		{"cnn ce, blocks of 3 of 7", "cnn2d:6x6x1:relu:2c3-max2:4:3+bias@1", losses.CrossEntropy{}, 7, 36, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := models.Parse(c.spec, c.d)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 2))
			data := &dataset.Dataset{N: c.n, D: c.d, X: make([]float64, c.n*c.d), Y: make([]float64, c.n)}
			for i := range data.X {
				data.X[i] = r.NormFloat64()
			}
			for i := range data.Y {
				if c.loss.Kind() == losses.Binary {
					data.Y[i] = float64(2*(i%2) - 1)
				} else {
					data.Y[i] = float64(i % m.Out())
				}
			}
			theta := make([]float64, m.NumParams())
			m.Init(r, theta)
			whole, err := NewObjective(m, c.loss, data)
			require.NoError(t, err)
			require.Nil(t, whole.blk.scores, "a small run is one block")
			want, err := whole.Evaluate(theta, true)
			require.NoError(t, err)
			blocked := func() *Objective {
				o, err := NewObjective(m, c.loss, data)
				require.NoError(t, err)
				o.ws = o.inBlocks(c.size)
				return o
			}
			a, b := blocked(), blocked()
			ga, err := a.Evaluate(theta, true)
			require.NoError(t, err)
			assert.Equal(t, want.Scores, ga.Scores)
			assert.Equal(t, want.LogSample, ga.LogSample)
			assert.Equal(t, want.Margins, ga.Margins)
			assert.Equal(t, want.LogLoss, ga.LogLoss)
			// The blocks' partial sums round differently: to a few ulps of
			// the sum of the terms' magnitudes, bounded by N·max‖·‖.
			assert.True(t, floats.EqualApprox(want.Dir, ga.Dir, 1e-12), "blocked gradient %v, one block %v", ga.Dir[:4], want.Dir[:4])
			pa := a.Pattern(nil)
			gb, err := b.Evaluate(theta, true)
			require.NoError(t, err)
			assert.Equal(t, ga.Dir, gb.Dir, "two blocked objectives, the same bits")
			pb := b.Pattern(nil)
			assert.Equal(t, pa, pb)
			// The blocked pattern is the blocks' patterns one after the
			// other: each block's as a one-block objective on its samples.
			var perBlock []byte
			for lo := 0; lo < c.n; lo += c.size {
				hi := min(lo+c.size, c.n)
				sub := &dataset.Dataset{N: hi - lo, D: c.d, X: data.X[lo*c.d : hi*c.d], Y: data.Y[lo:hi]}
				o, err := NewObjective(m, c.loss, sub)
				require.NoError(t, err)
				_, err = o.Evaluate(theta, false)
				require.NoError(t, err)
				perBlock = o.Pattern(perBlock)
			}
			assert.Equal(t, perBlock, pa)
			// A Reweight after the Pattern (forward passes on the block
			// workspace) takes its gradient at the same θ.
			w := make([]float64, c.n)
			for i := range w {
				w[i] = 1 + float64(i%3)
			}
			rb, err := b.Reweight(w, true)
			require.NoError(t, err)
			dirB := append([]float64(nil), rb.Dir...)
			fresh := blocked()
			require.NoError(t, fresh.SetWeights(w))
			rf, err := fresh.Evaluate(theta, true)
			require.NoError(t, err)
			assert.Equal(t, rf.Dir, dirB, "Reweight after Pattern, the same bits as a fresh weighted evaluation")
		})
	}
}

// TestBlockedWorkspaceSize: LL's full-width CNN on 1 000 images is
// evaluated in blocks whose workspace fits in blockFloats; the engine's
// benchmark W5 (the same CNN on 100 images) and small runs are one block.
func TestBlockedWorkspaceSize(t *testing.T) {
	m, err := models.Parse("cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1", 784)
	require.NoError(t, err)
	per := workspaceFloats(m, 1)
	require.Positive(t, per)
	assert.Equal(t, 2*per, workspaceFloats(m, 2), "a workspace is linear in its samples")
	b := blockSize(per, 1000)
	assert.Less(t, b, 1000)
	assert.LessOrEqual(t, b*per, blockFloats)
	assert.Greater(t, (b+1)*per, blockFloats, "as many samples as fit")
	assert.Equal(t, 100, blockSize(per, 100), "W5 is one block")
	assert.Equal(t, 360, blockSize(200, 360), "a small run is one block")
	assert.Equal(t, 1, blockSize(blockFloats+1, 2), "at least one sample")
	assert.Equal(t, 5, blockSize(0, 5), "a workspace of unknown size is one block")
}

package train

import (
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
)

// blockFloats is the most float64s (2²⁵: 256 MB) the objective's model
// workspace may hold. A workspace for all N samples that would hold more
// (LL's CNN at full width on 1 000 images: 1.76 GB) is made for blocks of
// samples instead (152 images there), and the full-batch evaluation runs block by block: the
// memory of one block instead of N samples, for one more forward pass of
// every block but the last when the gradient is asked for.
// The bound sits above the engine's benchmark W5 (the same CNN on a batch
// of 100 images: 176 MB), which stays one block.
const blockFloats = 1 << 25

// blocks is the objective's blocked evaluation (nil slices: one block of
// all N samples, the model called once, as without blocks).
//
// The blocks are samples [0, size), [size, 2·size), … in order. Outputs,
// log-losses and margins are per sample, the same whatever the blocks; the
// gradient Σ_n ∇Φ_nᵀ gOut_n is summed block by block in a fixed order (the
// last block first, its forward pass still in the workspace, then the
// others from the last to the first), so it is the same bits whatever
// GOMAXPROCS, and differs from the one-block sum by the rounding of the
// blocks' partial sums only.
type blocks struct {
	size   int       // samples per block
	scores []float64 // N×Out: every block's outputs
	part   []float64 // one block's gradient, added to the total
	in     int       // the first sample of the block whose forward pass the workspace holds
}

// workspaceFloats returns the float64s a workspace of m for n samples holds,
// or 0 when the model does not say (it is then never evaluated in blocks).
func workspaceFloats(m models.Model, n int) int {
	if f, ok := m.NewWorkspace(n).(interface{ Floats() int }); ok {
		return f.Floats()
	}
	return 0
}

// newWorkspace returns the model workspace for all N samples, or, when that
// would hold more than blockFloats float64s, for one block (setting o.blk).
func (o *Objective) newWorkspace() models.Workspace {
	n := o.Data.N
	if b := blockSize(workspaceFloats(o.Model, 1), n); b < n {
		return o.inBlocks(b)
	}
	return o.Model.NewWorkspace(n)
}

// blockSize returns the samples per block for n samples whose workspace
// holds perSample float64s each: n when they fit in blockFloats (or the
// size is not known: 0), else as many as fit, at least 1.
func blockSize(perSample, n int) int {
	if perSample*n <= blockFloats {
		return n
	}
	return max(1, blockFloats/perSample)
}

// inBlocks makes the objective evaluate in blocks of size samples and
// returns the workspace for one block.
func (o *Objective) inBlocks(size int) models.Workspace {
	o.blk = blocks{size: size, scores: make([]float64, o.Data.N*o.Model.Out()), part: make([]float64, o.Model.NumParams())}
	o.cacheOK = false
	return o.Model.NewWorkspace(size)
}

// forward returns the model's outputs at θ on every sample, block by block
// when the objective is blocked.
func (o *Objective) forward(theta []float64) []float64 {
	d := o.Data
	if o.blk.scores == nil {
		return o.Model.Forward(o.ws, theta, d.X, d.N)
	}
	k := o.Model.Out()
	for lo := 0; lo < d.N; lo += o.blk.size {
		hi := min(lo+o.blk.size, d.N)
		copy(o.blk.scores[lo*k:hi*k], o.Model.Forward(o.ws, theta, d.X[lo*d.D:hi*d.D], hi-lo))
		o.blk.in = lo
	}
	return o.blk.scores
}

// backward writes Σ_n ∇Φ(θ; x_n)ᵀ gOut_n into grad, at the θ of the last
// forward (its blocks recomputed but the one the workspace holds, when that
// is the last).
func (o *Objective) backward(theta, grad []float64) {
	if o.blk.scores == nil {
		o.Model.Backward(o.ws, theta, o.gOut, grad)
		return
	}
	d, k, s := o.Data, o.Model.Out(), o.blk.size
	last := (d.N - 1) / s * s
	if o.blk.in != last {
		o.Model.Forward(o.ws, theta, d.X[last*d.D:], d.N-last)
	}
	o.Model.Backward(o.ws, theta, o.gOut[last*k:], grad)
	for lo := last - s; lo >= 0; lo -= s {
		o.Model.Forward(o.ws, theta, d.X[lo*d.D:(lo+s)*d.D], s)
		o.Model.Backward(o.ws, theta, o.gOut[lo*k:(lo+s)*k], o.blk.part)
		floats.Add(grad, o.blk.part)
	}
	o.blk.in = 0
}

// modelPattern appends the model's kink pattern at the θ of the last
// forward: from the workspace, or block by block (each block's pattern
// after the previous one's) when the objective is blocked.
func (o *Objective) modelPattern(k models.Kinked, dst []byte) []byte {
	if o.blk.scores == nil {
		return k.Pattern(o.ws, dst)
	}
	d := o.Data
	for lo := 0; lo < d.N; lo += o.blk.size {
		hi := min(lo+o.blk.size, d.N)
		o.Model.Forward(o.ws, o.lastθ(), d.X[lo*d.D:hi*d.D], hi-lo)
		o.blk.in = lo
		dst = k.Pattern(o.ws, dst)
	}
	return dst
}

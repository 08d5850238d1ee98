package models

import "github.com/implicitbias/implicitbias/internal/linalg"

// poolOut is a 2×2 max pooling of even sides (pool2d.fusesReLU) run by the
// conv layer two layers before it, with a ReLU between them, block of
// samples by block (Network.fusedPool): its forward pass reads each block
// of the conv layer's output while it is in cache, and its backward pass
// (with the ReLU's) writes each block's gradient with respect to the conv
// layer's output into the conv layer's scratch, where the conv layer's
// backward pass reads it. Neither the gradient with respect to the conv
// layer's output nor that with respect to the ReLU's goes through memory
// (W5: 30 MB each, written and read back per step), and neither does the
// conv layer's (and ReLU's) output (30 MB, written and read back twice):
// the forward pass keeps only its ReLU pattern, one bit per value (what
// Network.Pattern needs of it).
//
// The backward pass needs no ReLU output: for p_j = relu(z_j) the ReLU's
// mask at the window's argmax is [p_arg > 0] = [y > 0], y the window's
// maximum, since ReLU's outputs are never NaN (it maps NaN to 0), so the
// maximum is one of them, bit for bit; and the other three inputs get +0
// whatever their mask (+0·1 = +0·0 = +0). So Unpool4ReLU with y as the
// four outputs gives the bits of the layers run one by one.
type poolOut struct {
	l      *pool2d   // nil: no pooling fused
	y, arg []float64 // the pooling's outputs and argmaxes (its aux)
	// kinks is the ReLU's pattern as actLayer.pattern appends it: bit i mod
	// 8 of byte ⌊i/8⌋ is [z_i > 0] for the ReLU's i-th input z_i of the
	// batch, then a last byte with the rest (0 when 8 divides their count).
	kinks []byte
}

// forward pools the nb samples of the conv layer's output block out
// (after the ReLU), samples s0…s0+nb−1 of the batch, and sets their bits
// of kinks.
func (po poolOut) forward(out []float64, s0, nb int) {
	if po.l == nil {
		return
	}
	i0, o0 := po.l.dims()
	po.l.forward(nil, out, po.y[s0*o0:], po.arg[s0*o0:], nil, nb)
	setKinks(po.kinks, s0*i0, out[:nb*i0])
}

// finish clears the bits of kinks past the n samples' (a batch of more
// samples may have set them).
func (po poolOut) finish(n int) {
	if po.l == nil {
		return
	}
	i0, _ := po.l.dims()
	po.kinks[n*i0/8] &= byte(1)<<(n*i0%8) - 1
}

// setKinks sets bit (off+i) mod 8 of byte ⌊(off+i)/8⌋ of k to [y_i > 0],
// for i < len(y): linalg.PositiveBits where they fill whole bytes.
func setKinks(k []byte, off int, y []float64) {
	i := 0
	for ; i < len(y) && (off+i)%8 != 0; i++ {
		setKink(k, off+i, y[i])
	}
	whole := (len(y) - i) / 8
	linalg.PositiveBits(k[(off+i)/8:][:whole], y[i:])
	for i += 8 * whole; i < len(y); i++ {
		setKink(k, off+i, y[i])
	}
}

// setKink sets bit i mod 8 of byte ⌊i/8⌋ of k to [v > 0].
func setKink(k []byte, i int, v float64) {
	s := uint(i % 8)
	var b byte
	if v > 0 {
		b = 1
	}
	k[i/8] = k[i/8]&^(1<<s) | b<<s
}

// backward writes into g the gradient with respect to the ReLU's input
// (the conv layer's output) of samples s0…s0+nb−1, from gOut, the
// gradient with respect to the pooling's outputs of the whole batch.
func (po poolOut) backward(gOut, g []float64, s0, nb int) {
	_, o0 := po.l.dims()
	o := s0 * o0
	y := po.y[o:]
	po.l.backwardReLU(y, gOut[o:], g, po.arg[o:], nb, true)
}

// isMaxPool2 reports whether l is a pooling poolOut runs: a 2×2 max
// pooling of even sides.
func isMaxPool2(l layer) bool {
	p, ok := l.(*pool2d)
	return ok && p.fusesReLU()
}

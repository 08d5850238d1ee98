package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// conv2d is a 2-D convolution of a height×width×Cin image, channels last,
// with Cout square K×K filters, stride S and zero padding (pt, pl) on top
// and left:
//
//	out[h][w][o] = Σ_{a,b<K} Σ_{c<Cin} W[o][(a·K + b)·Cin + c] · in[h·S+a−pt][w·S+b−pl][c]  (+ b[o]),
//
// with in = 0 outside the image. "valid" pads nothing; "same" gives
// ⌈height/S⌉×⌈width/S⌉ outputs and pads (TensorFlow's rule, which LL's
// experiments ran on) P = max((out−1)·S + K − in, 0) in each direction,
// ⌊P/2⌋ before and the rest after.
//
// im2col writes, for each output position, the K·K·Cin window as one row
// (row a of the window is a contiguous run of K·Cin inputs in channels-last
// layout), so one matrix product does a block of samples. The layer keeps
// no aux: the backward pass writes each block's im2col rows again from the
// input, in cache, instead of reading back the whole batch's (45 MB for
// W5's second layer) from memory.
type conv2d struct {
	h, w, cin       int
	cout, k, stride int
	same, bias      bool
	ho, wo          int // output height and width
	pt, pl          int // zero padding on top and left
	blockBytes      int // colBlockBytes (tests set less, to force blocks)
}

// newConv2d returns the layer, or an error if the filter does not fit a
// valid convolution.
func newConv2d(h, w, cin, cout, k, stride int, same, bias bool) (*conv2d, error) {
	if h < 1 || w < 1 || cin < 1 || cout < 1 || k < 1 || stride < 1 {
		return nil, fmt.Errorf("conv2d needs positive sizes, got %dx%dx%d → %d filters %dx%d stride %d", h, w, cin, cout, k, k, stride)
	}
	l := &conv2d{h: h, w: w, cin: cin, cout: cout, k: k, stride: stride, same: same, bias: bias, blockBytes: colBlockBytes}
	switch {
	case same:
		l.ho, l.wo = (h+stride-1)/stride, (w+stride-1)/stride
		l.pt = max((l.ho-1)*stride+k-h, 0) / 2
		l.pl = max((l.wo-1)*stride+k-w, 0) / 2
	case k > h || k > w:
		return nil, fmt.Errorf("conv2d: a valid %dx%d filter does not fit a %dx%d image", k, k, h, w)
	default:
		l.ho, l.wo = (h-k)/stride+1, (w-k)/stride+1
	}
	// The im2col matrix is the layer's memory per sample: bound it as
	// newNetwork bounds parameters, so a mistyped spec is an error.
	if float64(l.ho)*float64(l.wo)*float64(l.window()) > maxParams {
		return nil, fmt.Errorf("conv2d: %dx%d outputs × %d-tap windows exceed %d floats per sample", l.ho, l.wo, l.window(), maxParams)
	}
	return l, nil
}

func (l *conv2d) dims() (int, int) { return l.h * l.w * l.cin, l.ho * l.wo * l.cout }

// window is the length of an im2col row, K·K·Cin.
func (l *conv2d) window() int { return l.k * l.k * l.cin }

func (l *conv2d) nw() int { return l.cout * l.window() }

func (l *conv2d) numParams() int {
	if l.bias {
		return l.nw() + l.cout
	}
	return l.nw()
}

func (l *conv2d) auxSize() int { return 0 }

// colSize is the length of a sample's im2col rows.
func (l *conv2d) colSize() int { return l.ho * l.wo * l.window() }

// scratchSize holds, for n ≥ 1 samples' worth, Wᵀ, a block of im2col rows
// and (with a pooling fused, see poolOut) the block's output in the
// forward pass, a block of im2col rows, its ∂col and (with a pooling
// fused) the block's output gradient in the backward pass.
func (l *conv2d) scratchSize() int {
	return 2*max(l.ho*l.wo, l.cout)*l.window() + l.ho*l.wo*l.cout
}

// span returns, for output coordinate o along an axis of n inputs with
// padding p, the first input coordinate of the window and the range
// [lo, hi) of filter taps that fall inside the image.
func (l *conv2d) span(o, n, p int) (start, lo, hi int) {
	start = o*l.stride - p
	return start, max(0, -start), min(l.k, n-start)
}

// im2col writes the window of every output position of the n samples as a
// row of col, zeros where the window leaves the image.
func (l *conv2d) im2col(in, col []float64, n int) {
	in0, _ := l.dims()
	kc, win := l.k*l.cin, l.window()
	for i := 0; i < n; i++ {
		x := in[i*in0 : (i+1)*in0]
		for oh := 0; oh < l.ho; oh++ {
			r0, alo, ahi := l.span(oh, l.h, l.pt)
			for ow := 0; ow < l.wo; ow++ {
				c0, blo, bhi := l.span(ow, l.w, l.pl)
				row := col[((i*l.ho+oh)*l.wo+ow)*win:][:win]
				if alo == 0 && ahi == l.k && blo == 0 && bhi == l.k {
					// Inside the image: k runs of K·Cin inputs.
					s, ld := (r0*l.w+c0)*l.cin, l.w*l.cin
					for a := 0; a < l.k; a++ {
						copyRun(row[a*kc:(a+1)*kc], x[s+a*ld:s+a*ld+kc])
					}
					continue
				}
				for a := 0; a < l.k; a++ {
					dst := row[a*kc : (a+1)*kc]
					if a < alo || a >= ahi || blo >= bhi {
						clear(dst)
						continue
					}
					if blo > 0 {
						clear(dst[:blo*l.cin])
					}
					s := ((r0+a)*l.w + c0) * l.cin
					copyRun(dst[blo*l.cin:bhi*l.cin], x[s+blo*l.cin:s+bhi*l.cin])
					if bhi < l.k {
						clear(dst[bhi*l.cin:])
					}
				}
			}
		}
	}
}

// copyRun copies src into dst (as long): runs of a few floats (W5's first
// layer: 5, one row of a 5×5 single-channel window) in a loop, which costs
// less than the call copy makes for each.
func copyRun(dst, src []float64) {
	if len(src) >= 16 {
		copy(dst, src)
		return
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v
	}
}

// col2im adds every row of gcol back onto the inputs its window read: the
// adjoint of im2col.
func (l *conv2d) col2im(gcol, gIn []float64, n int) {
	in0, _ := l.dims()
	kc, win := l.k*l.cin, l.window()
	clear(gIn[:n*in0])
	for i := 0; i < n; i++ {
		g := gIn[i*in0 : (i+1)*in0]
		for oh := 0; oh < l.ho; oh++ {
			r0, alo, ahi := l.span(oh, l.h, l.pt)
			for ow := 0; ow < l.wo; ow++ {
				c0, blo, bhi := l.span(ow, l.w, l.pl)
				if blo >= bhi {
					continue
				}
				row := gcol[((i*l.ho+oh)*l.wo+ow)*win:][:win]
				for a := alo; a < ahi; a++ {
					s := ((r0+a)*l.w+c0)*l.cin + blo*l.cin
					linalg.Add(g[s:], row[a*kc+blo*l.cin:a*kc+bhi*l.cin])
				}
			}
		}
	}
}

// colBlockBytes is about how much of the im2col matrix (and of its
// gradient) one block of samples spans: half of a 1 MiB L2 cache (Zen 4's;
// Sapphire Rapids' is 2 MiB), so that a block written by im2col is still
// there when the product reads it, and a block of ∂col when col2im reads
// it. W5's second conv layer spans 451 KiB a sample, its first 157 KiB.
const colBlockBytes = 512 << 10

// blockSamples is how many samples the layer processes at a time.
func (l *conv2d) blockSamples() int {
	return max(1, l.blockBytes/(8*l.colSize()))
}

// forward runs im2col and out = col·Wᵀ block of samples by block: every
// row of the product is the same chain whatever the other rows, so the
// blocks give the bits of one product over the whole batch.
//
// Wᵀ is packed once (into scratch) for all blocks, and each block's
// product is col·(Wᵀ) by MulAB, the chains MulABt would compute after
// packing it again for every block; with one filter (Cout = 1) MulABt is
// a matrix times a vector, in its own lane order, and runs as such.
func (l *conv2d) forward(p, in, out, _, scratch []float64, n int) {
	l.forwardAct(p, in, out, scratch, n, false, poolOut{})
}

// forwardReLU is forward followed by a ReLU layer's forward pass, in place
// on out: on each block while it is in cache (in the product's epilogue
// when there is no bias), the values of forward then ReLU.
func (l *conv2d) forwardReLU(p, in, out, scratch []float64, n int) {
	l.forwardAct(p, in, out, scratch, n, true, poolOut{})
}

// forwardAct is forward, then ReLU when relu is set, then, when po.l is not
// nil, po.l's forward pass on each block while it is in cache; out is not
// written then: each block's output goes to scratch (see poolOut).
func (l *conv2d) forwardAct(p, in, out, scratch []float64, n int, relu bool, po poolOut) {
	win, in0, per := l.window(), l.h*l.w*l.cin, l.ho*l.wo
	w := p[:l.nw()]
	var wt []float64
	if l.cout > 1 {
		wt = scratch[:l.nw()]
		linalg.Transpose(wt, l.cout, w, win, l.cout, win)
	}
	cols := scratch[l.nw():]
	for s0, bs := 0, l.blockSamples(); s0 < n; s0 += bs {
		nb := min(bs, n-s0)
		rows := nb * per
		col := cols[:rows*win]
		var y []float64
		if po.l == nil {
			y = out[s0*per*l.cout : (s0*per+rows)*l.cout]
		} else {
			y = cols[rows*win:][:rows*l.cout]
		}
		l.im2col(in[s0*in0:], col, nb)
		switch {
		case wt == nil:
			linalg.MulABt(rows, l.cout, win, col, win, w, win, y, l.cout, false)
		case relu && !l.bias:
			linalg.MulABReLU(rows, l.cout, win, col, win, wt, l.cout, y, l.cout)
		default:
			linalg.MulAB(rows, l.cout, win, col, win, wt, l.cout, y, l.cout, false)
		}
		switch {
		case l.bias:
			linalg.AddRows(y, p[l.nw():], rows, relu)
		case relu && wt == nil:
			linalg.ReLU(y, nil, y)
		}
		po.forward(y, s0, nb)
	}
	po.finish(n)
}

// backward accumulates ∂W = gOutᵀ·col (Cout×window) block of samples by
// block — the product's chains continue from one block into the next
// (accumulate), so the sum over the batch is the same chain of the same
// terms as one product's — and the bias gradient likewise (the rows'
// sums continue across blocks), and, for each block, ∂col = gOut·W (rows ×
// window) and col2im, while ∂col is still in cache. Each block's im2col
// rows are written again from in (the forward pass's input), the same
// values the forward pass used.
func (l *conv2d) backward(p, in, gOut, gIn, gp, _, scratch []float64, n int) {
	l.backwardPool(p, in, gOut, gIn, gp, scratch, n, poolOut{})
}

// backwardPool is backward when po.l is nil; else gOut is the gradient
// with respect to po's outputs (po.y), and each block's gradient with
// respect to this layer's outputs is written first, in cache, by po.l's
// backward pass and that of the ReLU between them (see poolOut).
func (l *conv2d) backwardPool(p, in, gOut, gIn, gp, scratch []float64, n int, po poolOut) {
	win, in0, per := l.window(), l.h*l.w*l.cin, l.ho*l.wo
	bs := l.blockSamples()
	for s0 := 0; s0 < n; s0 += bs {
		nb := min(bs, n-s0)
		rows := nb * per
		var g []float64
		if po.l == nil {
			g = gOut[s0*per*l.cout : (s0*per+rows)*l.cout]
		} else {
			g = scratch[2*rows*win : 2*rows*win+rows*l.cout]
			po.backward(gOut, g, s0, nb)
		}
		col := scratch[:rows*win]
		l.im2col(in[s0*in0:], col, nb)
		linalg.MulAtB(l.cout, win, rows, g, l.cout, col, win, gp[:l.nw()], win, s0 > 0)
		if l.bias {
			linalg.SumRows(gp[l.nw():], g, rows, s0 > 0)
		}
		if gIn == nil {
			continue
		}
		gcol := scratch[rows*win : 2*rows*win]
		linalg.MulAB(rows, win, l.cout, g, l.cout, p[:l.nw()], win, gcol, win, false)
		l.col2im(gcol, gIn[s0*in0:], nb)
	}
}

func (l *conv2d) degree(d multiDegree, block int) multiDegree {
	return affineDegree(d, block, l.bias)
}

// initParams draws He-normal weights W ~ N(0, 2/(K·K·Cin)) (He et al. 2015,
// the initializer of LL App. J) and zero biases (LL App. J).
func (l *conv2d) initParams(r *rand.Rand, p []float64) {
	heNormal(r, p[:l.nw()], l.window())
	clear(p[l.nw():])
}

// heNormal fills w with N(0, 2/fanIn) draws.
func heNormal(r *rand.Rand, w []float64, fanIn int) {
	s := math.Sqrt(2 / float64(fanIn))
	for i := range w {
		w[i] = s * r.NormFloat64()
	}
}

func (l *conv2d) pattern(_, _ []float64, _ int, dst []byte) []byte { return dst }

func (l *conv2d) String() string {
	pad := "valid"
	if l.same {
		pad = "same"
	}
	s := fmt.Sprintf("conv2d(%dx%dx%d→%dx%dx%d, k=%d, s=%d, %s", l.h, l.w, l.cin, l.ho, l.wo, l.cout, l.k, l.stride, pad)
	if l.bias {
		s += ", bias"
	}
	return s + ")"
}

package linalg

import (
	"math"
	"math/bits"
)

// A kernelSet is one implementation of the micro-kernels. Every set gives
// the same bits: each kernel follows the summation order its generic
// version below spells out, with a fused multiply-add (math.FMA, one
// rounding) wherever the order says fma.
type kernelSet struct {
	name string
	// mr×nr is the tile the tile kernel computes.
	mr, nr int
	// masked reports that tile handles nr′ < nr columns itself (AVX-512
	// masks); otherwise the driver pads narrow edges.
	masked bool
	// fused reports that tile applies its epilogue; otherwise the driver
	// applies it to the tile afterwards (the same values).
	fused bool
	// tile computes tiles row tiles of C, each mr rows below the previous
	// (rows = mr when tiles > 1), in chain order (tileGeneric), then
	// applies the epilogue e when fused; only rows skip ≤ i < rows of a
	// tile are read from and written to C (and read from the mask).
	tile func(k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, rows, cols int, load bool, e epilogue, tiles, skip int)
	// packed, when not nil, is tile on a packed B, which the driver then
	// prepares (unitPacked): B's nr columns as k×nr (ldb = nr, zero
	// columns past the last); A in place or packed as panels of mr rows,
	// tile t's rows from a[t·astep:]; C has nr columns (the driver pads
	// narrower edges), tiles and rows as for tile, skip = 0. copyRows
	// copies rows rows of w = mr values at stride ld into rows×w (an A
	// panel); packB copies k rows of slivers·nr values at stride ld into
	// slivers k×nr slivers, sstride values apart (a block of B).
	packed   func(k int, a []float64, rsa, csa, astep int, b, c []float64, ldc, rows int, load bool, e epilogue, tiles int)
	copyRows func(dst, src []float64, ld, rows, w int)
	packB    func(dst, src []float64, ld, k, slivers, sstride int)
	// sumRows, when not nil, is SumRows on rows ≥ 1, cols ≥ 1 (else
	// sumRowsGeneric).
	sumRows func(dst, m []float64, rows, cols int, acc bool)
	// unitTiles bounds the row tiles of a unit of work (0: unitTiles).
	unitTiles int
	// wholeA reports that tile reads all mr rows of A whatever rows
	// says, so that a short last tile must be shifted up or padded.
	wholeA bool
	// row, when not nil, computes one row of C in chain order, up to
	// rowCols columns at a time (the m = 1 products).
	row     func(k int, a []float64, csa int, b []float64, ldb int, c []float64, cols int, load bool)
	rowCols int
	// dot computes rows dot products in lane order (dotGeneric).
	dot func(k int, x []float64, ldx int, y []float64, out []float64, inc, rows int, load bool)
	// relu and mul process a prefix of their slices whose length is a
	// multiple of vec (vec = 1: all of them); the driver does the rest.
	// reluOnly (ReLU without σ′), mulPos and add likewise, when not nil
	// (else the generic loops do all of it).
	relu     func(dst, dd, z []float64)
	reluOnly func(dst, z []float64)
	mul      func(dst, x, y []float64)
	mulPos   func(dst, x, m []float64)
	add      func(dst, x []float64)
	vec      int
	// max4 and unpool4, when not nil, are Max4 and Unpool4 on the whole
	// slices (else max4Generic and unpool4Generic).
	max4    func(y, arg, p0, p1, p2, p3 []float64)
	unpool4 func(q0, q1, q2, q3, g, arg []float64)
	// unpool4ReLU, when not nil, is Unpool4ReLU on the whole slices.
	unpool4ReLU func(q0, q1, q2, q3, g, arg, p0, p1, p2, p3 []float64)
	// addRows, when not nil, is AddRows on rows ≥ 1, cols ≥ 1.
	addRows func(m, b []float64, rows, cols int, relu bool)
	// posBits, when not nil, is PositiveBits on whole bytes.
	posBits func(dst []byte, y []float64)
	// vm names the assembly of Exp and Log (vmath.go), called directly
	// (not through a func value, so that callers' stack buffers stay on
	// the stack); 0: none.
	vm vmKind
}

// genericSet is the portable pure-Go implementation; it also defines the
// results every other set must reproduce.
var genericSet = &kernelSet{
	name: "generic", mr: 4, nr: 64, masked: true,
	tile: func(k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, rows, cols int, load bool, _ epilogue, tiles, skip int) {
		tileGeneric(k, a[skip*rsa:], rsa, csa, b, ldb, c[skip*ldc:], ldc, rows+(tiles-1)*4-skip, cols, load)
	},
	dot:  dotGeneric,
	relu: reluGeneric,
	mul:  mulGeneric,
	vec:  1,
}

// tileGeneric sets, for i < rows and j < cols,
//
//	acc = load ? C[i][j] : +0
//	for l = 0, 1, …, k−1:  acc = fma(A[i][l], B[l][j], acc)
//	C[i][j] = acc
//
// with A[i][l] = a[i·rsa + l·csa], B[l][j] = b[l·ldb + j] and
// C[i][j] = c[i·ldc + j]. This "chain order" (one fma chain per entry, l
// increasing) is the order of every product but the dot-shaped ones: it does
// not depend on how the work is tiled, blocked over l or split over threads.
func tileGeneric(k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, rows, cols int, load bool) {
	for i := 0; i < rows; i++ {
		ci := c[i*ldc : i*ldc+cols]
		if !load {
			clear(ci)
		}
		for l := 0; l < k; l++ {
			v := a[i*rsa+l*csa]
			bl := b[l*ldb : l*ldb+cols]
			for j, w := range bl {
				ci[j] = math.FMA(v, w, ci[j])
			}
		}
	}
}

// An epilogue is applied to a product's entries as they are stored: none,
// ReLU (c > 0 ? c : +0) or a mask (c·[M_ij > 0], a product by 1 or 0, with
// M_ij = m[i·ldm + j]). Fusing it into the product saves a pass over C; the
// values are those of the product followed by ReLU or Mul.
type epilogue struct {
	kind int
	m    []float64
	ldm  int
}

const (
	epiNone = iota
	epiReLU
	epiMask
	// epiStream is none, C stored by non-temporal stores where the kernel
	// has them (aligned rows): for a large C that is not read again soon.
	epiStream
)

// apply applies e to the rows×cols block of c (stride ldc) at row i0,
// column j0 of the product.
func (e epilogue) apply(c []float64, ldc, i0, j0, rows, cols int) {
	switch e.kind {
	// ReLU and MulPos run on the vector kernels of the set in use: their
	// bits are the generic ones on every set (bit operations, products by
	// 1 or 0).
	case epiReLU:
		for r := 0; r < rows; r++ {
			row := c[r*ldc : r*ldc+cols]
			ReLU(row, nil, row)
		}
	case epiMask:
		for r := 0; r < rows; r++ {
			row := c[r*ldc : r*ldc+cols]
			o := (i0+r)*e.ldm + j0
			MulPos(row, row, e.m[o:o+cols])
		}
	}
}

// dotGeneric sets out[r·inc] = (load ? out[r·inc] + s : s) for r < rows,
// where s = ⟨x_r, y⟩ over k entries, x_r = x[r·ldx:], in "lane order":
//
//	s_q = +0 (q = 0…7);  for l = 0, …, k−1:  s_{l mod 8} = fma(x_r[l], y[l], s_{l mod 8})
//	s = ((s_0 + s_4) + (s_2 + s_6)) + ((s_1 + s_5) + (s_3 + s_7))
//
// the order of an 8-wide vector loop and its horizontal sum.
func dotGeneric(k int, x []float64, ldx int, y []float64, out []float64, inc, rows int, load bool) {
	y = y[:k]
	for r := 0; r < rows; r++ {
		xr := x[r*ldx : r*ldx+k]
		var s [8]float64
		for l, v := range xr {
			s[l&7] = math.FMA(v, y[l], s[l&7])
		}
		t := ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
		if load {
			t += out[r*inc]
		}
		out[r*inc] = t
	}
}

// reluGeneric sets dst = z > 0 ? z : 0 and, when dd is not nil,
// dd = z > 0 ? 1 : 0, without a data-dependent branch: for the bits b of z,
// z > 0 exactly when 1 ≤ b ≤ bits(+Inf) (this excludes ±0, negatives and
// NaN, as z > 0 does), which one subtraction's borrow decides.
func reluGeneric(dst, dd, z []float64) {
	const inf, one = 0x7ff0000000000000, 0x3ff0000000000000
	dst = dst[:len(z)]
	if dd == nil {
		for i, v := range z {
			b := math.Float64bits(v)
			_, pos := bits.Sub64(b-1, inf, 0)
			dst[i] = math.Float64frombits(b & -pos)
		}
		return
	}
	dd = dd[:len(z)]
	for i, v := range z {
		b := math.Float64bits(v)
		_, pos := bits.Sub64(b-1, inf, 0)
		dst[i] = math.Float64frombits(b & -pos)
		dd[i] = math.Float64frombits(one & -pos)
	}
}

// mulPosGeneric sets dst = x·[m > 0] (as in reluGeneric), a product by 1
// or 0, without a data-dependent branch.
func mulPosGeneric(dst, x, m []float64) {
	const inf, one = 0x7ff0000000000000, 0x3ff0000000000000
	dst, m = dst[:len(x)], m[:len(x)]
	for i, v := range x {
		_, pos := bits.Sub64(math.Float64bits(m[i])-1, inf, 0)
		dst[i] = v * math.Float64frombits(one&-pos)
	}
}

// addGeneric sets dst += x.
func addGeneric(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] += v
	}
}

// mulGeneric sets dst = x ⊙ y.
func mulGeneric(dst, x, y []float64) {
	dst, y = dst[:len(x)], y[:len(x)]
	for i, v := range x {
		dst[i] = v * y[i]
	}
}

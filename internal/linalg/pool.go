package linalg

import (
	"math"
	"math/bits"
)

// Max4 sets, for each channel k < len(y), y[k] to the maximum of p0[k],
// p1[k], p2[k], p3[k] as Go's max(max(p0, p1), max(p2, p3)) takes it (NaN
// propagates, +0 is above −0) and arg[k] to the index of the first of them
// equal to it (3 when none is, for NaN), as a float64: the forward pass of
// a 2×2 max pooling window over channels-last inputs, without branches.
// All slices must be at least as long as y.
func Max4(y, arg, p0, p1, p2, p3 []float64) {
	ks := active()
	n := len(y)
	arg, p0, p1, p2, p3 = arg[:n], p0[:n], p1[:n], p2[:n], p3[:n]
	if ks.max4 != nil {
		ks.max4(y, arg, p0, p1, p2, p3)
		return
	}
	max4Generic(y, arg, p0, p1, p2, p3)
}

// Unpool4 is the backward pass of Max4: q_j[k] = g[k] where arg[k] = j,
// else +0, for j = 0…3 (each input of a window gets its output's gradient
// or zero). All slices must be at least as long as g.
func Unpool4(q0, q1, q2, q3, g, arg []float64) {
	ks := active()
	n := len(g)
	q0, q1, q2, q3, arg = q0[:n], q1[:n], q2[:n], q3[:n], arg[:n]
	if ks.unpool4 != nil {
		ks.unpool4(q0, q1, q2, q3, g, arg)
		return
	}
	unpool4Generic(q0, q1, q2, q3, g, arg)
}

// Unpool4ReLU is Unpool4 followed by MulPos(q_j, q_j, p_j) for j = 0…3:
// the backward passes of a 2×2 max pooling and of the ReLU before it, whose
// outputs p_j are the pooling's inputs ([p_j > 0] = [z_j > 0] for p_j =
// relu(z_j)), in one pass. All slices must be at least as long as g.
func Unpool4ReLU(q0, q1, q2, q3, g, arg, p0, p1, p2, p3 []float64) {
	ks := active()
	n := len(g)
	q0, q1, q2, q3, arg = q0[:n], q1[:n], q2[:n], q3[:n], arg[:n]
	p0, p1, p2, p3 = p0[:n], p1[:n], p2[:n], p3[:n]
	if ks.unpool4ReLU != nil {
		ks.unpool4ReLU(q0, q1, q2, q3, g, arg, p0, p1, p2, p3)
		return
	}
	unpool4ReLUGeneric(q0, q1, q2, q3, g, arg, p0, p1, p2, p3)
}

// unpool4ReLUGeneric is Unpool4ReLU in Go: the definition.
func unpool4ReLUGeneric(q0, q1, q2, q3, g, arg, p0, p1, p2, p3 []float64) {
	unpool4Generic(q0, q1, q2, q3, g, arg)
	mulPosGeneric(q0, q0, p0)
	mulPosGeneric(q1, q1, p1)
	mulPosGeneric(q2, q2, p2)
	mulPosGeneric(q3, q3, p3)
}

// max4Generic is Max4 in Go, the definition the other sets reproduce.
func max4Generic(y, arg, p0, p1, p2, p3 []float64) {
	for k, a := range p0 {
		b, c, d := p1[k], p2[k], p3[k]
		v := max(max(a, b), max(c, d))
		y[k], arg[k] = v, float64(ne(a, v)*(1+ne(b, v)*(1+ne(c, v))))
	}
}

// unpool4Generic is Unpool4 in Go.
func unpool4Generic(q0, q1, q2, q3, g, arg []float64) {
	for k, v := range g {
		j := arg[k]
		q0[k], q1[k] = keepIf(v, j, 0), keepIf(v, j, 1)
		q2[k], q3[k] = keepIf(v, j, 2), keepIf(v, j, 3)
	}
}

// ne is 1 if x ≠ y, else 0 (compiled without a branch).
func ne(x, y float64) int {
	if x != y {
		return 1
	}
	return 0
}

// keepIf returns v if j = k, else +0, by masking v's bits (no branch).
func keepIf(v, j, k float64) float64 {
	return math.Float64frombits(math.Float64bits(v) & -uint64(1-ne(j, k)))
}

// PositiveBits sets bit t of dst[q] to [y[8q + t] > 0] (false for NaN and
// ±0) for every q < len(dst): the kink pattern of a ReLU whose input (or
// output) is y, 8 values a byte. y must hold at least 8·len(dst) values.
func PositiveBits(dst []byte, y []float64) {
	ks := active()
	if ks.posBits != nil {
		ks.posBits(dst, y)
		return
	}
	positiveBitsGeneric(dst, y[:8*len(dst)])
}

// positiveBitsGeneric is PositiveBits in Go: v > 0 is v's bits minus one
// below those of +∞ (no branch).
func positiveBitsGeneric(dst []byte, y []float64) {
	for q := range dst {
		v := y[8*q : 8*q+8 : 8*q+8]
		dst[q] = positive(v[0]) | positive(v[1])<<1 | positive(v[2])<<2 | positive(v[3])<<3 |
			positive(v[4])<<4 | positive(v[5])<<5 | positive(v[6])<<6 | positive(v[7])<<7
	}
}

// positive is 1 if v > 0, else 0 (NaN: 0), without a branch.
func positive(v float64) byte {
	_, borrow := bits.Sub64(math.Float64bits(v)-1, 0x7ff0000000000000, 0)
	return byte(borrow)
}

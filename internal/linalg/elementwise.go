package linalg

// available lists the kernel sets this machine runs, fastest first; the
// last is genericSet.
var available = detect()

// cur is the set in use: the fastest available (tests switch it to compare
// the sets).
var cur = available[0]

func active() *kernelSet { return cur }

// Kernels names the kernel set in use: "avx512", "avx2" or "generic".
func Kernels() string { return cur.name }

// ReLU sets dst[i] = z[i] if z[i] > 0, else 0 and, when dd is not nil,
// dd[i] = 1 if z[i] > 0, else 0 (σ′(0) = 0; NaN maps to 0), without a
// data-dependent branch. dst and dd must be at least as long as z.
func ReLU(dst, dd, z []float64) {
	ks := active()
	n := len(z)
	dst = dst[:n]
	if dd == nil {
		reluGeneric(dst, nil, z)
		return
	}
	dd = dd[:n]
	v := n / ks.vec * ks.vec
	if v > 0 {
		ks.relu(dst[:v], dd[:v], z[:v])
	}
	reluGeneric(dst[v:], dd[v:], z[v:])
}

// Mul sets dst[i] = x[i]·y[i]; dst and y must be at least as long as x.
func Mul(dst, x, y []float64) {
	ks := active()
	n := len(x)
	dst, y = dst[:n], y[:n]
	v := n / ks.vec * ks.vec
	if v > 0 {
		ks.mul(dst[:v], x[:v], y[:v])
	}
	mulGeneric(dst[v:], x[v:], y[v:])
}

// MulPos sets dst[i] = x[i]·[m[i] > 0] (a product by 1 or 0: the backward
// pass of a ReLU whose input or output is m); dst and m must be at least as
// long as x.
func MulPos(dst, x, m []float64) {
	n := len(x)
	mulPosGeneric(dst[:n], x, m[:n])
}

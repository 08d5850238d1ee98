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
	v := n / ks.vec * ks.vec
	if dd == nil {
		if ks.reluOnly == nil {
			v = 0
		} else if v > 0 {
			ks.reluOnly(dst[:v], z[:v])
		}
		reluGeneric(dst[v:], nil, z[v:])
		return
	}
	dd = dd[:n]
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

// Add sets dst[i] += x[i] (each entry one addition: the same values as a
// plain loop); dst must be at least as long as x.
func Add(dst, x []float64) {
	ks := active()
	n := len(x)
	dst = dst[:n]
	v := 0
	if ks.add != nil {
		v = n / ks.vec * ks.vec
		if v > 0 {
			ks.add(dst[:v], x[:v])
		}
	}
	addGeneric(dst[v:], x[v:])
}

// MulPos sets dst[i] = x[i]·[m[i] > 0] (a product by 1 or 0: the backward
// pass of a ReLU whose input or output is m); dst and m must be at least as
// long as x.
func MulPos(dst, x, m []float64) {
	ks := active()
	n := len(x)
	dst, m = dst[:n], m[:n]
	v := 0
	if ks.mulPos != nil {
		v = n / ks.vec * ks.vec
		if v > 0 {
			ks.mulPos(dst[:v], x[:v], m[:v])
		}
	}
	mulPosGeneric(dst[v:], x[v:], m[v:])
}

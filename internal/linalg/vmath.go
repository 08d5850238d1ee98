package linalg

import "math"

// Batched elementary functions for the log-domain losses: one call per batch
// instead of one per sample, on the kernel set in use (AVX-512, AVX2 or pure
// Go). The pure-Go code of vmath_generic.go defines every result: the
// assembly kernels reproduce it bit for bit (TestVMathSets), so results do
// not depend on the machine or on GOMAXPROCS. The error bounds below are
// those TestVMathAccuracy checks against 256-bit references (bigref) over
// the whole float64 range and at the special points.

// vmKind names a set of vmath kernels.
type vmKind int

const (
	vmNone vmKind = iota
	vm256         // AVX2
	vm512         // AVX-512
)

// chunk is the stack buffer length of the functions that need scratch.
const chunk = 256

// Exp sets dst[i] = e^{x[i]} for every i < len(x); dst must be at least as
// long as x and may be x itself. The error is below 1 ulp (including
// subnormal results, where an ulp is 2⁻¹⁰⁷⁴), and Exp(±0) = 1 exactly.
//
// Special cases are those of math.Exp:
//
//	Exp(+Inf) = +Inf
//	Exp(-Inf) = 0
//	Exp(NaN) = NaN
//	Exp(x > 709.782712893384) = +Inf
//	Exp(x < -745.1332191019412) = 0
//
// Unlike math.Exp on amd64, it is finite up to the true overflow threshold
// (the largest float64 below log(MaxFloat64)).
func Exp(dst, x []float64) {
	ks := active()
	n := len(x)
	dst = dst[:n]
	if ks.vm == 0 {
		expGeneric(dst, x)
		return
	}
	vmRun(opExp, ks, dst, x)
}

// Log sets dst[i] = log x[i] for every i < len(x); dst must be at least as
// long as x and may be x itself. The error is below 1 ulp, subnormal x
// included, and Log(1) = 0 exactly.
//
// Special cases are those of math.Log:
//
//	Log(+Inf) = +Inf
//	Log(±0) = -Inf
//	Log(x < 0) = NaN
//	Log(NaN) = NaN
func Log(dst, x []float64) {
	ks := active()
	n := len(x)
	dst = dst[:n]
	if ks.vm == 0 {
		logGeneric(dst, x)
		return
	}
	vmRun(opLog, ks, dst, x)
}

// Log1p sets dst[i] = log(1 + x[i]) for every i < len(x); dst must be at
// least as long as x and may be x itself. It is Log(u) + (x − (u − 1))/u
// with u = 1 + x rounded: the quotient restores what the rounding of u lost.
// The error is below 2 ulp; for |x| < 2⁻⁵³ (subnormal x included) the
// result is x exactly.
//
// Special cases are those of math.Log1p:
//
//	Log1p(+Inf) = +Inf
//	Log1p(±0) = ±0
//	Log1p(-1) = -Inf
//	Log1p(x < -1) = NaN
//	Log1p(NaN) = NaN
func Log1p(dst, x []float64) {
	ks := active()
	n := len(x)
	dst = dst[:n]
	if ks.vm == 0 {
		log1pGeneric(dst, x)
		return
	}
	vmRun(opLog1p, ks, dst, x)
}

// vmOp names a batched function for vmRun.
type vmOp int

const (
	opExp vmOp = iota
	opLog
	opLog1p
	opTanh
)

// vmRun runs the kernel of op in set ks on x (len(dst) = len(x) = n) and
// its tail of n mod vec values without copying x through a buffer where it
// can: the kernels compute each lane from its own input alone, so the last
// vec values computed again (when n > vec and dst is not x) have the bits
// they had; in place, the last vec values go through a buffer first, and
// only the tail is copied back. (A switch, not a function value: slices of
// the callers' stack buffers must not escape.)
func vmRun(op vmOp, ks *kernelSet, dst, x []float64) {
	n, vec := len(x), ks.vec
	v := n / vec * vec
	switch {
	case v == n:
		vmCall(op, ks.vm, dst, x)
	case v == 0:
		var pad [8]float64 // the whole batch, through the same kernel
		copy(pad[:], x)
		vmCall(op, ks.vm, pad[:vec], pad[:vec])
		copy(dst, pad[:n])
	case &dst[0] != &x[0]:
		vmCall(op, ks.vm, dst[:v], x[:v])
		vmCall(op, ks.vm, dst[n-vec:], x[n-vec:])
	default:
		var pad [8]float64
		vmCall(op, ks.vm, pad[:vec], x[n-vec:])
		vmCall(op, ks.vm, dst[:v], x[:v])
		copy(dst[v:], pad[vec-(n-v):vec])
	}
}

// vmCall runs op's kernel of kind k on x (len(x) a multiple of its lanes).
func vmCall(op vmOp, k vmKind, dst, x []float64) {
	switch op {
	case opExp:
		vmExp(k, dst, x)
	case opLog:
		vmLog(k, dst, x)
	case opTanh:
		vmTanh(k, dst, x)
	default:
		vmLog1p(k, dst, x)
	}
}

// LogSumExp returns log Σ_i e^{x[i]} as m + Log1p(Σ_{i≠k} e^{x[i] − m}),
// m = x[k] = max_i x[i] (the first maximum), the sum taken in index order,
// so that the largest term is exactly 1 and a sum of tiny terms keeps its
// relative precision (LogSumExp([0, −40]) = e^{−40}). The error is below
// 2 ulp of the result plus 2 ulp of m (when the sum is not tiny beside 1,
// the rounding of m + log1p(s) dominates).
//
// Special cases are:
//
//	LogSumExp(x) = NaN if some x[i] is NaN
//	LogSumExp(x) = +Inf if some x[i] = +Inf and none is NaN
//	LogSumExp(x) = -Inf if len(x) = 0 or every x[i] = -Inf
func LogSumExp(x []float64) float64 {
	m := math.Inf(-1)
	k := -1
	for i, v := range x {
		if v != v {
			return v
		}
		if v > m {
			m, k = v, i
		}
	}
	if k < 0 || math.IsInf(m, 0) {
		return m
	}
	var buf [chunk]float64
	var s float64
	for lo := 0; lo < len(x); lo += chunk {
		hi := min(lo+chunk, len(x))
		b := buf[:hi-lo]
		for i, v := range x[lo:hi] {
			b[i] = v - m
		}
		Exp(b, b)
		if lo <= k && k < hi {
			b[k-lo] = 0 // the maximum's term is left out of s
		}
		for _, e := range b {
			s += e
		}
	}
	var l [1]float64
	l[0] = s
	Log1p(l[:], l[:])
	return m + l[0]
}

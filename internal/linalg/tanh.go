package linalg

import "math"

// Tanh sets dst[i] = tanh x[i] for every i < len(x); dst must be at least
// as long as x and may be x itself. It is math.Tanh's algorithm (Cephes'
// tanh) with the exponential batched: for |x| ≥ 0.625, tanh|x| = 1 −
// 2/(e^{2|x|} + 1) with e^{2|x|} from Exp (one vectorized call per chunk of
// 256 values, the kernels of the engine's losses); below, Cephes' rational
// x + x³P(x²)/Q(x²), term for term as math.Tanh computes it (so those
// values are math.Tanh's bits). The bits do not depend on the kernel set,
// since Exp's do not.
//
// The error is below 2 ulp, as TestVMathAccuracy checks against 256-bit
// references over the whole float64 range (the engine feeds it
// pre-activations of any size), every binade and around each branch point;
// it measures 1.14 ulp at worst (at x ≈ 0.634). Where the exponential is
// used, its error (below 1 ulp of e^{2|x|}, 2⁻⁵² relative) and the
// roundings of e^{2|x|} + 1 and of the quotient leave q = 2/(e^{2|x|} + 1)
// ≤ 0.445 within 4·2⁻⁵³ relative, 1.8 ulp of tanh|x| ≥ 0.555, and 1 − q
// rounds once more (2.3 ulp in the worst case of the analysis); Cephes
// states a peak relative error of 2.5·10⁻¹⁶ for the rational on |x| <
// 0.625.
//
// Special cases are those of math.Tanh:
//
//	Tanh(±0) = ±0
//	Tanh(±Inf) = ±1
//	Tanh(NaN) = NaN
func Tanh(dst, x []float64) {
	ks := active()
	dst = dst[:len(x)]
	if ks.vm == 0 {
		tanhGeneric(dst, x)
		return
	}
	vmRun(opTanh, ks, dst, x)
}

// tanhGeneric sets dst[i] = tanh x[i] (see Tanh): e^{2|x|} by expGeneric,
// a chunk at a time, then tanh1. The assembly kernels (tanh256, tanh512)
// perform the same operations lane by lane.
func tanhGeneric(dst, x []float64) {
	var buf [chunk]float64
	for lo := 0; lo < len(x); lo += chunk {
		hi := min(lo+chunk, len(x))
		s := buf[:hi-lo]
		for i, v := range x[lo:hi] {
			s[i] = 2 * math.Abs(v)
		}
		expGeneric(s, s)
		for i, v := range x[lo:hi] {
			dst[lo+i] = tanh1(v, s[i])
		}
	}
}

// Cephes' coefficients of tanh on |x| < 0.625 (math.Tanh's): tanh x =
// x + x·x²·P(x²)/Q(x²).
const (
	tanhP0 = -9.64399179425052238628e-1
	tanhP1 = -9.92877231001918586564e1
	tanhP2 = -1.61468768441708447952e3
	tanhQ0 = 1.12811678491632931402e2
	tanhQ1 = 2.23548839060100448583e3
	tanhQ2 = 4.84406305325125486048e3
)

// tanh1 returns tanh v given s = e^{2|v|} (see Tanh). The explicit
// float64 conversions keep every product rounded on its own (no fused
// multiply-add, whatever GOAMD64), as math.Tanh's are on amd64. Both
// branches copy v's sign: the rational's value has it already, but for
// v = −0 (math.Tanh returns v there).
func tanh1(v, s float64) float64 {
	if math.Abs(v) >= 0.625 {
		// s = +Inf (|v| > 354.9) gives 1 exactly, as it should.
		return math.Copysign(1-2/(s+1), v)
	}
	z := float64(v * v)
	p := float64(float64(float64(tanhP0*z)+tanhP1)*z) + tanhP2
	q := float64(float64(float64(float64(z+tanhQ0)*z)+tanhQ1)*z) + tanhQ2
	return math.Copysign(v+float64(float64(float64(v*z)*p)/q), v)
}

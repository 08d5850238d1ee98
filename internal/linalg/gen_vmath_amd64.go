//go:build ignore

// gen_vmath_amd64.go writes vmath_amd64.s, the AVX2 and AVX-512 versions of
// expGeneric, logGeneric, log1pGeneric and tanhGeneric (vmath_generic.go,
// tanh.go): the same operations in the
// same order, lane by lane, so that they give the same bits.
//
//	go run gen_vmath_amd64.go
package main

import (
	"fmt"
	"math"
	"os"
	"strings"
)

var out strings.Builder

func p(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }

// The constants, each replicated over 64 bytes (8 lanes), in table order.
var consts = []struct {
	name string
	bits uint64
}{}

func f(v float64) uint64 { return math.Float64bits(v) }

var offsets = map[string]int{}

func constant(name string, bits uint64) {
	offsets[name] = len(consts) * 64
	consts = append(consts, struct {
		name string
		bits uint64
	}{name, bits})
}

// c returns the memory operand of a constant.
func c(name string) string {
	o, ok := offsets[name]
	if !ok {
		panic(name)
	}
	return fmt.Sprintf("vmc<>+%d(SB)", o)
}

// width is a register file: Y (AVX2, 4 lanes) or Z (AVX-512, 8 lanes).
type width struct {
	r     string // register prefix
	lanes int
	suf   string // function name suffix
	and   string // bitwise and/or on the register file
	or    string
}

func (w width) R(i int) string { return fmt.Sprintf("%s%d", w.r, i) }

// cmp sets mask (a vector register for AVX2, K1 for AVX-512) to a pred b.
func (w width) cmp(pred int, b, a string, mask int) string {
	if w.r == "Z" {
		p("\tVCMPPD $%d, %s, %s, K%d", pred, b, a, mask)
		return fmt.Sprintf("K%d", mask)
	}
	p("\tVCMPPD $%d, %s, %s, %s", pred, b, a, w.R(mask))
	return w.R(mask)
}

// blend sets dst = mask ? src2 : src1 (dst may be src1).
func (w width) blend(mask, src2, src1, dst string) {
	if w.r == "Z" {
		p("\tVBLENDMPD %s, %s, %s, %s", src2, src1, mask, dst)
		return
	}
	p("\tVBLENDVPD %s, %s, %s, %s", mask, src2, src1, dst)
}

// select01 sets dst = mask ? src : +0.
func (w width) select01(mask, src, dst string) {
	if w.r == "Z" {
		p("\tVPXORQ %s, %s, %s", dst, dst, dst)
		p("\tVMOVUPD %s, %s, %s", src, mask, dst)
		return
	}
	p("\t%s %s, %s, %s", w.and, src, mask, dst)
}

func header(name string, w width, shift int) {
	p("")
	p("// func %s%s(dst, x *float64, n int): n a multiple of %d.", name, w.suf, w.lanes)
	p("TEXT ·%s%s(SB), NOSPLIT, $0-24", name, w.suf)
	p("\tMOVQ dst+0(FP), DI")
	p("\tMOVQ x+8(FP), SI")
	p("\tMOVQ n+16(FP), CX")
	p("\tSHRQ $%d, CX", shift)
	p("\tJZ %s%s_done", name, w.suf)
}

func footer(name string, w width) {
	p("\tADDQ $%d, SI", 8*w.lanes)
	p("\tADDQ $%d, DI", 8*w.lanes)
	p("\tDECQ CX")
	p("\tJNZ %s%s_loop", name, w.suf)
	p("%s%s_done:", name, w.suf)
	p("\tVZEROUPPER")
	p("\tRET")
}

func genExp(w width, shift int) {
	header("exp", w, shift)
	R := w.R
	p("\tVMOVUPD %s, %s", c("expHi"), R(14))
	p("exp%s_loop:", w.suf)
	p("\tVMOVUPD (SI), %s", R(0))
	expBody(w)
	p("\tVMOVUPD %s, (DI)", R(4))
	footer("exp", w)
}

// expBody computes expGeneric of register 0 into register 4, using
// registers 0 to 6, register 14 (expHi, loaded before the loop) and mask 7
// (K7 for AVX-512, register 7 for AVX2).
func expBody(w width) {
	R := w.R
	m := w.cmp(1, c("expZero"), R(0), 7) // x < expZero: the result is 0
	w.blend(m, c("zero"), R(0), R(0))    // and x = 0 computed instead
	p("\tVMINPD %s, %s, %s // x > 710: 710 (NaN stays)", R(0), R(14), R(0))
	p("\tVMOVUPD %s, %s", c("shifter"), R(1))
	p("\tVFMADD231PD %s, %s, %s // t = fma(x, log2e, shifter)", c("log2e"), R(0), R(1))
	p("\tVSUBPD %s, %s, %s // k", c("shifter"), R(1), R(2))
	p("\tVMOVAPD %s, %s", R(0), R(3))
	p("\tVFNMADD231PD %s, %s, %s // r = fma(−k, ln2Hi, x)", c("ln2Hi"), R(2), R(3))
	p("\tVFNMADD231PD %s, %s, %s // r = fma(−k, ln2Lo, r)", c("ln2Lo"), R(2), R(3))
	p("\tVMOVUPD %s, %s", c("exp0"), R(4))
	for i := 1; i < 12; i++ {
		p("\tVFMADD213PD %s, %s, %s", c(fmt.Sprintf("exp%d", i)), R(3), R(4))
	}
	p("\tVFMADD213PD %s, %s, %s", c("one"), R(3), R(4))
	p("\tVFMADD213PD %s, %s, %s // p", c("one"), R(3), R(4))
	p("\tVMOVUPD %s, %s", c("bias"), R(5))
	p("\tVFMADD231PD %s, %s, %s // h = k/2 + bias (exact product)", c("half"), R(2), R(5))
	p("\tVSUBPD %s, %s, %s // k1", c("bias"), R(5), R(6))
	p("\tVSUBPD %s, %s, %s // k2 = k − k1", R(6), R(2), R(6))
	p("\tVADDPD %s, %s, %s", c("bias"), R(6), R(6))
	p("\tVPSLLQ $52, %s, %s // 2^k1", R(5), R(5))
	p("\tVPSLLQ $52, %s, %s // 2^k2", R(6), R(6))
	p("\tVMULPD %s, %s, %s", R(5), R(4), R(4))
	p("\tVMULPD %s, %s, %s", R(6), R(4), R(4))
	w.blend(m, c("zero"), R(4), R(4))
}

// genTanh writes Tanh (tanhGeneric, tanh1): s = e^{2|x|} by expBody, then
// 1 − 2/(s + 1) where |x| ≥ 0.625 and Cephes' rational x + x·z·P(z)/Q(z),
// z = x², below, each operation rounded on its own (no fma, as tanh1 has
// it), the sign copied from x.
func genTanh(w width, shift int) {
	header("tanh", w, shift)
	R := w.R
	p("\tVMOVUPD %s, %s", c("expHi"), R(14))
	p("tanh%s_loop:", w.suf)
	p("\tVMOVUPD (SI), %s // x", R(15))
	p("\t%s %s, %s, %s // a = |x|", w.and, c("absMask"), R(15), R(8))
	p("\tVADDPD %s, %s, %s // 2a", R(8), R(8), R(0))
	expBody(w)
	p("\tVADDPD %s, %s, %s // s + 1", c("one"), R(4), R(10))
	p("\tVMULPD %s, %s, %s // z = x²", R(15), R(15), R(1))
	p("\tVMULPD %s, %s, %s", c("tanhP0"), R(1), R(2))
	p("\tVADDPD %s, %s, %s", c("tanhP1"), R(2), R(2))
	p("\tVMULPD %s, %s, %s", R(1), R(2), R(2))
	p("\tVADDPD %s, %s, %s // P(z)", c("tanhP2"), R(2), R(2))
	p("\tVADDPD %s, %s, %s", c("tanhQ0"), R(1), R(3))
	p("\tVMULPD %s, %s, %s", R(1), R(3), R(3))
	p("\tVADDPD %s, %s, %s", c("tanhQ1"), R(3), R(3))
	p("\tVMULPD %s, %s, %s", R(1), R(3), R(3))
	p("\tVADDPD %s, %s, %s // Q(z)", c("tanhQ2"), R(3), R(3))
	p("\tVMULPD %s, %s, %s // x·z", R(1), R(15), R(9))
	p("\tVMULPD %s, %s, %s // x·z·P(z)", R(2), R(9), R(9))
	// One division for both branches: the quotient's operands are
	// selected first (2 and s + 1, or x·z·P(z) and Q(z)).
	m := w.cmp(13, c("tanhCut"), R(8), 1) // a ≥ 0.625 (false for NaN)
	w.blend(m, c("two"), R(9), R(9))
	w.blend(m, R(10), R(3), R(3))
	p("\tVDIVPD %s, %s, %s // 2/(s + 1) or x·z·P(z)/Q(z)", R(3), R(9), R(9))
	p("\tVMOVUPD %s, %s", c("one"), R(12))
	p("\tVSUBPD %s, %s, %s // 1 − 2/(s + 1)", R(9), R(12), R(12))
	p("\tVADDPD %s, %s, %s // x + x·z·P(z)/Q(z)", R(9), R(15), R(9))
	w.blend(m, R(12), R(9), R(9))
	p("\t%s %s, %s, %s", w.and, c("absMask"), R(9), R(9))
	p("\t%s %s, %s, %s // x's sign", w.and, c("signMask"), R(15), R(13))
	p("\t%s %s, %s, %s", w.or, R(13), R(9), R(9))
	p("\tVMOVUPD %s, (DI)", R(9))
	footer("tanh", w)
}

func genLog(w width, shift int) {
	header("log", w, shift)
	p("log%s_loop:", w.suf)
	p("\tVMOVUPD (SI), %s", w.R(0))
	logBody(w)
	p("\tVMOVUPD %s, (DI)", w.R(12))
	footer("log", w)
}

// genLog1p writes Log1p: logBody on u = 1 + x, plus the correction
// c = (x − (u − 1))/u (0 where u is 0 or +Inf, x itself where x = ±0), and
// c alone where log u = 0 (log1pGeneric's steps).
func genLog1p(w width, shift int) {
	header("log1p", w, shift)
	R := w.R
	p("log1p%s_loop:", w.suf)
	p("\tVMOVUPD (SI), %s", R(14))
	p("\tVADDPD %s, %s, %s // u = 1 + x", c("one"), R(14), R(0))
	p("\tVSUBPD %s, %s, %s", c("one"), R(0), R(15))
	p("\tVSUBPD %s, %s, %s", R(15), R(14), R(15))
	p("\tVDIVPD %s, %s, %s // c = (x − (u − 1))/u", R(0), R(15), R(15))
	m := w.cmp(0, c("zero"), R(0), 1) // u = 0
	w.blend(m, c("zero"), R(15), R(15))
	m = w.cmp(0, c("inf"), R(0), 1) // u = +Inf
	w.blend(m, c("zero"), R(15), R(15))
	m = w.cmp(0, c("zero"), R(14), 1) // x = ±0
	w.blend(m, R(14), R(15), R(15))
	logBody(w)
	p("\tVADDPD %s, %s, %s // log u + c", R(15), R(12), R(13))
	m = w.cmp(0, c("zero"), R(12), 1) // log u = 0
	w.blend(m, R(15), R(13), R(13))
	p("\tVMOVUPD %s, (DI)", R(13))
	footer("log1p", w)
}

// logBody computes logGeneric of register 0 into register 12, using
// registers 0 to 13 (and K1, K6 for AVX-512).
func logBody(w width) {
	R := w.R
	m := w.cmp(1, c("minNormal"), R(0), 1) // x < minNormal
	p("\tVMULPD %s, %s, %s", c("two54"), R(0), R(2))
	w.blend(m, R(2), R(0), R(2))  // v
	w.select01(m, c("m54"), R(3)) // e = −54 or 0
	p("\tVPSRLQ $52, %s, %s", R(2), R(4))
	p("\t%s %s, %s, %s", w.or, c("shiftBits"), R(4), R(4))
	p("\tVSUBPD %s, %s, %s // E", c("bias"), R(4), R(4))
	p("\tVADDPD %s, %s, %s // e", R(4), R(3), R(3))
	p("\t%s %s, %s, %s", w.and, c("mantMask"), R(2), R(5))
	p("\t%s %s, %s, %s // m ∈ [1, 2)", w.or, c("oneBits"), R(5), R(5))
	m = w.cmp(13, c("sqrt2"), R(5), 6) // m ≥ sqrt2
	p("\tVMULPD %s, %s, %s", c("half"), R(5), R(7))
	w.blend(m, R(7), R(5), R(5))
	w.select01(m, c("one"), R(7))
	p("\tVADDPD %s, %s, %s // e", R(7), R(3), R(3))
	p("\tVSUBPD %s, %s, %s // f", c("one"), R(5), R(5))
	p("\tVADDPD %s, %s, %s", c("two"), R(5), R(6))
	p("\tVDIVPD %s, %s, %s // s", R(6), R(5), R(6))
	p("\tVMULPD %s, %s, %s // s2", R(6), R(6), R(7))
	p("\tVMULPD %s, %s, %s // s4", R(7), R(7), R(8))
	p("\tVMOVUPD %s, %s", c("lg7"), R(9))
	p("\tVFMADD213PD %s, %s, %s", c("lg5"), R(8), R(9))
	p("\tVFMADD213PD %s, %s, %s", c("lg3"), R(8), R(9))
	p("\tVFMADD213PD %s, %s, %s // t1", c("lg1"), R(8), R(9))
	p("\tVMOVUPD %s, %s", c("lg6"), R(10))
	p("\tVFMADD213PD %s, %s, %s", c("lg4"), R(8), R(10))
	p("\tVFMADD213PD %s, %s, %s // t2", c("lg2"), R(8), R(10))
	p("\tVMULPD %s, %s, %s", R(10), R(8), R(10))
	p("\tVFMADD231PD %s, %s, %s // r = fma(s2, t1, s4·t2)", R(9), R(7), R(10))
	p("\tVMULPD %s, %s, %s", c("half"), R(5), R(11))
	p("\tVMULPD %s, %s, %s // hfsq", R(5), R(11), R(11))
	p("\tVADDPD %s, %s, %s", R(10), R(11), R(12))
	p("\tVMULPD %s, %s, %s", c("ln2Lo"), R(3), R(13))
	p("\tVFMADD231PD %s, %s, %s // lo = fma(s, hfsq + r, e·ln2Lo)", R(12), R(6), R(13))
	p("\tVSUBPD %s, %s, %s", R(13), R(11), R(11))
	p("\tVSUBPD %s, %s, %s", R(5), R(11), R(11))
	p("\tVMULPD %s, %s, %s", c("ln2Hi"), R(3), R(12))
	p("\tVSUBPD %s, %s, %s // log x", R(11), R(12), R(12))
	m = w.cmp(0, c("inf"), R(0), 1) // x = +Inf
	w.blend(m, R(0), R(12), R(12))
	m = w.cmp(0, c("zero"), R(0), 1) // x = ±0
	w.blend(m, c("ninf"), R(12), R(12))
	m = w.cmp(9, c("zero"), R(0), 1) // !(x ≥ 0)
	w.blend(m, c("nan"), R(12), R(12))
}

func main() {
	const (
		shifter = 0x1.8p52
		bias    = shifter + 1023
	)
	constant("expHi", f(710))
	constant("expZero", f(-745.1332191019411))
	constant("shifter", f(shifter))
	constant("log2e", f(1.4426950408889634))
	constant("ln2Hi", f(6.93147180369123816490e-01))
	constant("ln2Lo", f(1.90821492927058770002e-10))
	poly := []float64{1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
		1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5}
	for i, v := range poly {
		constant(fmt.Sprintf("exp%d", i), f(v))
	}
	constant("one", f(1))
	constant("two", f(2))
	constant("half", f(0.5))
	constant("bias", f(bias))
	constant("minNormal", f(0x1p-1022))
	constant("two54", f(0x1p54))
	constant("m54", f(-54))
	constant("shiftBits", 0x4338000000000000)
	constant("mantMask", 1<<52-1)
	constant("oneBits", 0x3ff0000000000000)
	constant("sqrt2", f(2*(math.Sqrt2/2)))
	for i, v := range []float64{6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
		2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01} {
		constant(fmt.Sprintf("lg%d", i+1), f(v))
	}
	constant("inf", f(math.Inf(1)))
	constant("ninf", f(math.Inf(-1)))
	constant("zero", 0)
	constant("nan", 0x7ff8000000000001)
	constant("absMask", 1<<63-1)
	constant("signMask", 1<<63)
	constant("tanhCut", f(0.625))
	for i, v := range []float64{-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3} {
		constant(fmt.Sprintf("tanhP%d", i), f(v))
	}
	for i, v := range []float64{1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3} {
		constant(fmt.Sprintf("tanhQ%d", i), f(v))
	}

	p("// Code generated by gen_vmath_amd64.go; DO NOT EDIT.")
	p("")
	p("//go:build !purego")
	p("")
	p("#include \"textflag.h\"")
	p("")
	for i, k := range consts {
		for l := 0; l < 8; l++ {
			p("DATA vmc<>+%d(SB)/8, $%#016x // %s", i*64+8*l, k.bits, k.name)
		}
	}
	p("GLOBL vmc<>(SB), RODATA|NOPTR, $%d", len(consts)*64)
	y := width{r: "Y", lanes: 4, suf: "256", and: "VPAND", or: "VPOR"}
	z := width{r: "Z", lanes: 8, suf: "512", and: "VPANDQ", or: "VPORQ"}
	genExp(y, 2)
	genExp(z, 3)
	genLog(y, 2)
	genLog(z, 3)
	genLog1p(y, 2)
	genLog1p(z, 3)
	genTanh(y, 2)
	genTanh(z, 3)
	if err := os.WriteFile("vmath_amd64.s", []byte(out.String()), 0o644); err != nil {
		panic(err)
	}
}

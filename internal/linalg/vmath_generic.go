package linalg

import "math"

// The batched elementary functions, defined here in pure Go: the assembly
// kernels (vmath_amd64.s) perform the same operations in the same order
// (math.FMA where they fuse), lane by lane, so that every kernel set gives
// these bits.

// Constants of expGeneric.
const (
	expHi = 710 // inputs above are clamped to it: e^710 overflows
	// expZero: e^x rounds to 0 for x below it (e^x ≤ 2⁻¹⁰⁷⁵), which
	// the kernels return without computing, since a product that
	// underflows takes a microcode assist (~150 cycles) on x86.
	expZero = -745.1332191019411
	// shifter = 1.5·2⁵²: t + shifter rounds t to an integer held in the
	// low mantissa bits.
	shifter = 0x1.8p52
	log2e   = 1.4426950408889634 // log₂ e
	// ln2Hi has 32 trailing zero bits, so k·ln2Hi is exact for |k| < 2²¹
	// (fdlibm's split); ln2Hi + ln2Lo = log 2 to 2⁻¹⁰⁵.
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	// bias = shifter + 1023: k + bias holds 2^k's exponent field in its
	// low 11 bits.
	bias = shifter + 1023
)

// expPoly holds 1/j! for j = 13 down to 2: e^r = 1 + r + r²/2 + … + r¹³/13!
// has a remainder below |r|¹⁴/14! < 4.1·10⁻¹⁸ for |r| ≤ log 2/2.
var expPoly = [...]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
	1.0 / 6, 0.5,
}

// expGeneric sets dst[i] = e^{x[i]} (see Exp).
func expGeneric(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		// NaN fails both comparisons and passes through.
		if v < expZero {
			dst[i] = 0
			continue
		}
		if v > expHi {
			v = expHi
		}
		// k = round(v·log₂e) from the exact product; r = v − k·log 2 in
		// two fma steps (the first exact), |r| ≤ 0.3466.
		k := math.FMA(v, log2e, shifter) - shifter
		r := math.FMA(-k, ln2Hi, v)
		r = math.FMA(-k, ln2Lo, r)
		p := expPoly[0]
		for _, c := range expPoly[1:] {
			p = math.FMA(p, r, c)
		}
		p = math.FMA(p, r, 1)
		p = math.FMA(p, r, 1)
		// 2^k = 2^k1·2^k2 with k1 = round(k/2), both normal for
		// k ∈ [−1075, 1024]: p·2^k1 is exact, the second product rounds
		// once (to a subnormal or to ±Inf where e^v does).
		h := k*0.5 + bias
		k1 := h - bias
		k2 := k - k1
		s1 := math.Float64frombits(math.Float64bits(h) << 52)
		s2 := math.Float64frombits(math.Float64bits(k2+bias) << 52)
		dst[i] = float64(p*s1) * s2
	}
}

// Constants of logGeneric.
const (
	minNormal = 0x1p-1022
	two54     = 0x1p54
	mantMask  = 1<<52 - 1
	oneBits   = 0x3ff0000000000000
	// shiftBits are shifter's bits: e | shiftBits is the float shifter + e.
	shiftBits = 0x4338000000000000
	// sqrt2 is 2·(√2/2 rounded), where fdlibm halves the mantissa.
	sqrt2 = 2 * (math.Sqrt2 / 2)
	// The coefficients of fdlibm's e_log.c: log(1+f) = 2s + s·R(s²),
	// s = f/(2+f), |R(z) − (2/3·z + 2/5·z² + …)| < 2⁻⁵⁸·⁴⁵.
	lg1 = 6.666666666666735130e-01
	lg2 = 3.999999999940941908e-01
	lg3 = 2.857142874366239149e-01
	lg4 = 2.222219843214978396e-01
	lg5 = 1.818357216161805012e-01
	lg6 = 1.531383769920937332e-01
	lg7 = 1.479819860511658591e-01
)

// nanBits is the NaN Log and Log1p return for x < 0 (math.NaN's bits).
const nanBits = 0x7ff8000000000001

// logGeneric sets dst[i] = log x[i] (see Log).
func logGeneric(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = log1(v)
	}
}

// log1p1 returns log(1 + v) (see Log1p): log1(u) + c, u = 1 + v rounded and
// c = (v − (u − 1))/u what the rounding lost; c alone where log1(u) = 0
// (u = 1, which keeps the sign of a zero v).
func log1p1(v float64) float64 {
	u := 1 + v
	var c float64
	switch {
	case u == 0 || u == math.Inf(1):
		c = 0 // −Inf and +Inf: no correction
	case v == 0:
		c = v
	default:
		c = (v - (u - 1)) / u
	}
	l := log1(u)
	if l == 0 {
		return c
	}
	return l + c
}

// log1pGeneric sets dst[i] = log(1 + x[i]) (see Log1p).
func log1pGeneric(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = log1p1(v)
	}
}

// log1 returns log v (see Log).
func log1(v float64) float64 {
	switch {
	case v == math.Inf(1):
		return v
	case v == 0:
		return math.Inf(-1)
	case !(v >= 0):
		return math.Float64frombits(nanBits)
	}
	var e float64
	if v < minNormal {
		v *= two54
		e = -54
	}
	// v = m·2^E, m ∈ [1, 2); then m ∈ [√2/2, √2) as fdlibm has it.
	b := math.Float64bits(v)
	e += math.Float64frombits(b>>52|shiftBits) - (shifter + 1023)
	m := math.Float64frombits(b&mantMask | oneBits)
	if m >= sqrt2 {
		m *= 0.5
		e++
	}
	f := m - 1
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := math.FMA(s4, math.FMA(s4, math.FMA(s4, lg7, lg5), lg3), lg1)
	t2 := math.FMA(s4, math.FMA(s4, lg6, lg4), lg2)
	r := math.FMA(s2, t1, s4*t2)
	hfsq := 0.5 * f * f
	// e·ln2Hi is exact; log x = e·log 2 + f − hfsq + s·(hfsq + R).
	lo := math.FMA(s, hfsq+r, e*ln2Lo)
	return e*ln2Hi - ((hfsq - lo) - f)
}

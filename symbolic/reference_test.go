package symbolic

import (
	"math"
	"math/big"
)

// 200-bit references for the interval tests: exp, log, log1p, expm1 by
// series on math/big (argument reduction by ln 2, Taylor series for exp,
// atanh series for log), and the stable primitives composed from them.
// Nothing here uses package math's transcendental functions.

const refPrec = 200

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }

func newF() *big.Float { return new(big.Float).SetPrec(refPrec) }

var refLn2 = func() *big.Float {
	// ln 2 = 2·atanh(1/3) = 2 Σ_k (1/3)^{2k+1}/(2k+1).
	z := newF().Quo(bf(1), bf(3))
	return newF().Mul(bf(2), atanhSeries(z))
}()

// atanhSeries returns Σ_k z^{2k+1}/(2k+1) for |z| ≤ 1/3.
func atanhSeries(z *big.Float) *big.Float {
	sum := newF()
	z2 := newF().Mul(z, z)
	p := newF().Set(z)
	eps := newF().SetMantExp(bf(1), -refPrec-10)
	for k := 0; k < 1000; k++ {
		term := newF().Quo(p, bf(float64(2*k+1)))
		sum.Add(sum, term)
		if newF().Abs(term).Cmp(eps) < 0 {
			break
		}
		p.Mul(p, z2)
	}
	return sum
}

// refExp returns e^x.
func refExp(x *big.Float) *big.Float {
	// x = k·ln2 + r, |r| ≤ ln2/2.
	kf, _ := newF().Quo(x, refLn2).Float64()
	k := math.Round(kf)
	r := newF().Sub(x, newF().Mul(bf(k), refLn2))
	sum, term := bf(1), bf(1)
	eps := newF().SetMantExp(bf(1), -refPrec-10)
	for i := 1; i < 1000; i++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(i)))
		sum.Add(sum, term)
		if newF().Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// refExpm1 returns e^x − 1 (by its series for small |x|).
func refExpm1(x *big.Float) *big.Float {
	if a, _ := newF().Abs(x).Float64(); a > 1e-3 {
		return newF().Sub(refExp(x), bf(1))
	}
	sum, term := newF(), bf(1)
	for i := 1; i < 200; i++ {
		term.Mul(term, x)
		term.Quo(term, bf(float64(i)))
		sum.Add(sum, term)
	}
	return sum
}

// refLog returns log x for x > 0.
func refLog(x *big.Float) *big.Float {
	m := newF()
	e := x.MantExp(m) // x = m·2^e, m ∈ [0.5, 1)
	// log m = 2·atanh((m−1)/(m+1)), (m−1)/(m+1) ∈ [−1/3, 0).
	z := newF().Quo(newF().Sub(m, bf(1)), newF().Add(m, bf(1)))
	l := newF().Mul(bf(2), atanhSeries(z))
	return l.Add(l, newF().Mul(bf(float64(e)), refLn2))
}

// refLog1p returns log(1 + y) (by its series for small |y|).
func refLog1p(y *big.Float) *big.Float {
	if a, _ := newF().Abs(y).Float64(); a > 1e-3 {
		return refLog(newF().Add(bf(1), y))
	}
	sum, p := newF(), newF().Set(y)
	for i := 1; i < 200; i++ {
		t := newF().Quo(p, bf(float64(i)))
		if i%2 == 0 {
			t.Neg(t)
		}
		sum.Add(sum, t)
		p.Mul(p, y)
	}
	return sum
}

// Composite references.

func refSoftplus(x float64) *big.Float { return refLog1p(refExp(bf(x))) }

func refSigmoid(x float64) *big.Float {
	return newF().Quo(bf(1), newF().Add(bf(1), refExp(bf(-x))))
}

func refLogSoftplus(x float64) *big.Float { return refLog(refSoftplus(x)) }

func refDLogSoftplus(x float64) *big.Float { return newF().Quo(refSigmoid(x), refSoftplus(x)) }

func refLogExpm1(x float64) *big.Float { return refLog(refExpm1(bf(x))) }

func refLAE(x, k float64) *big.Float { return refLog1p(newF().Mul(bf(k), refExpm1(bf(x)))) }

func refLogAddExp(a, b float64) *big.Float {
	m, o := math.Max(a, b), math.Min(a, b)
	return newF().Add(bf(m), refLog1p(refExp(newF().Sub(bf(o), bf(m)))))
}

// ulpsOff returns |got − ref| in units of the float64 spacing at ref.
func ulpsOff(got float64, ref *big.Float) float64 {
	r, _ := ref.Float64()
	if got == r {
		return 0
	}
	ulp := math.Nextafter(math.Abs(r), math.Inf(1)) - math.Abs(r)
	if ulp == 0 || math.IsInf(ulp, 0) {
		ulp = 0x1p-1074
	}
	d, _ := newF().Abs(newF().Sub(bf(got), ref)).Float64()
	return d / ulp
}

// encloses reports whether ref ∈ [i.Lo, i.Hi], up to the reference's own
// error (2⁻¹⁹⁰ relative: a value like dlogsoftplus(−700) = 1 − e^{−700}/2
// is 1 to 200 bits and may round above the exact bound 1).
func encloses(i Interval, ref *big.Float) bool {
	if i.Unknown() {
		return false
	}
	tol := newF().SetMantExp(newF().Abs(ref), -190)
	lo := newF().Sub(ref, tol)
	hi := newF().Add(ref, tol)
	return (math.IsInf(i.Lo, -1) || bf(i.Lo).Cmp(hi) <= 0) && (math.IsInf(i.Hi, 1) || bf(i.Hi).Cmp(lo) >= 0)
}

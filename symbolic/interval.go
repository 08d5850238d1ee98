package symbolic

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// Interval is a closed interval [Lo, Hi] of reals, with infinite bounds
// allowed. An interval with a NaN bound is "unknown": the operation was
// undefined somewhere on its argument (log of an interval of negative
// numbers), and no sign can be read from it.
//
// Every operation returns an interval that contains f(x) for every x in its
// argument (where f is defined): bounds that are not exact move outward.
// For + − × ÷ the rounding error's sign is known exactly (TwoSum, FMA), so a
// bound moves one step with math.Nextafter only when the operation was
// inexact in that direction; results near the underflow threshold move in
// both directions. Library functions move their bounds by their error bound
// (libULPs, compULPs below) with repeated math.Nextafter, plus an absolute
// term where the primitive cancels internally.
type Interval struct{ Lo, Hi float64 }

// Point returns [x, x].
func Point(x float64) Interval { return Interval{x, x} }

// Entire returns (−∞, +∞).
func Entire() Interval { return Interval{math.Inf(-1), math.Inf(1)} }

// Unknown reports whether i has a NaN bound.
func (i Interval) Unknown() bool { return math.IsNaN(i.Lo) || math.IsNaN(i.Hi) }

// Contains reports whether x ∈ i.
func (i Interval) Contains(x float64) bool { return i.Lo <= x && x <= i.Hi }

// Width returns Hi − Lo.
func (i Interval) Width() float64 { return i.Hi - i.Lo }

func (i Interval) String() string { return fmt.Sprintf("[%.17g, %.17g]", i.Lo, i.Hi) }

func unknown() Interval { return Interval{math.NaN(), math.NaN()} }

// Error bounds of the float64 functions, in ulps of the result.
const (
	// libULPs bounds math.Exp (numerics.Exp), numerics.Log, math.Log1p,
	// math.Expm1. Go documents the pure-Go versions (FreeBSD msun) as within
	// 1 ulp; the amd64 assembly of Exp and the subnormal scaling in
	// numerics.Log are not documented, so we allow 4 and measure them against
	// 200-bit references in interval_test.go (worst seen: 1 ulp).
	libULPs = 4
	// compULPs bounds the composite primitives (softplus, sigmoid,
	// logsoftplus, dlogsoftplus, lae, logaddexp): each is two or three
	// library calls and a few roundings whose relative errors do not grow
	// (the condition numbers x·φ′/φ of log1p at t = eˣ and of 1/(1+t) are
	// ≤ 1), so at most ~6 ulps; 16 leaves margin, and interval_test.go
	// measures them.
	compULPs = 16
	// absEps is the absolute error allowed on top where a primitive
	// subtracts: log of a softplus near 1, x + log1p(−e^{−x}) near log 2,
	// max + log1p(…) near 0. 16·2⁻⁵³ times the size of the terms.
	absEps = 16 * 0x1p-53
)

func down(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
func up(x float64) float64   { return math.Nextafter(x, math.Inf(1)) }

func downN(x float64, n int) float64 {
	if math.IsInf(x, -1) || math.IsNaN(x) {
		return x
	}
	for ; n > 0; n-- {
		x = down(x)
	}
	return x
}

func upN(x float64, n int) float64 {
	if math.IsInf(x, 1) || math.IsNaN(x) {
		return x
	}
	for ; n > 0; n-- {
		x = up(x)
	}
	return x
}

// widen returns [downN(lo, n) − abs, upN(hi, n) + abs], one more step out
// when abs > 0.
func widen(lo, hi float64, n int, abs float64) Interval {
	lo, hi = downN(lo, n), upN(hi, n)
	if abs > 0 {
		lo, hi = down(lo-abs), up(hi+abs)
	}
	return Interval{lo, hi}
}

// tiny is the magnitude below which a product or quotient may have lost
// bits to underflow (2⁻¹⁰²² · 2⁵³): its FMA residual is then not exact.
const tiny = 0x1p-969

// sumBounds returns lower and upper bounds of x + y.
func sumBounds(x, y float64) (lo, hi float64) {
	s := x + y
	if math.IsNaN(s) {
		return s, s
	}
	if math.IsInf(s, 0) {
		if math.IsInf(x, 0) || math.IsInf(y, 0) {
			return s, s
		}
		return down(s), up(s) // overflow: the true sum is finite
	}
	bb := s - x
	e := (x - (s - bb)) + (y - bb)
	switch {
	case e < 0:
		return down(s), s
	case e > 0:
		return s, up(s)
	}
	return s, s
}

// prodBounds returns lower and upper bounds of x·y (0·∞ = 0: a bound of
// an interval is approached, not attained).
func prodBounds(x, y float64) (lo, hi float64) {
	if x == 0 || y == 0 {
		return 0, 0
	}
	p := x * y
	if math.IsNaN(p) {
		return p, p
	}
	if math.IsInf(p, 0) {
		if math.IsInf(x, 0) || math.IsInf(y, 0) {
			return p, p
		}
		return down(p), up(p)
	}
	if math.Abs(p) < tiny {
		return down(p), up(p)
	}
	e := math.FMA(x, y, -p)
	switch {
	case e < 0:
		return down(p), p
	case e > 0:
		return p, up(p)
	}
	return p, p
}

// quoBounds returns lower and upper bounds of x/y, y ≠ 0.
func quoBounds(x, y float64) (lo, hi float64) {
	d := x / y
	if math.IsNaN(d) {
		return d, d
	}
	if math.IsInf(d, 0) {
		if math.IsInf(x, 0) {
			return d, d
		}
		return down(d), up(d)
	}
	if math.IsInf(y, 0) {
		return 0, 0 // x/±∞ is the limit 0 of x/y
	}
	if d == 0 && x == 0 {
		return 0, 0
	}
	if math.Abs(d) < tiny {
		return down(d), up(d)
	}
	r := math.FMA(-d, y, x) // x − d·y exactly: the true quotient is d + r/y
	switch {
	case r == 0:
		return d, d
	case (r < 0) != (y < 0):
		return down(d), d
	}
	return d, up(d)
}

// IAdd returns a + b.
func IAdd(a, b Interval) Interval {
	lo, _ := sumBounds(a.Lo, b.Lo)
	_, hi := sumBounds(a.Hi, b.Hi)
	return Interval{lo, hi}
}

// INeg returns −a.
func INeg(a Interval) Interval { return Interval{-a.Hi, -a.Lo} }

// ISub returns a − b.
func ISub(a, b Interval) Interval { return IAdd(a, INeg(b)) }

// IMul returns a·b.
func IMul(a, b Interval) Interval {
	if a.Unknown() || b.Unknown() {
		return unknown()
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range [2]float64{a.Lo, a.Hi} {
		for _, y := range [2]float64{b.Lo, b.Hi} {
			l, h := prodBounds(x, y)
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
	}
	return Interval{lo, hi}
}

// IDiv returns a/b: (−∞, ∞) when b contains 0 (the guards of the formula
// report the division by zero itself), unknown when b = [0, 0].
func IDiv(a, b Interval) Interval {
	if a.Unknown() || b.Unknown() || b.Lo == 0 && b.Hi == 0 {
		return unknown()
	}
	if b.Lo <= 0 && b.Hi >= 0 {
		return Entire()
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range [2]float64{a.Lo, a.Hi} {
		for _, y := range [2]float64{b.Lo, b.Hi} {
			l, h := quoBounds(x, y)
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
	}
	return Interval{lo, hi}
}

// powNonneg returns bounds of xⁿ for x ≥ 0 by binary powering with
// directed rounding (each product of non-negative numbers is monotone).
func powNonneg(x float64, n uint64) (lo, hi float64) {
	lo, hi = 1, 1
	bl, bh := x, x
	for n > 0 {
		if n&1 == 1 {
			lo, _ = prodBounds(lo, bl)
			_, hi = prodBounds(hi, bh)
		}
		n >>= 1
		if n > 0 {
			bl, _ = prodBounds(bl, bl)
			_, bh = prodBounds(bh, bh)
		}
	}
	return lo, hi
}

// IPowInt returns aⁿ for an integer n (|n| ≤ 2⁶²).
func IPowInt(a Interval, n int64) Interval {
	if a.Unknown() {
		return unknown()
	}
	if n == 0 {
		return Point(1)
	}
	if n < 0 {
		return IDiv(Point(1), IPowInt(a, -n))
	}
	un := uint64(n)
	if n%2 == 0 {
		// Even: xⁿ = |x|ⁿ, smallest at the point of a nearest 0.
		ml, mh := math.Abs(a.Lo), math.Abs(a.Hi)
		if ml > mh {
			ml, mh = mh, ml
		}
		if a.Lo <= 0 && a.Hi >= 0 {
			ml = 0
		}
		lo, _ := powNonneg(ml, un)
		_, hi := powNonneg(mh, un)
		return Interval{lo, hi}
	}
	// Odd: increasing; (−x)ⁿ = −xⁿ.
	bound := func(x float64) (float64, float64) {
		if x >= 0 {
			return powNonneg(x, un)
		}
		l, h := powNonneg(-x, un)
		return -h, -l
	}
	lo, _ := bound(a.Lo)
	_, hi := bound(a.Hi)
	return Interval{lo, hi}
}

// IPow returns a^b. An exponent that is an integer point uses IPowInt;
// otherwise a^b = exp(b·log a) on the part of a where a ≥ 0 (unknown if
// there is none).
func IPow(a, b Interval) Interval {
	if a.Unknown() || b.Unknown() {
		return unknown()
	}
	if b.Lo == b.Hi && b.Lo == math.Trunc(b.Lo) && math.Abs(b.Lo) <= 1<<62 {
		return IPowInt(a, int64(b.Lo))
	}
	if a.Hi < 0 {
		return unknown()
	}
	lo := math.Max(a.Lo, 0)
	return IExp(IMul(b, ILog(Interval{lo, a.Hi})))
}

// monotone returns the interval of an increasing function φ on a, widened
// by n ulps and abs, with the result clamped to [rlo, rhi] (the range of φ).
func monotone(a Interval, phi func(float64) float64, n int, abs, rlo, rhi float64) Interval {
	r := widen(phi(a.Lo), phi(a.Hi), n, abs)
	r.Lo = math.Max(r.Lo, rlo)
	r.Hi = math.Min(r.Hi, rhi)
	return r
}

var inf = math.Inf(1)

// IExp returns e^a.
func IExp(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	return monotone(a, numerics.Exp, libULPs, 0, 0, inf)
}

// ILog returns log a on the part of a where a > 0 (unknown if a ≤ 0).
func ILog(a Interval) Interval {
	if a.Unknown() || a.Hi <= 0 {
		if a.Hi == 0 {
			return Interval{-inf, -inf}
		}
		return unknown()
	}
	lo := a.Lo
	if lo < 0 {
		lo = 0
	}
	return monotone(Interval{lo, a.Hi}, numerics.Log, libULPs, 0, -inf, inf)
}

// ILog1p returns log(1 + a) where a > −1.
func ILog1p(a Interval) Interval {
	if a.Unknown() || a.Hi <= -1 {
		if a.Hi == -1 {
			return Interval{-inf, -inf}
		}
		return unknown()
	}
	lo := math.Max(a.Lo, -1)
	return monotone(Interval{lo, a.Hi}, math.Log1p, libULPs, 0, -inf, inf)
}

// IExpm1 returns e^a − 1.
func IExpm1(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	return monotone(a, math.Expm1, libULPs, 0, -1, inf)
}

// ISqrt returns √a where a ≥ 0 (correctly rounded: one step).
func ISqrt(a Interval) Interval {
	if a.Unknown() || a.Hi < 0 {
		return unknown()
	}
	lo := math.Max(a.Lo, 0)
	return monotone(Interval{lo, a.Hi}, math.Sqrt, 1, 0, 0, inf)
}

// IAbs returns |a|.
func IAbs(a Interval) Interval {
	switch {
	case a.Unknown():
		return unknown()
	case a.Lo >= 0:
		return a
	case a.Hi <= 0:
		return INeg(a)
	}
	return Interval{0, math.Max(-a.Lo, a.Hi)}
}

// ISign returns sign a.
func ISign(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	return Interval{sign(a.Lo), sign(a.Hi)}
}

// ISoftplus returns log(1 + e^a).
func ISoftplus(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	return monotone(a, softplus, compULPs, 0, 0, inf)
}

// ISigmoid returns 1/(1 + e^{−a}).
func ISigmoid(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	return monotone(a, sigmoid, compULPs, 0, 0, 1)
}

// ILogSoftplus returns log log(1 + e^a): log of a softplus that may be near
// 1, so absEps is allowed on top of the ulps.
func ILogSoftplus(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	return monotone(a, logSoftplus, compULPs, absEps, -inf, inf)
}

// IDLogSoftplus returns sigmoid(a)/softplus(a), decreasing from 1 to 0.
func IDLogSoftplus(a Interval) Interval {
	if a.Unknown() {
		return unknown()
	}
	r := widen(dLogSoftplus(a.Hi), dLogSoftplus(a.Lo), compULPs, 0)
	r.Lo, r.Hi = math.Max(r.Lo, 0), math.Min(r.Hi, 1)
	return r
}

// ILogExpm1 returns log(e^a − 1) where a > 0. Above 0.5 it is
// a + log1p(−e^{−a}), which cancels near a = log 2: absEps·max(1, a).
func ILogExpm1(a Interval) Interval {
	if a.Unknown() || a.Hi <= 0 {
		if a.Hi == 0 {
			return Interval{-inf, -inf}
		}
		return unknown()
	}
	lo := math.Max(a.Lo, 0)
	return monotone(Interval{lo, a.Hi}, logExpm1, compULPs, absEps*math.Max(1, math.Abs(a.Hi)), -inf, inf)
}

// laeULPs returns the error bound of lae(·, k) in ulps: log1p(y) with
// y = k·expm1(x) ∈ [−k, ∞) carries y's relative error times the condition
// y/((1+y)·log1p(y)), at most k/((1−k)·(−log1p(−k))) (at y = −k; 1.44 for
// k = 1/2), on top of compULPs.
func laeULPs(k float64) int {
	c := k / ((1 - k) * -math.Log1p(-k))
	if !(c >= 1) {
		c = 1
	}
	if c > 1e6 {
		c = 1e6
	}
	return compULPs + int(math.Ceil(4*c))
}

// ILAE returns lae(a, k) = log(1 − k + k·e^a) for k ⊂ (0, 1). It is
// increasing in a and monotone in k for fixed a (∂/∂k = (e^a − 1)/(…)), so
// its extremes on the box a × k are at corners.
func ILAE(a, k Interval) Interval {
	if a.Unknown() || k.Unknown() || !(k.Lo > 0 && k.Hi < 1) {
		return unknown()
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range [2]float64{a.Lo, a.Hi} {
		for _, kk := range [2]float64{k.Lo, k.Hi} {
			v := lae(x, kk)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	abs := 0.0
	if a.Hi > laeSwitch {
		// x + log k + …: a sum, exact to a few ulps of its largest term.
		abs = absEps * math.Max(math.Abs(a.Hi), -math.Log(k.Lo))
	}
	return widen(lo, hi, laeULPs(k.Hi), abs)
}

// ILogAddExp returns log(e^a + e^b), increasing in both. It is
// max + log1p(e^{min−max}): absEps times the larger magnitude covers the
// cancellation when the result is near 0.
func ILogAddExp(a, b Interval) Interval {
	if a.Unknown() || b.Unknown() {
		return unknown()
	}
	m := math.Max(math.Max(math.Abs(a.Lo), math.Abs(a.Hi)), math.Max(math.Abs(b.Lo), math.Abs(b.Hi)))
	if math.IsInf(m, 0) {
		m = 0
	}
	return widen(logAddExp(a.Lo, b.Lo), logAddExp(a.Hi, b.Hi), compULPs, absEps*m)
}

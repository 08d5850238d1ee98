package symbolic

import "math"

// Inverse returns g(u) = f⁻¹(u), the margin q with f(q) = u, searched from
// the anchor (b_f: g is the inverse of f on [b_f, ∞), where f increases):
// for u ≥ f(anchor) the bracket [anchor, anchor + s] doubles s until f
// reaches u, for u < f(anchor) it grows to the left. Inside the bracket,
// Newton steps on the stable f and f′ are taken while they stay inside it
// and halve the residual; otherwise the bracket is bisected (Numerical
// Recipes' rtsafe). It stops when the bracket is two adjacent floats and
// returns the end with the smaller residual.
//
// Special cases are:
//
//	Inverse(±Inf, a) = ±Inf
//	Inverse(NaN, a) = NaN
//	Inverse(u, a) = +Inf if f < u up to the largest float64 (−Inf to the left)
//	Inverse(u, a) = NaN if f is undefined on the way
func (fm *Formula) Inverse(u, anchor float64) float64 {
	if math.IsNaN(u) || math.IsInf(u, 0) {
		return u
	}
	fa := fm.F(anchor)
	if math.IsNaN(fa) {
		return math.NaN()
	}
	if fa == u {
		return anchor
	}
	var lo, hi float64
	s := math.Max(1, math.Abs(anchor))
	if u > fa {
		lo = anchor
		for {
			hi = anchor + s
			if math.IsInf(hi, 1) {
				hi = math.MaxFloat64
				if !(fm.F(hi) >= u) {
					return math.Inf(1) // f < u up to the largest float64: g(u) overflows
				}
			}
			fh := fm.F(hi)
			if math.IsNaN(fh) {
				return math.NaN()
			}
			if fh >= u {
				break
			}
			lo = hi
			s *= 2
		}
	} else {
		hi = anchor
		for {
			lo = anchor - s
			if math.IsInf(lo, -1) {
				lo = -math.MaxFloat64
				if !(fm.F(lo) <= u) {
					return math.Inf(-1)
				}
			}
			fl := fm.F(lo)
			if math.IsNaN(fl) {
				return math.NaN()
			}
			if fl <= u {
				break
			}
			hi = lo
			s *= 2
		}
	}
	return fm.refine(u, lo, hi)
}

// refine finds the root of f(x) − u in [lo, hi], where f(lo) ≤ u ≤ f(hi).
func (fm *Formula) refine(u, lo, hi float64) float64 {
	x := midBits(lo, hi)
	dxOld := hi - lo
	best, bestR := lo, math.Abs(fm.F(lo)-u)
	if r := math.Abs(fm.F(hi) - u); r < bestR {
		best, bestR = hi, r
	}
	for iter := 0; iter < 400; iter++ {
		r := fm.F(x) - u
		if math.Abs(r) < bestR {
			best, bestR = x, math.Abs(r)
		}
		if r == 0 {
			return x
		}
		if r < 0 {
			lo = x
		} else {
			hi = x
		}
		mid := midBits(lo, hi)
		if mid == lo || mid == hi {
			break // adjacent floats
		}
		d := fm.FPrime(x)
		nx := x - r/d
		if d > 0 && nx > lo && nx < hi && math.Abs(2*r) <= math.Abs(dxOld*d) {
			dxOld = math.Abs(nx - x)
			if nx == x {
				break
			}
			x = nx
			continue
		}
		dxOld = hi - lo
		x = mid
	}
	return best
}

// ordered maps a float64 to an int64 in the same order (−0 and +0 to 0).
func ordered(x float64) int64 {
	if x < 0 {
		return -int64(math.Float64bits(-x))
	}
	return int64(math.Float64bits(x))
}

func unordered(i int64) float64 {
	if i < 0 {
		return -math.Float64frombits(uint64(-i))
	}
	return math.Float64frombits(uint64(i))
}

// midBits returns the float64 halfway between lo and hi in the order of
// float64 values (not their arithmetic mean), so that bisection takes at
// most 64 steps even across many binades (a root at 1e-300 bracketed by
// [0, 1]).
func midBits(lo, hi float64) float64 {
	a, b := ordered(lo), ordered(hi)
	return unordered(a/2 + b/2 + (a%2+b%2)/2) // no overflow of a + b
}

// InversePrime returns g′(u) = 1/f′(g(u)).
func (fm *Formula) InversePrime(u, anchor float64) float64 {
	return 1 / fm.FPrime(fm.Inverse(u, anchor))
}

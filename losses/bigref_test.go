package losses

// High-precision references for the tests of this package.
//
// Every reference value in the tests is computed here, from the definition of
// the function being tested, in math/big arithmetic: nothing is copied from
// another program. The elementary functions are implemented from their series
// with argument reduction:
//
//	log x = e·log 2 + 2 atanh((m − 1)/(m + 1)),  x = m·2^e, m ∈ [1/√2, √2)
//	log 2 = 2 atanh(1/3),  atanh t = Σ_{k≥0} t^{2k+1}/(2k+1)
//	exp x = 2^k · (exp(r/2^s))^{2^s},  r = x − k log 2, |r| ≤ log 2/2, s = 10
//	exp y = Σ_{n≥0} yⁿ/n!  (|y| ≤ 3.4e-4: at least 11 bits per term)
//	expm1 y = Σ_{n≥1} yⁿ/n!  for |y| < 1/2, exp(y) − 1 otherwise
//	log1p y = 2 atanh(y/(2 + y))  for |y| ≤ 1/2, log(1 + y) otherwise
//
// Each series is summed until the next term is below 2^{−(p+4)} of the sum, p
// the working precision, which carries 64 guard bits over the requested one.
//
// refValue evaluates a reference at 256, 512, 1024, … bits until two
// successive precisions agree to 2^{−100} relative, so a formula that cancels
// (for example ℓ_left(q) − 1 = log(1+e^{−q}) − log(1+e^{−β}) near q = β, which
// loses about log₂(1/|q − β|) bits) gets the precision it needs automatically,
// and the tests can write each reference the way the paper defines it.
//
// (numerics/logdomain_test.go holds a copy of this file's functions: test
// helpers cannot be shared between packages without exporting them.)

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// bigRef is a precision in bits; its methods return values of that precision.
type bigRef struct{ prec uint }

// guard is the number of extra bits each elementary function works with.
const guard = 64

func (r bigRef) w() bigRef                          { return bigRef{r.prec + guard} }
func (r bigRef) z() *big.Float                      { return new(big.Float).SetPrec(r.prec) }
func (r bigRef) f(x float64) *big.Float             { return r.z().SetFloat64(x) }
func (r bigRef) round(x *big.Float) *big.Float      { return r.z().Set(x) }
func (r bigRef) add(a, b *big.Float) *big.Float     { return r.z().Add(a, b) }
func (r bigRef) sub(a, b *big.Float) *big.Float     { return r.z().Sub(a, b) }
func (r bigRef) mul(a, b *big.Float) *big.Float     { return r.z().Mul(a, b) }
func (r bigRef) quo(a, b *big.Float) *big.Float     { return r.z().Quo(a, b) }
func (r bigRef) neg(a *big.Float) *big.Float        { return r.z().Neg(a) }
func (r bigRef) addf(a *big.Float, b float64) *big.Float { return r.add(a, r.f(b)) }

// negligible reports whether term is below 2^{−(prec+4)}·|sum|.
func (r bigRef) negligible(term, sum *big.Float) bool {
	if term.Sign() == 0 {
		return true
	}
	if sum.Sign() == 0 {
		return false
	}
	return term.MantExp(nil) < sum.MantExp(nil)-int(r.prec)-4
}

// atanh returns Σ t^{2k+1}/(2k+1) for |t| ≤ 1/2.
func (r bigRef) atanh(t *big.Float) *big.Float {
	w := r.w()
	if t.Sign() == 0 {
		return r.z()
	}
	t2 := w.mul(t, t)
	term := w.round(t)
	sum := w.round(t)
	for k := 1; ; k++ {
		term = w.mul(term, t2)
		d := w.quo(term, w.f(float64(2*k+1)))
		sum = w.add(sum, d)
		if w.negligible(d, sum) {
			break
		}
	}
	return r.round(sum)
}

var (
	ln2Mu    sync.Mutex
	ln2Cache = map[uint]*big.Float{}
)

// ln2 returns log 2 = 2 atanh(1/3).
func (r bigRef) ln2() *big.Float {
	ln2Mu.Lock()
	defer ln2Mu.Unlock()
	if v, ok := ln2Cache[r.prec]; ok {
		return v
	}
	w := r.w()
	third := w.quo(w.f(1), w.f(3))
	v := r.round(w.mul(w.f(2), w.atanh(third)))
	ln2Cache[r.prec] = v
	return v
}

// log returns the natural logarithm of x ≥ 0 (−Inf at 0, +Inf at +Inf).
func (r bigRef) log(x *big.Float) *big.Float {
	switch {
	case x.Sign() < 0:
		panic(fmt.Sprintf("bigRef.log of negative %v", x))
	case x.Sign() == 0:
		return r.z().SetInf(true)
	case x.IsInf():
		return r.z().SetInf(false)
	}
	w := r.w()
	m := w.z()
	e := x.MantExp(m) // x = m·2^e, m ∈ [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	t := w.quo(w.addf(m, -1), w.addf(m, 1)) // |t| ≤ 0.1716
	s := w.mul(w.f(2), w.atanh(t))
	if e != 0 {
		s = w.add(s, w.mul(w.f(float64(e)), w.w().ln2()))
	}
	return r.round(s)
}

// exp returns e^x for |x| ≤ 1e8 (the exponent range of big.Float is ±2^31).
func (r bigRef) exp(x *big.Float) *big.Float {
	if x.IsInf() {
		if x.Sign() > 0 {
			return r.z().SetInf(false)
		}
		return r.z()
	}
	xf, _ := x.Float64()
	if math.Abs(xf) > 1e8 {
		panic(fmt.Sprintf("bigRef.exp(%g): argument out of range", xf))
	}
	if x.Sign() == 0 {
		return r.f(1)
	}
	// |k| < 2^28: 32 more guard bits keep x − k·log 2 exact to the working precision.
	w := bigRef{r.prec + guard + 32}
	k := math.Round(xf / math.Ln2)
	y := w.sub(x, w.mul(w.f(k), w.ln2()))
	const s = 10
	y.SetMantExp(y, -s)
	sum, term := w.f(1), w.f(1)
	for n := 1; ; n++ {
		term = w.quo(w.mul(term, y), w.f(float64(n)))
		sum = w.add(sum, term)
		if w.negligible(term, sum) {
			break
		}
	}
	for i := 0; i < s; i++ { // squaring s times loses at most s bits of the guard
		sum = w.mul(sum, sum)
	}
	sum.SetMantExp(sum, int(k))
	return r.round(sum)
}

// expm1 returns e^x − 1 with full relative precision near 0.
func (r bigRef) expm1(x *big.Float) *big.Float {
	w := r.w()
	if x.IsInf() || x.Sign() == 0 || x.CmpAbs(big.NewFloat(0.5)) >= 0 {
		return r.round(w.addf(w.exp(x), -1))
	}
	sum := w.round(x)
	term := w.round(x)
	for n := 2; ; n++ {
		term = w.quo(w.mul(term, x), w.f(float64(n)))
		sum = w.add(sum, term)
		if w.negligible(term, sum) {
			break
		}
	}
	return r.round(sum)
}

// log1p returns log(1 + x) with full relative precision near 0, x > −1.
func (r bigRef) log1p(x *big.Float) *big.Float {
	w := r.w()
	if x.IsInf() || x.CmpAbs(big.NewFloat(0.5)) > 0 {
		// For x ∈ (−1, −1/2) the sum 1 + x is exact when the working precision
		// covers x's bits; refValue raises the precision otherwise.
		return r.round(w.log(w.addf(x, 1)))
	}
	t := w.quo(x, w.addf(x, 2))
	return r.round(w.mul(w.f(2), w.atanh(t)))
}

// softplus returns log(1 + e^x). For x > 1e5 it returns x: the difference
// log1p(e^{−x}) < e^{−1e5} is below 2^{−140000} relative.
func (r bigRef) softplus(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.round(x)
	}
	return r.log1p(r.w().exp(x))
}

// logExpm1 returns log(e^x − 1) for x > 0. For x > 1e5 it returns x: the
// difference |log1p(−e^{−x})| < 2e^{−1e5} is below 2^{−140000} relative.
func (r bigRef) logExpm1(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.round(x)
	}
	return r.log(r.w().expm1(x))
}

// refAgree is the relative agreement of two successive precisions that
// refValue accepts: 2^{−100}, 47 bits beyond float64's 53.
const refAgree = -100

// refValue evaluates eval at increasing precision until two successive
// results agree to 2^{−100} relative and returns the last one rounded to
// float64 (correctly rounded, including to subnormals, 0 and ±Inf).
func refValue(eval func(r bigRef) *big.Float) float64 {
	prev := eval(bigRef{256})
	for p := uint(512); p <= 1<<14; p *= 2 {
		cur := eval(bigRef{p})
		if bigAgree(prev, cur) {
			v, _ := cur.Float64()
			return v
		}
		prev = cur
	}
	panic("reference did not converge at 16384 bits")
}

func bigAgree(a, b *big.Float) bool {
	if a.IsInf() || b.IsInf() {
		return a.IsInf() && b.IsInf() && a.Sign() == b.Sign()
	}
	if b.Sign() == 0 {
		return a.Sign() == 0
	}
	d := new(big.Float).SetPrec(b.Prec()).Sub(a, b)
	return d.Sign() == 0 || d.MantExp(nil) < b.MantExp(nil)+refAgree
}

// refFunc is a function evaluated in big arithmetic at r's precision.
type refFunc func(r bigRef, x *big.Float) *big.Float

// ref returns F(x) rounded to float64.
func ref(F refFunc, x float64) float64 {
	return refValue(func(r bigRef) *big.Float { return F(r, r.f(x)) })
}

// sensitivity returns |x·F′(x)| to a few digits: the change of F(x) per unit
// relative change of x, i.e. the error of F(x) that a perturbation of x by
// one rounding (relative ε) causes. It is the symmetric difference quotient
// with relative step h = 2^{−80}, far below the gaps between float64 test
// points, so it never straddles the kink of PolyTail at β unless x = β.
func sensitivity(F refFunc, x float64) float64 {
	if x == 0 {
		return 0
	}
	v := refValue(func(r bigRef) *big.Float {
		xb := r.f(x)
		d := r.mul(xb, r.z().SetMantExp(r.f(1), -80))
		hi := F(r, r.add(xb, d))
		lo := F(r, r.sub(xb, d))
		if hi.IsInf() || lo.IsInf() {
			return r.z().SetInf(false)
		}
		q := r.sub(hi, lo)
		q.SetMantExp(q, 79) // ÷ 2h
		return q
	})
	return math.Abs(v)
}

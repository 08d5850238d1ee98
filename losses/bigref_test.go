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

func (r bigRef) w() bigRef                               { return bigRef{r.prec + guard} }
func (r bigRef) z() *big.Float                           { return new(big.Float).SetPrec(r.prec) }
func (r bigRef) f(x float64) *big.Float                  { return r.z().SetFloat64(x) }
func (r bigRef) round(x *big.Float) *big.Float           { return r.z().Set(x) }
func (r bigRef) add(a, b *big.Float) *big.Float          { return r.z().Add(a, b) }
func (r bigRef) sub(a, b *big.Float) *big.Float          { return r.z().Sub(a, b) }
func (r bigRef) mul(a, b *big.Float) *big.Float          { return r.z().Mul(a, b) }
func (r bigRef) quo(a, b *big.Float) *big.Float          { return r.z().Quo(a, b) }
func (r bigRef) neg(a *big.Float) *big.Float             { return r.z().Neg(a) }
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

// absCmp compares |x| with c.
func absCmp(x *big.Float, c float64) int { return new(big.Float).Abs(x).Cmp(big.NewFloat(c)) }

// expm1 returns e^x − 1 with full relative precision near 0.
func (r bigRef) expm1(x *big.Float) *big.Float {
	w := r.w()
	if x.IsInf() || x.Sign() == 0 || absCmp(x, 0.5) >= 0 {
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
	if x.IsInf() || absCmp(x, 0.5) > 0 {
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

// onePlusExp returns 1 + e^x. For x < −1e5 it returns 1: the difference
// e^x < e^{−1e5} is below 2^{−140000}.
func (r bigRef) onePlusExp(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(-1e5)) < 0 {
		return r.f(1)
	}
	return r.addf(r.w().exp(x), 1)
}

// logExpm1 returns log(e^x − 1) for x > 0. For x > 1e5 it returns x: the
// difference |log1p(−e^{−x})| < 2e^{−1e5} is below 2^{−140000} relative.
func (r bigRef) logExpm1(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.round(x)
	}
	return r.log(r.w().expm1(x))
}

// exactSum returns Σ xs exactly: 2200 bits hold any sum of a few float64s,
// whose binary digits span at most 2^1024 … 2^−1074.
func exactSum(xs ...float64) *big.Float {
	s := new(big.Float).SetPrec(2200)
	for _, x := range xs {
		s.Add(s, big.NewFloat(x))
	}
	return s
}

// refAgree is the relative agreement of two successive precisions that
// refValue accepts: 2^{−100}, 47 bits beyond float64's 53.
const refAgree = -100

// refValue evaluates eval at increasing precision until two successive
// results agree to 2^{−100} relative and returns the last one rounded to
// float64 (correctly rounded, including to subnormals, 0 and ±Inf).
//
// A result of exactly 0 is accepted only once it has stayed 0 up to 4096
// bits: a cancellation that the working precision cannot resolve (two equal
// roundings of log 2 + 5e-301 and log 2) gives 0 at every low precision.
func refValue(eval func(r bigRef) *big.Float) float64 {
	prev := eval(bigRef{256})
	for p := uint(512); p <= 1<<14; p *= 2 {
		cur := eval(bigRef{p})
		if bigAgree(prev, cur) && (cur.Sign() != 0 || p >= 4096) {
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

// refFunc is a function of one real evaluated at r's precision.
type refFunc func(r bigRef, x *big.Float) *big.Float

// refFuncN is a function of several reals evaluated at r's precision.
type refFuncN func(r bigRef, x []*big.Float) *big.Float

func (F refFunc) n() refFuncN {
	return func(r bigRef, x []*big.Float) *big.Float { return F(r, x[0]) }
}

// ref returns F(x) rounded to float64.
func ref(F refFunc, x float64) float64 { return refN(F.n(), x) }

// refN returns F(x...) rounded to float64.
func refN(F refFuncN, x ...float64) float64 {
	return refValue(func(r bigRef) *big.Float { return F(r, r.fs(x)) })
}

func (r bigRef) fs(x []float64) []*big.Float {
	b := make([]*big.Float, len(x))
	for i, v := range x {
		b[i] = r.f(v)
	}
	return b
}

// sensitivity returns |x·F′(x)| to a few digits: the change of F(x) caused by
// a unit relative change of x, so that ε·sensitivity is the error that one
// rounding of the input (relative ε) causes in F. Any formula that is
// backward stable (exact for inputs perturbed by a few ε) has an error of a
// few ε·(|F| + sensitivity), which is the scale of the tests' tolerances.
func sensitivity(F refFunc, x float64) float64 { return sensitivityN(F.n(), x) }

// sensitivityN returns Σ_i |x_i·∂F/∂x_i|, each term a symmetric difference
// quotient with relative step h = 2^{−80}: far below the gaps between float64
// test points, so it never straddles the kink of PolyTail at β unless x = β.
func sensitivityN(F refFuncN, x ...float64) float64 {
	var s float64
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		v := refValue(func(r bigRef) *big.Float {
			hi, lo := r.fs(x), r.fs(x)
			d := r.mul(hi[i], r.z().SetMantExp(r.f(1), -80))
			hi[i] = r.add(hi[i], d)
			lo[i] = r.sub(lo[i], d)
			fh, fl := F(r, hi), F(r, lo)
			if fh.IsInf() || fl.IsInf() {
				return r.z().SetInf(false)
			}
			q := r.sub(fh, fl)
			q.SetMantExp(q, 79) // ÷ 2h
			return q
		})
		s += math.Abs(v)
	}
	return s
}

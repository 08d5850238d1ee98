// Package bigref computes high-precision reference values for the tests of
// the engine packages (losses, numerics): it is a normal package so that both
// can share it, and nothing outside tests imports it.
//
// Every reference value is computed from the definition of the function being
// tested, in math/big arithmetic: nothing is copied from another program. The
// elementary functions are implemented from their series with argument
// reduction:
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
// Value evaluates a reference at 256, 512, 1024, … bits until two successive
// precisions agree to 2^{−100} relative, so a formula that cancels (for
// example ℓ_left(q) − 1 = log(1+e^{−q}) − log(1+e^{−β}) near q = β, which
// loses about log₂(1/|q − β|) bits) gets the precision it needs
// automatically, and a test can write each reference the way the paper
// defines it.
//
// compare.go holds the comparison helpers (errors in units of
// ε·(|F| + sensitivity), grids of test points) that go with the references.
package bigref

import (
	"fmt"
	"math"
	"math/big"
	"sync"
)

// Ref is a precision in bits; its methods return values of that precision.
type Ref struct{ Prec uint }

// guard is the number of extra bits each elementary function works with.
const guard = 64

// W returns r with the guard bits added: the working precision of r's
// elementary functions.
func (r Ref) W() Ref { return Ref{r.Prec + guard} }

// Z returns a zero of r's precision; F, Round and the arithmetic below
// return results of r's precision.
func (r Ref) Z() *big.Float                           { return new(big.Float).SetPrec(r.Prec) }
func (r Ref) F(x float64) *big.Float                  { return r.Z().SetFloat64(x) }
func (r Ref) Round(x *big.Float) *big.Float           { return r.Z().Set(x) }
func (r Ref) Add(a, b *big.Float) *big.Float          { return r.Z().Add(a, b) }
func (r Ref) Sub(a, b *big.Float) *big.Float          { return r.Z().Sub(a, b) }
func (r Ref) Mul(a, b *big.Float) *big.Float          { return r.Z().Mul(a, b) }
func (r Ref) Quo(a, b *big.Float) *big.Float          { return r.Z().Quo(a, b) }
func (r Ref) Neg(a *big.Float) *big.Float             { return r.Z().Neg(a) }
func (r Ref) AddF(a *big.Float, b float64) *big.Float { return r.Add(a, r.F(b)) }

// negligible reports whether term is below 2^{−(Prec+4)}·|sum|.
func (r Ref) negligible(term, sum *big.Float) bool {
	if term.Sign() == 0 {
		return true
	}
	if sum.Sign() == 0 {
		return false
	}
	return term.MantExp(nil) < sum.MantExp(nil)-int(r.Prec)-4
}

// Atanh returns Σ t^{2k+1}/(2k+1) for |t| ≤ 1/2.
func (r Ref) Atanh(t *big.Float) *big.Float {
	w := r.W()
	if t.Sign() == 0 {
		return r.Z()
	}
	t2 := w.Mul(t, t)
	term := w.Round(t)
	sum := w.Round(t)
	for k := 1; ; k++ {
		term = w.Mul(term, t2)
		d := w.Quo(term, w.F(float64(2*k+1)))
		sum = w.Add(sum, d)
		if w.negligible(d, sum) {
			break
		}
	}
	return r.Round(sum)
}

var (
	ln2Mu    sync.Mutex
	ln2Cache = map[uint]*big.Float{}
)

// Ln2 returns log 2 = 2 atanh(1/3).
func (r Ref) Ln2() *big.Float {
	ln2Mu.Lock()
	defer ln2Mu.Unlock()
	if v, ok := ln2Cache[r.Prec]; ok {
		return v
	}
	w := r.W()
	third := w.Quo(w.F(1), w.F(3))
	v := r.Round(w.Mul(w.F(2), w.Atanh(third)))
	ln2Cache[r.Prec] = v
	return v
}

// Log returns the natural logarithm of x ≥ 0 (−Inf at 0, +Inf at +Inf).
func (r Ref) Log(x *big.Float) *big.Float {
	switch {
	case x.Sign() < 0:
		panic(fmt.Sprintf("Ref.log of negative %v", x))
	case x.Sign() == 0:
		return r.Z().SetInf(true)
	case x.IsInf():
		return r.Z().SetInf(false)
	}
	w := r.W()
	m := w.Z()
	e := x.MantExp(m) // x = m·2^e, m ∈ [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	t := w.Quo(w.AddF(m, -1), w.AddF(m, 1)) // |t| ≤ 0.1716
	s := w.Mul(w.F(2), w.Atanh(t))
	if e != 0 {
		s = w.Add(s, w.Mul(w.F(float64(e)), w.W().Ln2()))
	}
	return r.Round(s)
}

// Exp returns e^x for |x| ≤ 1e8 (the exponent range of big.Float is ±2^31).
func (r Ref) Exp(x *big.Float) *big.Float {
	if x.IsInf() {
		if x.Sign() > 0 {
			return r.Z().SetInf(false)
		}
		return r.Z()
	}
	xf, _ := x.Float64()
	if math.Abs(xf) > 1e8 {
		panic(fmt.Sprintf("Ref.exp(%g): argument out of range", xf))
	}
	if x.Sign() == 0 {
		return r.F(1)
	}
	// |k| < 2^28: 32 more guard bits keep x − k·log 2 exact to the working precision.
	w := Ref{r.Prec + guard + 32}
	k := math.Round(xf / math.Ln2)
	y := w.Sub(x, w.Mul(w.F(k), w.Ln2()))
	const s = 10
	y.SetMantExp(y, -s)
	sum, term := w.F(1), w.F(1)
	for n := 1; ; n++ {
		term = w.Quo(w.Mul(term, y), w.F(float64(n)))
		sum = w.Add(sum, term)
		if w.negligible(term, sum) {
			break
		}
	}
	for i := 0; i < s; i++ { // squaring s times loses at most s bits of the guard
		sum = w.Mul(sum, sum)
	}
	sum.SetMantExp(sum, int(k))
	return r.Round(sum)
}

// AbsCmp compares |x| with c.
func AbsCmp(x *big.Float, c float64) int { return new(big.Float).Abs(x).Cmp(big.NewFloat(c)) }

// Expm1 returns e^x − 1 with full relative precision near 0.
func (r Ref) Expm1(x *big.Float) *big.Float {
	w := r.W()
	if x.IsInf() || x.Sign() == 0 || AbsCmp(x, 0.5) >= 0 {
		return r.Round(w.AddF(w.Exp(x), -1))
	}
	sum := w.Round(x)
	term := w.Round(x)
	for n := 2; ; n++ {
		term = w.Quo(w.Mul(term, x), w.F(float64(n)))
		sum = w.Add(sum, term)
		if w.negligible(term, sum) {
			break
		}
	}
	return r.Round(sum)
}

// Log1p returns log(1 + x) with full relative precision near 0, x > −1.
func (r Ref) Log1p(x *big.Float) *big.Float {
	w := r.W()
	if x.IsInf() || AbsCmp(x, 0.5) > 0 {
		// For x ∈ (−1, −1/2) the sum 1 + x is exact when the working precision
		// covers x's bits; Value raises the precision otherwise.
		return r.Round(w.Log(w.AddF(x, 1)))
	}
	t := w.Quo(x, w.AddF(x, 2))
	return r.Round(w.Mul(w.F(2), w.Atanh(t)))
}

// Softplus returns log(1 + e^x). For x > 1e5 it returns x: the difference
// log1p(e^{−x}) < e^{−1e5} is below 2^{−140000} relative.
func (r Ref) Softplus(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.Round(x)
	}
	return r.Log1p(r.W().Exp(x))
}

// OnePlusExp returns 1 + e^x. For x < −1e5 it returns 1: the difference
// e^x < e^{−1e5} is below 2^{−140000}.
func (r Ref) OnePlusExp(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(-1e5)) < 0 {
		return r.F(1)
	}
	return r.AddF(r.W().Exp(x), 1)
}

// LogExpm1 returns log(e^x − 1) for x > 0. For x > 1e5 it returns x: the
// difference |log1p(−e^{−x})| < 2e^{−1e5} is below 2^{−140000} relative.
func (r Ref) LogExpm1(x *big.Float) *big.Float {
	if x.Cmp(big.NewFloat(1e5)) > 0 {
		return r.Round(x)
	}
	return r.Log(r.W().Expm1(x))
}

// ExactSum returns Σ xs exactly: 2200 bits hold any sum of a few float64s,
// whose binary digits span at most 2^1024 … 2^−1074.
func ExactSum(xs ...float64) *big.Float {
	s := new(big.Float).SetPrec(2200)
	for _, x := range xs {
		s.Add(s, big.NewFloat(x))
	}
	return s
}

// agreeExp is the relative agreement of two successive precisions that
// Value accepts: 2^{−100}, 47 bits beyond float64's 53.
const agreeExp = -100

// Value evaluates eval at increasing precision until two successive
// results agree to 2^{−100} relative and returns the last one rounded to
// float64 (correctly rounded, including to subnormals, 0 and ±Inf).
//
// A result of exactly 0 is accepted only once it has stayed 0 up to 4096
// bits: a cancellation that the working precision cannot resolve (two equal
// roundings of log 2 + 5e-301 and log 2) gives 0 at every low precision.
func Value(eval func(r Ref) *big.Float) float64 {
	prev := eval(Ref{256})
	for p := uint(512); p <= 1<<14; p *= 2 {
		cur := eval(Ref{p})
		if Agree(prev, cur) && (cur.Sign() != 0 || p >= 4096) {
			v, _ := cur.Float64()
			return v
		}
		prev = cur
	}
	panic("reference did not converge at 16384 bits")
}

// Agree reports whether two evaluations of a reference at successive
// precisions agree to 2^{−100} relative (infinities: same sign).
func Agree(a, b *big.Float) bool {
	if a.IsInf() || b.IsInf() {
		return a.IsInf() && b.IsInf() && a.Sign() == b.Sign()
	}
	if b.Sign() == 0 {
		return a.Sign() == 0
	}
	d := new(big.Float).SetPrec(b.Prec()).Sub(a, b)
	return d.Sign() == 0 || d.MantExp(nil) < b.MantExp(nil)+agreeExp
}

// Func is a function of one real evaluated at r's precision.
type Func func(r Ref, x *big.Float) *big.Float

// FuncN is a function of several reals evaluated at r's precision.
type FuncN func(r Ref, x []*big.Float) *big.Float

func (F Func) n() FuncN {
	return func(r Ref, x []*big.Float) *big.Float { return F(r, x[0]) }
}

// At returns F(x) rounded to float64.
func At(F Func, x float64) float64 { return AtN(F.n(), x) }

// AtN returns F(x...) rounded to float64.
func AtN(F FuncN, x ...float64) float64 {
	return Value(func(r Ref) *big.Float { return F(r, r.Fs(x)) })
}

// Fs converts x to big floats of r's precision.
func (r Ref) Fs(x []float64) []*big.Float {
	b := make([]*big.Float, len(x))
	for i, v := range x {
		b[i] = r.F(v)
	}
	return b
}

// Sensitivity returns |x·F′(x)| to a few digits: the change of F(x) caused by
// a unit relative change of x, so that ε·Sensitivity is the error that one
// rounding of the input (relative ε) causes in F. Any formula that is
// backward stable (exact for inputs perturbed by a few ε) has an error of a
// few ε·(|F| + Sensitivity), which is the scale of the tests' tolerances.
func Sensitivity(F Func, x float64) float64 { return SensitivityN(F.n(), x) }

// SensitivityN returns Σ_i |x_i·∂F/∂x_i|, each term a symmetric difference
// quotient with relative step h = 2^{−80}: far below the gaps between float64
// test points, so it never straddles the kink of PolyTail at β unless x = β.
func SensitivityN(F FuncN, x ...float64) float64 {
	var s float64
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		v := Value(func(r Ref) *big.Float {
			hi, lo := r.Fs(x), r.Fs(x)
			d := r.Mul(hi[i], r.Z().SetMantExp(r.F(1), -80))
			hi[i] = r.Add(hi[i], d)
			lo[i] = r.Sub(lo[i], d)
			fh, fl := F(r, hi), F(r, lo)
			if fh.IsInf() || fl.IsInf() {
				return r.Z().SetInf(false)
			}
			q := r.Sub(fh, fl)
			q.SetMantExp(q, 79) // ÷ 2h
			return q
		})
		s += math.Abs(v)
	}
	return s
}

package losses

// References for the margin losses, written from their definitions (LL Remarks
// A.1, A.2; ZD eq. (19) with App. C's ℓ_left) in the big arithmetic of
// internal/bigref. Sums of float64 inputs (q − β + 1) are formed exactly;
// everything else relies on bigref.Value raising the precision where a formula
// cancels.

import (
	"math/big"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// marginRef holds the references of one margin loss.
type marginRef struct {
	logLoss, f, fPrime, g, gPrime bigref.Func
}

// Logistic, LL Remark A.2: ℓ(q) = log(1 + e^{−q}).
var logisticRef = marginRef{
	logLoss: func(r bigref.Ref, q *big.Float) *big.Float {
		return r.Log(r.Softplus(r.Neg(q)))
	},
	f: func(r bigref.Ref, q *big.Float) *big.Float {
		return r.Neg(r.Log(r.Softplus(r.Neg(q))))
	},
	// f′(q) = e^{−q} / ((1 + e^{−q}) log(1 + e^{−q})).
	fPrime: logisticFPrime,
	// g(u) = −log(e^{e^{−u}} − 1).
	g: logisticG,
	// g′(u) = 1/f′(g(u)), the derivative of the inverse by definition. (LL
	// Remark A.2 prints e^{−u}/(e^{e^{−u}} − 1), which is not g′: see
	// Logistic.GPrime and TestLogisticInverse.)
	gPrime: func(r bigref.Ref, u *big.Float) *big.Float {
		w := r.W()
		return r.Quo(r.F(1), logisticFPrime(w, logisticG(w, u)))
	},
}

func logisticFPrime(r bigref.Ref, q *big.Float) *big.Float {
	w := r.W()
	if q.Cmp(big.NewFloat(-1e5)) < 0 {
		// With s = e^q < e^{−1e5}: f′ = 1/((1 + s)(−q + log1p(s))) = 1/(−q)
		// to a relative 2s, far below the working precision.
		return r.Quo(r.F(1), r.Neg(q))
	}
	t := w.Exp(w.Neg(q))
	return r.Quo(t, w.Mul(w.AddF(t, 1), w.Log1p(t)))
}

func logisticG(r bigref.Ref, u *big.Float) *big.Float {
	w := r.W()
	return r.Neg(w.LogExpm1(w.Exp(w.Neg(u))))
}

// polyTailRef returns the references of ZD eq. (19) with parameters α, β and
// ℓ_left(q) = log(1 + e^{−q}) − log(1 + e^{−β}) + 1:
//
//	ℓ(q) = ℓ_left(q) for q < β,  ℓ(q) = (q − β + 1)^{−α} for q ≥ β.
func polyTailRef(alpha, beta float64) marginRef {
	// ℓ_left(q), formed as written: a difference of two softplus values plus 1.
	left := func(r bigref.Ref, q *big.Float) *big.Float {
		w := r.W()
		d := w.Sub(w.Softplus(w.Neg(q)), w.Softplus(w.F(-beta)))
		return r.AddF(d, 1)
	}
	isLeft := func(q *big.Float) bool { return q.Cmp(big.NewFloat(beta)) < 0 }
	// shifted returns q − β + 1 exactly (q is exact at any precision ≥ 53 bits).
	shifted := func(q *big.Float) *big.Float {
		s := new(big.Float).SetPrec(2200).Sub(q, big.NewFloat(beta))
		return s.Add(s, big.NewFloat(1))
	}
	logLoss := func(r bigref.Ref, q *big.Float) *big.Float {
		w := r.W()
		if isLeft(q) {
			return r.Log(left(w, q))
		}
		return r.Mul(r.F(-alpha), w.Log(shifted(q)))
	}
	// f′(q) = σ(−q)/ℓ_left(q) on the left, α/(q − β + 1) on the right (the
	// right derivative at β).
	fPrimeLeft := func(r bigref.Ref, q *big.Float) *big.Float {
		w := r.W()
		return r.Quo(w.F(1), w.Mul(w.OnePlusExp(q), left(w, q)))
	}
	fPrimeRight := func(r bigref.Ref, q *big.Float) *big.Float {
		return r.Quo(r.F(alpha), shifted(q))
	}
	fPrime := func(r bigref.Ref, q *big.Float) *big.Float {
		if isLeft(q) {
			return fPrimeLeft(r, q)
		}
		return fPrimeRight(r, q)
	}
	// g solves f(q) = u. Right branch (u ≥ 0 = f(β)): q = e^{u/α} + β − 1.
	// Left branch: log(1 + e^{−q}) = e^{−u} − 1 + log(1 + e^{−β}) =: v, so
	// q = −log(e^v − 1).
	g := func(r bigref.Ref, u *big.Float) *big.Float {
		w := r.W()
		if u.Sign() >= 0 {
			e := w.Exp(w.Quo(u, w.F(alpha)))
			return r.Add(e, bigref.ExactSum(beta, -1))
		}
		v := w.Add(w.AddF(w.Exp(w.Neg(u)), -1), w.Softplus(w.F(-beta)))
		return r.Neg(w.LogExpm1(v))
	}
	return marginRef{
		logLoss: logLoss,
		f:       func(r bigref.Ref, q *big.Float) *big.Float { return r.Neg(logLoss(r, q)) },
		fPrime:  fPrime,
		g:       g,
		// g′(u) = 1/f′(g(u)), with f′ of the branch that g(u) lies on: the
		// left one for u < 0 (f < 0 exactly on q < β). Choosing the branch
		// by the sign of u, not of g(u) − β, matters for tiny u < 0, where
		// g(u) = β − (1 + e^β)|u| may round to β at the working precision.
		gPrime: func(r bigref.Ref, u *big.Float) *big.Float {
			w := r.W()
			if u.Sign() < 0 {
				return r.Quo(r.F(1), fPrimeLeft(w, g(w, u)))
			}
			return r.Quo(r.F(1), fPrimeRight(w, g(w, u)))
		},
	}
}

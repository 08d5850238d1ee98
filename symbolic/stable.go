package symbolic

import (
	"math"
)

// Normalize rebuilds n with the simplifying constructors and the rewrites
// that name the stable primitives:
//
//	log(1 + X)          → log1p(X)
//	log1p(exp(x))       → softplus(x)
//	exp(x) − 1          → expm1(x)
//	1/(1 + exp(−x))     → sigmoid(x)
//
// It keeps the value of n wherever n is defined (it may extend the domain:
// the guards of a formula are read before normalizing).
func Normalize(n *Node) *Node {
	if n == nil {
		return nil
	}
	switch n.Op {
	case OpConst, OpVar:
		return n
	case OpIf:
		return If(n.Cmp, Normalize(n.T), Normalize(n.A), Normalize(n.B))
	}
	a, b := Normalize(n.A), Normalize(n.B)
	switch n.Op {
	case OpAdd:
		s := Add(a, b) // constants end up on the right
		if s.Op == OpAdd && s.A.Op == OpExp && s.B.isConst(-1) {
			return Expm1(s.A.A)
		}
		return s
	case OpMul:
		return Mul(a, b)
	case OpDiv:
		// 1/(1 + exp(−x)) = sigmoid(x).
		if a.isConst(1) && b.Op == OpAdd && b.A.Op == OpExp && b.B.isConst(1) {
			return Sigmoid(Neg(b.A.A))
		}
		return Div(a, b)
	case OpPow:
		return Pow(a, b)
	case OpNeg:
		return Neg(a)
	case OpExp:
		return Exp(a)
	case OpLog:
		if r, rest := splitRational(a); r == 1 && rest != nil {
			return Normalize(Log1p(rest))
		}
		return Log(a)
	case OpLog1p:
		if a.Op == OpExp {
			return Softplus(a.A)
		}
		return Log1p(a)
	case OpExpm1:
		return Expm1(a)
	case OpSqrt:
		return Sqrt(a)
	case OpAbs:
		return Abs(a)
	case OpSign:
		return Sign(a)
	case OpSoftplus:
		return Softplus(a)
	case OpSigmoid:
		return Sigmoid(a)
	case OpLogSoftplus:
		return LogSoftplus(a)
	case OpDLogSoftplus:
		return DLogSoftplus(a)
	case OpLogExpm1:
		return LogExpm1(a)
	case OpLAE:
		return LAE(a, b)
	case OpLogAddExp:
		return LogAddExp(a, b)
	}
	return n
}

// terms flattens a sum into its terms (a − b gives the term −b).
func terms(n *Node) []*Node {
	if n.Op != OpAdd {
		return []*Node{n}
	}
	return append(terms(n.A), terms(n.B)...)
}

// sumOf rebuilds a sum from terms (nil for none).
func sumOf(ts []*Node) *Node {
	var s *Node
	for _, t := range ts {
		if s == nil {
			s = t
		} else {
			s = Add(s, t)
		}
	}
	return s
}

// splitRational splits a sum into the sum r of its literal constant terms
// and the sum of the other terms (nil if there are none). A sum with a
// non-exact constant part reports r = NaN.
func splitRational(n *Node) (r float64, rest *Node) {
	var others []*Node
	for _, t := range terms(n) {
		if c, ok := t.constVal(); ok {
			s, exact := exactSum(r, c)
			if !exact {
				return math.NaN(), n
			}
			r = s
			continue
		}
		others = append(others, t)
	}
	return r, sumOf(others)
}

// constInterval returns an enclosure of a constant expression.
func constInterval(n *Node) Interval {
	p, err := compile(n)
	if err != nil {
		return unknown()
	}
	return p.EvalInterval(Point(0))
}

// signs are the signs of an expression that its structure proves for every
// q where it is defined: > 0, < 0, ≥ 0, ≤ 0.
type signs struct{ pos, neg, nn, np bool }

// signOf derives the signs of n bottom-up, visiting each node once.
func signOf(n *Node) signs {
	if !n.hasVar {
		iv := constInterval(n) // NaN bounds compare false: nothing proved
		return signs{iv.Lo > 0, iv.Hi < 0, iv.Lo >= 0, iv.Hi <= 0}
	}
	switch n.Op {
	case OpExp, OpSoftplus, OpSigmoid, OpDLogSoftplus:
		return signs{pos: true, nn: true}
	case OpAbs:
		a := signOf(n.A)
		return signs{pos: a.pos || a.neg, nn: true}
	case OpSqrt:
		return signs{pos: signOf(n.A).pos, nn: true}
	case OpNeg:
		a := signOf(n.A)
		return signs{a.neg, a.pos, a.np, a.nn}
	case OpMul, OpDiv:
		a, b := signOf(n.A), signOf(n.B)
		return signs{
			pos: a.pos && b.pos || a.neg && b.neg,
			neg: a.pos && b.neg || a.neg && b.pos,
			nn:  a.nn && b.nn || a.np && b.np,
			np:  a.nn && b.np || a.np && b.nn,
		}
	case OpAdd:
		a, b := signOf(n.A), signOf(n.B)
		return signs{
			pos: a.pos && b.nn || a.nn && b.pos,
			neg: a.neg && b.np || a.np && b.neg,
			nn:  a.nn && b.nn,
			np:  a.np && b.np,
		}
	case OpPow:
		a := signOf(n.A)
		if c, ok := n.B.constVal(); ok && c == math.Trunc(c) && math.Mod(c, 2) == 0 {
			return signs{pos: a.pos || a.neg, nn: true}
		}
		if c, ok := n.B.constVal(); ok && c == math.Trunc(c) {
			return a // an odd power keeps the sign
		}
		return signs{pos: a.pos, nn: a.nn}
	case OpLog1p, OpExpm1, OpLAE, OpSign:
		return signOf(n.A) // sign-preserving
	case OpLog:
		// log X > 0 when X = c + (non-negative terms) with c > 1, or c ≥ 1
		// and a positive term.
		r, rest := splitRational(n.A)
		if rest == nil || math.IsNaN(r) {
			return signs{}
		}
		rs := signOf(rest)
		p := r > 1 && rs.nn || r >= 1 && rs.pos
		return signs{pos: p, nn: p || r >= 1 && rs.nn}
	}
	return signs{}
}

// Positive reports whether n > 0 for every q where n is defined, from its
// structure alone (sums and products of exponentials, softpluses, positive
// constants, even powers of non-vanishing terms, …). False means "not
// shown", not "not positive".
func Positive(n *Node) bool { return signOf(n).pos }

func negative(n *Node) bool    { return signOf(n).neg }
func nonNegative(n *Node) bool { return signOf(n).nn }
func nonZero(n *Node) bool     { s := signOf(n); return s.pos || s.neg }

// StableLog returns an expression for log n, for n > 0 (the caller checks
// that, see Formula's guards: where n < 0 the expression may give log|n|).
// The log is pushed through n so that nothing underflows or cancels:
//
//	log eˣ = x,  log(a·b) = log a + log b,  log(a/b) = log a − log b,
//	log aᶜ = c·log a,  log √a = ½·log a,  log|a| = log(−a) = log a,
//	log log X = StableLog(StableLog(X)),
//	log log1p(X) = logsoftplus(log X),  log softplus(x) = logsoftplus(x),
//	log sigmoid(x) = −softplus(−x),  log expm1(x) = logexpm1(x)   (X, x > 0)
//
// and for a sum (see stableSumLog) log-sum-exp of positive terms, log1p of
// the rest when the constant part is 1, and softplus(x) − log c = lae(…).
func StableLog(n *Node) *Node {
	n = Normalize(n)
	return stableLog(n)
}

func stableLog(n *Node) *Node {
	if !n.hasVar {
		return Log(n)
	}
	switch n.Op {
	case OpExp:
		return n.A
	case OpMul:
		return Add(stableLog(n.A), stableLog(n.B))
	case OpDiv:
		return Sub(stableLog(n.A), stableLog(n.B))
	case OpNeg, OpAbs:
		return stableLog(n.A)
	case OpSqrt:
		return Mul(Const(0.5), stableLog(n.A))
	case OpPow:
		return Mul(n.B, stableLog(n.A))
	case OpLog:
		inner := stableLog(n.A)
		if inner.Op == OpLog {
			// No stable form for log X: log|log X| as written (recursing
			// would rewrite log X again).
			return Log(Abs(inner))
		}
		return stableLog(inner)
	case OpLog1p:
		if Positive(n.A) {
			return LogSoftplus(stableLog(n.A))
		}
	case OpSoftplus:
		return LogSoftplus(n.A)
	case OpSigmoid:
		return Neg(Softplus(Neg(n.A)))
	case OpExpm1:
		if Positive(n.A) {
			return LogExpm1(n.A)
		}
	case OpAdd:
		return stableSumLog(n)
	}
	return logAbs(n)
}

// logAbs returns log n when n is positive by structure, log|n| otherwise: a
// factor of a positive loss may be negative ((q − 1)² = (q − 1)·(q − 1)).
func logAbs(n *Node) *Node {
	if Positive(n) {
		return Log(n)
	}
	return Log(Abs(n))
}

// stableSumLog returns log of a sum s = r + R (r the literal constants):
//
//   - every term positive: log-sum-exp of the terms' logs; with r > 0,
//     log r + softplus(LSE − log r) (for r = 1: softplus(log X) = log(1 + X));
//   - r = 1: log1p(R), so that log ℓ keeps its relative precision where
//     ℓ ≈ 1; R = softplus(x) − log c (c > 1 a literal, k = (c−1)/c exact)
//     becomes lae(x − log(c−1), k), which does not cancel there either;
//   - otherwise log s as written.
func stableSumLog(s *Node) *Node {
	ts := terms(s)
	r, rest := splitRational(s)
	allPos := true
	for _, t := range ts {
		if !Positive(t) {
			allPos = false
			break
		}
	}
	if allPos && !math.IsNaN(r) {
		var lse *Node
		for _, t := range terms(rest) {
			if lse == nil {
				lse = stableLog(t)
			} else {
				lse = LogAddExp(lse, stableLog(t))
			}
		}
		if r == 0 {
			return lse
		}
		logR := Log(Const(r))
		return Add(logR, Softplus(Sub(lse, logR)))
	}
	if r == 1 && rest != nil {
		return Log1p(stableShiftedSoftplus(rest))
	}
	return logAbs(s)
}

// stableShiftedSoftplus rewrites softplus(x) − log c (c > 1 a literal with
// k = (c−1)/c exact) as lae(x − log(c−1), k) = log((1 + eˣ)/c), and returns
// other sums unchanged.
func stableShiftedSoftplus(n *Node) *Node {
	ts := terms(n)
	if len(ts) != 2 {
		return n
	}
	for i, sp := range ts {
		other := ts[1-i]
		if sp.Op != OpSoftplus || other.Op != OpNeg || other.A.Op != OpLog {
			continue
		}
		c, ok := other.A.A.constVal()
		if !ok || !(c > 1) {
			continue
		}
		cm1, exact1 := exactSum(c, -1)
		k, exact2 := exactQuo(cm1, c)
		if !exact1 || !exact2 || !(k >= 1e-10 && k < 1) {
			continue
		}
		return LAE(Sub(sp.A, Log(Const(cm1))), Const(k))
	}
	return n
}

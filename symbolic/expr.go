package symbolic

import (
	"math"
)

// Op is the operation of a Node.
type Op uint8

// Operations. The first group can be written in a formula; the second is
// internal: the stable primitives that Log and D produce.
const (
	OpConst Op = iota // Val
	OpVar             // q
	OpAdd             // A + B
	OpMul             // A · B
	OpDiv             // A / B
	OpPow             // A ^ B
	OpNeg             // −A
	OpExp             // e^A
	OpLog             // log A
	OpLog1p           // log(1 + A)
	OpExpm1           // e^A − 1
	OpSqrt            // √A
	OpAbs             // |A|

	OpSign         // sign A ∈ {−1, 0, 1}: the derivative of |A|
	OpSoftplus     // softplus(A) = log(1 + e^A)
	OpSigmoid      // sigmoid(A) = 1/(1 + e^{−A})
	OpLogSoftplus  // log softplus(A) = log log(1 + e^A)
	OpDLogSoftplus // sigmoid(A)/softplus(A), the derivative of logsoftplus
	OpLogExpm1     // log(e^A − 1), A > 0
	OpLAE          // lae(A, k) = log(1 − k + k e^A), k = B a constant in (0, 1)
	OpLogAddExp    // log(e^A + e^B)
	OpIf           // if q Cmp T then A else B (parsed; resolved into pieces)
	numOps
)

// Cmp is the comparison of a piecewise condition q Cmp T.
type Cmp uint8

// Comparisons.
const (
	Lt Cmp = iota // q < T
	Le            // q ≤ T
	Gt            // q > T
	Ge            // q ≥ T
)

func (c Cmp) String() string { return [...]string{"<", "<=", ">", ">="}[c] }

// holds reports whether q c t.
func (c Cmp) holds(q, t float64) bool {
	switch c {
	case Lt:
		return q < t
	case Le:
		return q <= t
	case Gt:
		return q > t
	}
	return q >= t
}

// Node is an immutable expression tree in the variable q.
type Node struct {
	Op   Op
	Val  float64 // OpConst
	A, B *Node
	T    *Node // OpIf: the threshold (a constant expression)
	Cmp  Cmp   // OpIf
	// Pos is the 1-based character position of the node in the formula it
	// was parsed from (0 for derived nodes): guard messages point there.
	Pos    int
	hasVar bool
}

// Nodes are built by the constructors below. Those named after an operation
// (Add, Mul, …) simplify on the way: constant folding when the result is
// exact, neutral elements, double negation, x − x, log(exp(a)), exp(log(a)).
// raw builds a node as written, for the parser: the guards of a formula
// (log of a non-positive number, division by zero) are read from the
// unsimplified tree, where 0/q still divides by q.

func raw(op Op, a, b *Node) *Node {
	n := &Node{Op: op, A: a, B: b}
	n.hasVar = (a != nil && a.hasVar) || (b != nil && b.hasVar)
	return n
}

// Const returns the constant v.
func Const(v float64) *Node { return &Node{Op: OpConst, Val: v} }

// Var returns q.
func Var() *Node { return &Node{Op: OpVar, hasVar: true} }

// HasVar reports whether n depends on q.
func (n *Node) HasVar() bool { return n.hasVar }

// isConst reports whether n is the constant leaf v.
func (n *Node) isConst(v float64) bool { return n.Op == OpConst && n.Val == v }

// constVal returns the value of a constant leaf.
func (n *Node) constVal() (float64, bool) {
	if n.Op == OpConst {
		return n.Val, true
	}
	return 0, false
}

// Equal reports whether a and b are the same expression (structurally;
// constants compared by value, positions ignored).
func Equal(a, b *Node) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Op != b.Op {
		return false
	}
	if a.Op == OpConst {
		return a.Val == b.Val || (math.IsNaN(a.Val) && math.IsNaN(b.Val))
	}
	if a.Op == OpIf && (a.Cmp != b.Cmp || !Equal(a.T, b.T)) {
		return false
	}
	return Equal(a.A, b.A) && Equal(a.B, b.B)
}

// exactSum returns a + b and whether it is exact (TwoSum error 0, finite).
func exactSum(a, b float64) (float64, bool) {
	s := a + b
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s, false
	}
	bb := s - a
	return s, (a-(s-bb))+(b-bb) == 0
}

// exactProd returns a·b and whether it is exact.
func exactProd(a, b float64) (float64, bool) {
	p := a * b
	if math.IsInf(p, 0) || math.IsNaN(p) {
		return p, false
	}
	if p == 0 {
		return p, a == 0 || b == 0
	}
	if math.Abs(p) < 0x1p-1022 {
		return p, false
	}
	return p, math.FMA(a, b, -p) == 0
}

// exactQuo returns a/b and whether it is exact.
func exactQuo(a, b float64) (float64, bool) {
	if b == 0 {
		return math.NaN(), false
	}
	d := a / b
	if math.IsInf(d, 0) || math.IsNaN(d) {
		return d, false
	}
	if d == 0 {
		return d, a == 0
	}
	if math.Abs(d) < 0x1p-1022 {
		return d, false
	}
	return d, math.FMA(-d, b, a) == 0
}

// Add returns a + b.
func Add(a, b *Node) *Node {
	if x, ok := a.constVal(); ok {
		if y, ok := b.constVal(); ok {
			if s, ok := exactSum(x, y); ok {
				return Const(s)
			}
		}
		if x == 0 {
			return b
		}
	}
	if b.isConst(0) {
		return a
	}
	if b.Op == OpNeg && Equal(a, b.A) || a.Op == OpNeg && Equal(a.A, b) {
		return Const(0)
	}
	// Keep constants on the right of a sum: c + x → x + c.
	if a.Op == OpConst && b.Op != OpConst {
		a, b = b, a
	}
	return raw(OpAdd, a, b)
}

// Sub returns a − b = a + (−b).
func Sub(a, b *Node) *Node { return Add(a, Neg(b)) }

// Neg returns −a.
func Neg(a *Node) *Node {
	switch {
	case a.Op == OpConst:
		return Const(-a.Val)
	case a.Op == OpNeg:
		return a.A
	case a.Op == OpMul && a.A.Op == OpConst:
		return Mul(Const(-a.A.Val), a.B)
	}
	return raw(OpNeg, a, nil)
}

// Mul returns a·b.
func Mul(a, b *Node) *Node {
	if b.Op == OpConst && a.Op != OpConst {
		a, b = b, a // constants first
	}
	if x, ok := a.constVal(); ok {
		if y, ok := b.constVal(); ok {
			if p, ok := exactProd(x, y); ok {
				return Const(p)
			}
		}
		switch x {
		case 0:
			return Const(0)
		case 1:
			return b
		case -1:
			return Neg(b)
		}
		if b.Op == OpMul && b.A.Op == OpConst {
			if p, ok := exactProd(x, b.A.Val); ok {
				return Mul(Const(p), b.B)
			}
		}
		if b.Op == OpNeg {
			return Mul(Const(-x), b.A)
		}
	}
	// Float constant factors to the front: x·(c·y) = c·(x·y), (c·x)·y = c·(x·y).
	if a.Op != OpConst && b.Op == OpMul && b.A.Op == OpConst {
		return Mul(b.A, Mul(a, b.B))
	}
	if a.Op == OpMul && a.A.Op == OpConst {
		return Mul(a.A, Mul(a.B, b))
	}
	if a.Op == OpNeg && b.Op == OpNeg {
		return Mul(a.A, b.A)
	}
	if a.Op == OpNeg {
		return Neg(Mul(a.A, b))
	}
	if b.Op == OpNeg {
		return Neg(Mul(a, b.A))
	}
	if Equal(a, b) {
		return Pow(a, Const(2))
	}
	return raw(OpMul, a, b)
}

// Div returns a/b.
func Div(a, b *Node) *Node {
	if y, ok := b.constVal(); ok {
		if x, ok := a.constVal(); ok {
			if d, ok := exactQuo(x, y); ok {
				return Const(d)
			}
		}
		if y == 1 {
			return a
		}
		if y == -1 {
			return Neg(a)
		}
	}
	if a.isConst(0) && !(b.Op == OpConst && b.Val == 0) {
		// 0/b = 0 wherever b ≠ 0 (the guards of a formula come from the
		// tree as written, which the parser builds without this rule).
		return Const(0)
	}
	if a.Op == OpNeg {
		return Neg(Div(a.A, b))
	}
	if b.Op == OpNeg {
		return Neg(Div(a, b.A))
	}
	if Equal(a, b) && !a.hasVar {
		return Const(1)
	}
	return raw(OpDiv, a, b)
}

// Pow returns a^b.
func Pow(a, b *Node) *Node {
	if y, ok := b.constVal(); ok {
		switch y {
		case 0:
			return Const(1)
		case 1:
			return a
		}
		if a.Op == OpPow {
			// (x^c)^y = x^{c·y} for an integer y (no sign is lost).
			if c, ok := a.B.constVal(); ok && y == math.Trunc(y) {
				if p, ok := exactProd(c, y); ok {
					return Pow(a.A, Const(p))
				}
			}
		}
	}
	if a.isConst(1) {
		return Const(1)
	}
	return raw(OpPow, a, b)
}

// Exp returns e^a.
func Exp(a *Node) *Node {
	if a.isConst(0) {
		return Const(1)
	}
	if a.Op == OpLog {
		return a.A
	}
	return raw(OpExp, a, nil)
}

// Log returns log a, as written. Use StableLog for the log of a loss.
func Log(a *Node) *Node {
	if a.isConst(1) {
		return Const(0)
	}
	if a.Op == OpExp {
		return a.A
	}
	return raw(OpLog, a, nil)
}

// Log1p returns log(1 + a).
func Log1p(a *Node) *Node {
	if a.isConst(0) {
		return Const(0)
	}
	if a.Op == OpExpm1 {
		return a.A
	}
	return raw(OpLog1p, a, nil)
}

// Expm1 returns e^a − 1.
func Expm1(a *Node) *Node {
	if a.isConst(0) {
		return Const(0)
	}
	if a.Op == OpLog1p {
		return a.A
	}
	return raw(OpExpm1, a, nil)
}

// Sqrt returns √a.
func Sqrt(a *Node) *Node {
	if a.isConst(0) || a.isConst(1) {
		return a
	}
	return raw(OpSqrt, a, nil)
}

// Abs returns |a|.
func Abs(a *Node) *Node {
	if x, ok := a.constVal(); ok {
		return Const(math.Abs(x))
	}
	if a.Op == OpAbs || a.Op == OpNeg && a.A.Op == OpAbs {
		return Abs(a.A)
	}
	return raw(OpAbs, a, nil)
}

// Sign returns sign a.
func Sign(a *Node) *Node {
	if x, ok := a.constVal(); ok && !math.IsNaN(x) {
		switch {
		case x > 0:
			return Const(1)
		case x < 0:
			return Const(-1)
		}
		return Const(0)
	}
	return raw(OpSign, a, nil)
}

// Softplus returns log(1 + e^a).
func Softplus(a *Node) *Node { return raw(OpSoftplus, a, nil) }

// Sigmoid returns 1/(1 + e^{−a}).
func Sigmoid(a *Node) *Node {
	if a.isConst(0) {
		return Const(0.5)
	}
	return raw(OpSigmoid, a, nil)
}

// LogSoftplus returns log log(1 + e^a).
func LogSoftplus(a *Node) *Node { return raw(OpLogSoftplus, a, nil) }

// DLogSoftplus returns sigmoid(a)/softplus(a).
func DLogSoftplus(a *Node) *Node { return raw(OpDLogSoftplus, a, nil) }

// LogExpm1 returns log(e^a − 1) (a > 0).
func LogExpm1(a *Node) *Node {
	if a.Op == OpSoftplus {
		return a.A
	}
	return raw(OpLogExpm1, a, nil)
}

// LAE returns log(1 − k + k e^a) for a constant k ∈ (0, 1]; k = 1 gives a.
func LAE(a, k *Node) *Node {
	if k.isConst(1) {
		return a
	}
	return raw(OpLAE, a, k)
}

// LogAddExp returns log(e^a + e^b).
func LogAddExp(a, b *Node) *Node { return raw(OpLogAddExp, a, b) }

// If returns if q cmp t then a else b.
func If(cmp Cmp, t, a, b *Node) *Node {
	n := raw(OpIf, a, b)
	n.T, n.Cmp = t, cmp
	n.hasVar = true // the condition reads q
	return n
}

// size returns the number of nodes of n.
func (n *Node) size() int {
	if n == nil {
		return 0
	}
	return 1 + n.A.size() + n.B.size() + n.T.size()
}

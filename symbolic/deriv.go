package symbolic

import (
	"fmt"
)

// D returns the derivative dn/dq, simplified. n must be free of piecewise
// conditions (resolve them first: a Formula's pieces are). The derivative of
// |u| is sign(u)·u′ (not defined at u = 0: a formula's guards report that
// point), and the derivatives of the stable primitives are again stable:
//
//	softplus′ = sigmoid                      sigmoid′(x) = sigmoid(x)·sigmoid(−x)
//	logsoftplus′ = dlogsoftplus              dlogsoftplus′(x) = dlogsoftplus(x)·(sigmoid(−x) − dlogsoftplus(x))
//	lae′(x, k) = sigmoid(x + log(k/(1−k)))   logaddexp′ = sigmoid(a−b)·a′ + sigmoid(b−a)·b′
//	logexpm1′(x) = 1/(−expm1(−x))
func D(n *Node) *Node {
	if !n.hasVar {
		return Const(0)
	}
	a, b := n.A, n.B
	switch n.Op {
	case OpVar:
		return Const(1)
	case OpAdd:
		return Add(D(a), D(b))
	case OpNeg:
		return Neg(D(a))
	case OpMul:
		return Add(Mul(D(a), b), Mul(a, D(b)))
	case OpDiv:
		if !b.hasVar {
			return Div(D(a), b)
		}
		// (a/b)′ = a′/b − a·b′/b².
		return Sub(Div(D(a), b), Div(Mul(a, D(b)), Pow(b, Const(2))))
	case OpPow:
		if !b.hasVar {
			// (a^c)′ = c·a^{c−1}·a′ (c − 1 folded when exact).
			c := b
			cm1 := Sub(b, Const(1))
			return Mul(Mul(c, Pow(a, cm1)), D(a))
		}
		// (a^b)′ = a^b·(b′·log a + b·a′/a).
		return Mul(n, Add(Mul(D(b), Log(a)), Div(Mul(b, D(a)), a)))
	case OpExp:
		return Mul(n, D(a))
	case OpLog:
		return Div(D(a), a)
	case OpLog1p:
		return Div(D(a), Add(a, Const(1)))
	case OpExpm1:
		return Mul(Exp(a), D(a))
	case OpSqrt:
		return Div(D(a), Mul(Const(2), n))
	case OpAbs:
		return Mul(Sign(a), D(a))
	case OpSign:
		return Const(0)
	case OpSoftplus:
		return Mul(Sigmoid(a), D(a))
	case OpSigmoid:
		return Mul(Mul(n, Sigmoid(Neg(a))), D(a))
	case OpLogSoftplus:
		return Mul(DLogSoftplus(a), D(a))
	case OpDLogSoftplus:
		// sigmoid·sigmoid(−x)/softplus − dlogsoftplus² = dlogsoftplus·(sigmoid(−x) − dlogsoftplus),
		// which has no 0/0 where sigmoid and softplus underflow together.
		return Mul(Mul(n, Sub(Sigmoid(Neg(a)), n)), D(a))
	case OpLogExpm1:
		return Div(D(a), Neg(Expm1(Neg(a))))
	case OpLAE:
		// d/dx log(1 − k + k eˣ) = k eˣ/(1 − k + k eˣ) = sigmoid(x + log(k/(1−k))).
		k, ok := b.constVal()
		if !ok {
			panic(fmt.Sprintf("symbolic: lae with a non-literal k: %v", b))
		}
		// log(k/(1−k)) stays a constant expression (folded only where
		// exact; otherwise enclosed when compiled), so interval evaluation
		// of f′ stays sound.
		return Mul(Sigmoid(Add(a, Log(Div(Const(k), Sub(Const(1), Const(k)))))), D(a))
	case OpLogAddExp:
		return Add(Mul(Sigmoid(Sub(a, b)), D(a)), Mul(Sigmoid(Sub(b, a)), D(b)))
	case OpIf:
		panic("symbolic: D of an unresolved piecewise formula")
	}
	panic(fmt.Sprintf("symbolic: D of unknown op %d", n.Op))
}

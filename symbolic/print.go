package symbolic

import (
	"strconv"
	"strings"
)

// Precedences for printing: a child is parenthesized when it binds less
// tightly than its place requires.
const (
	precIf = iota
	precSum
	precProd
	precNeg
	precPow
	precAtom
)

var funcNames = map[Op]string{
	OpExp: "exp", OpLog: "log", OpLog1p: "log1p", OpExpm1: "expm1", OpSqrt: "sqrt", OpAbs: "abs",
	OpSign: "sign", OpSoftplus: "softplus", OpSigmoid: "sigmoid", OpLogSoftplus: "logsoftplus",
	OpDLogSoftplus: "dlogsoftplus", OpLogExpm1: "logexpm1", OpLAE: "lae", OpLogAddExp: "logaddexp",
}

// String prints n as a formula that Parse reads back (internal primitives
// print as softplus(x), lae(x, k), …, which Parse does not know).
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b, precIf)
	return b.String()
}

func (n *Node) prec() int {
	switch n.Op {
	case OpIf:
		return precIf
	case OpAdd:
		return precSum
	case OpMul, OpDiv:
		return precProd
	case OpNeg:
		return precNeg
	case OpPow:
		return precPow
	case OpConst:
		if n.Val < 0 || strings.ContainsAny(formatConst(n.Val), "e") {
			return precNeg
		}
	}
	return precAtom
}

func formatConst(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (n *Node) write(b *strings.Builder, min int) {
	p := n.prec()
	if p < min {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch n.Op {
	case OpConst:
		b.WriteString(formatConst(n.Val))
	case OpVar:
		b.WriteByte('q')
	case OpAdd:
		n.A.write(b, precSum)
		switch {
		case n.B.Op == OpNeg:
			b.WriteString(" - ")
			n.B.A.write(b, precProd)
		case n.B.Op == OpConst && n.B.Val < 0:
			b.WriteString(" - ")
			b.WriteString(formatConst(-n.B.Val))
		case n.B.Op == OpMul && n.B.A.Op == OpConst && n.B.A.Val < 0:
			b.WriteString(" - ")
			Mul(Const(-n.B.A.Val), n.B.B).write(b, precProd)
		default:
			b.WriteString(" + ")
			n.B.write(b, precProd)
		}
	case OpMul:
		n.A.write(b, precProd)
		b.WriteString("*")
		n.B.write(b, precNeg)
	case OpDiv:
		n.A.write(b, precProd)
		b.WriteString("/")
		n.B.write(b, precNeg)
	case OpNeg:
		b.WriteByte('-')
		n.A.write(b, precNeg)
	case OpPow:
		n.A.write(b, precAtom)
		b.WriteByte('^')
		n.B.write(b, precNeg)
	case OpIf:
		b.WriteString("if q ")
		b.WriteString(n.Cmp.String())
		b.WriteByte(' ')
		n.T.write(b, precSum)
		b.WriteString(" then ")
		n.A.write(b, precIf)
		b.WriteString(" else ")
		n.B.write(b, precIf)
	default:
		b.WriteString(funcNames[n.Op])
		b.WriteByte('(')
		n.A.write(b, precIf)
		if n.B != nil {
			b.WriteString(", ")
			n.B.write(b, precIf)
		}
		b.WriteByte(')')
	}
}

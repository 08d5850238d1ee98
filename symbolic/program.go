package symbolic

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// stackSize is the evaluation stack of a Program: it lives in the frame of
// Eval (an array, not a slice), so that evaluating allocates nothing and
// one Program can be evaluated from many goroutines at once.
const stackSize = 64

type instr struct {
	op Op
	k  float64  // OpConst: the value
	ki Interval // OpConst: an enclosure of the value
}

// Program is a compiled expression: a postfix program over a fixed stack.
// Constant subexpressions are evaluated once, at compile time (the float64
// value rounded once, and an enclosure for EvalInterval).
type Program struct {
	code []instr
	expr *Node
}

// Compile compiles a piecewise-free expression.
func Compile(n *Node) (*Program, error) { return compile(n) }

func compile(n *Node) (*Program, error) {
	p := &Program{expr: n}
	depth, max := 0, 0
	var emit func(n *Node) error
	push := func(in instr) {
		p.code = append(p.code, in)
		depth++
		if depth > max {
			max = depth
		}
	}
	emit = func(n *Node) error {
		if n.Op == OpIf {
			return fmt.Errorf("symbolic: cannot compile an unresolved piecewise formula")
		}
		if n.Op == OpVar {
			push(instr{op: OpVar})
			return nil
		}
		if n.Op == OpConst {
			push(instr{op: OpConst, k: n.Val, ki: Point(n.Val)})
			return nil
		}
		if !n.hasVar {
			sub, err := compile(n)
			if err != nil {
				return err
			}
			v := sub.Eval(0)
			push(instr{op: OpConst, k: v, ki: sub.EvalInterval(Point(0))})
			return nil
		}
		if err := emit(n.A); err != nil {
			return err
		}
		if n.B != nil {
			if err := emit(n.B); err != nil {
				return err
			}
			depth--
		}
		p.code = append(p.code, instr{op: n.Op})
		return nil
	}
	// A constant expression is compiled as written (emit folds only the
	// constant subtrees of an expression in q).
	if !n.hasVar && n.Op != OpConst {
		var direct func(n *Node) error
		direct = func(n *Node) error {
			if n.Op == OpConst || n.Op == OpVar {
				return emit(n)
			}
			if n.Op == OpIf {
				return fmt.Errorf("symbolic: cannot compile an unresolved piecewise formula")
			}
			if err := direct(n.A); err != nil {
				return err
			}
			if n.B != nil {
				if err := direct(n.B); err != nil {
					return err
				}
				depth--
			}
			p.code = append(p.code, instr{op: n.Op})
			return nil
		}
		if err := direct(n); err != nil {
			return nil, err
		}
	} else if err := emit(n); err != nil {
		return nil, err
	}
	if max > stackSize {
		return nil, fmt.Errorf("formula too deeply nested to evaluate (needs a stack of %d, the limit is %d)", max, stackSize)
	}
	return p, nil
}

// Expr returns the compiled expression.
func (p *Program) Expr() *Node { return p.expr }

// Len returns the number of instructions.
func (p *Program) Len() int { return len(p.code) }

// Eval returns the value at q. It does not allocate.
func (p *Program) Eval(q float64) float64 {
	var st [stackSize]float64
	sp := 0
	for i := range p.code {
		in := &p.code[i]
		switch in.op {
		case OpConst:
			st[sp] = in.k
			sp++
		case OpVar:
			st[sp] = q
			sp++
		case OpAdd:
			sp--
			st[sp-1] += st[sp]
		case OpMul:
			sp--
			st[sp-1] *= st[sp]
		case OpDiv:
			sp--
			st[sp-1] /= st[sp]
		case OpPow:
			sp--
			st[sp-1] = math.Pow(st[sp-1], st[sp])
		case OpNeg:
			st[sp-1] = -st[sp-1]
		case OpExp:
			st[sp-1] = numerics.Exp(st[sp-1])
		case OpLog:
			st[sp-1] = numerics.Log(st[sp-1])
		case OpLog1p:
			st[sp-1] = math.Log1p(st[sp-1])
		case OpExpm1:
			st[sp-1] = math.Expm1(st[sp-1])
		case OpSqrt:
			st[sp-1] = math.Sqrt(st[sp-1])
		case OpAbs:
			st[sp-1] = math.Abs(st[sp-1])
		case OpSign:
			st[sp-1] = sign(st[sp-1])
		case OpSoftplus:
			st[sp-1] = softplus(st[sp-1])
		case OpSigmoid:
			st[sp-1] = sigmoid(st[sp-1])
		case OpLogSoftplus:
			st[sp-1] = logSoftplus(st[sp-1])
		case OpDLogSoftplus:
			st[sp-1] = dLogSoftplus(st[sp-1])
		case OpLogExpm1:
			st[sp-1] = logExpm1(st[sp-1])
		case OpLAE:
			sp--
			st[sp-1] = lae(st[sp-1], st[sp])
		case OpLogAddExp:
			sp--
			st[sp-1] = logAddExp(st[sp-1], st[sp])
		}
	}
	return st[0]
}

// EvalInterval returns an enclosure of the expression's values on x. It
// does not allocate.
func (p *Program) EvalInterval(x Interval) Interval {
	var st [stackSize]Interval
	sp := 0
	for i := range p.code {
		in := &p.code[i]
		switch in.op {
		case OpConst:
			st[sp] = in.ki
			sp++
		case OpVar:
			st[sp] = x
			sp++
		case OpAdd:
			sp--
			st[sp-1] = IAdd(st[sp-1], st[sp])
		case OpMul:
			sp--
			st[sp-1] = IMul(st[sp-1], st[sp])
		case OpDiv:
			sp--
			st[sp-1] = IDiv(st[sp-1], st[sp])
		case OpPow:
			sp--
			st[sp-1] = IPow(st[sp-1], st[sp])
		case OpNeg:
			st[sp-1] = INeg(st[sp-1])
		case OpExp:
			st[sp-1] = IExp(st[sp-1])
		case OpLog:
			st[sp-1] = ILog(st[sp-1])
		case OpLog1p:
			st[sp-1] = ILog1p(st[sp-1])
		case OpExpm1:
			st[sp-1] = IExpm1(st[sp-1])
		case OpSqrt:
			st[sp-1] = ISqrt(st[sp-1])
		case OpAbs:
			st[sp-1] = IAbs(st[sp-1])
		case OpSign:
			st[sp-1] = ISign(st[sp-1])
		case OpSoftplus:
			st[sp-1] = ISoftplus(st[sp-1])
		case OpSigmoid:
			st[sp-1] = ISigmoid(st[sp-1])
		case OpLogSoftplus:
			st[sp-1] = ILogSoftplus(st[sp-1])
		case OpDLogSoftplus:
			st[sp-1] = IDLogSoftplus(st[sp-1])
		case OpLogExpm1:
			st[sp-1] = ILogExpm1(st[sp-1])
		case OpLAE:
			sp--
			st[sp-1] = ILAE(st[sp-1], st[sp])
		case OpLogAddExp:
			sp--
			st[sp-1] = ILogAddExp(st[sp-1], st[sp])
		}
	}
	return st[0]
}

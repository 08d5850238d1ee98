package symbolic

import (
	"fmt"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Limits on a formula, so that no input makes the parser recurse or
// allocate without bound.
const (
	// MaxFormulaLen is the longest formula Parse accepts, in bytes.
	MaxFormulaLen = 4096
	// maxNesting bounds the depth of parentheses, function calls, unary
	// operators and piecewise branches.
	maxNesting = 100
)

// ParseError is a malformed formula: Msg says what is wrong at the 1-based
// character position Pos of Formula.
type ParseError struct {
	Formula string
	Pos     int
	Msg     string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("bad formula at position %d: %s", e.Pos, e.Msg)
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tOp // + - * / ^ ( ) , < <= > >=
)

type token struct {
	kind tokKind
	text string // normalized: "-" for "−", "*" for "×" and "·", …
	num  float64
	pos  int // 1-based character position
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of formula"
	case tNum:
		return "number " + t.text
	}
	return strconv.Quote(t.text)
}

// lex splits s into tokens.
func lex(s string) ([]token, error) {
	var toks []token
	pos := 0 // characters read
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		pos++
		start := pos
		if r == utf8.RuneError && w == 1 {
			return nil, &ParseError{s, start, "invalid UTF-8"}
		}
		switch {
		case unicode.IsSpace(r):
			i += w
			continue
		case r >= '0' && r <= '9' || r == '.':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			text := s[i:j]
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				msg := fmt.Sprintf("malformed number %q", text)
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
					msg = fmt.Sprintf("number %s is out of the float64 range", text)
				}
				return nil, &ParseError{s, start, msg}
			}
			toks = append(toks, token{kind: tNum, text: text, num: v, pos: start})
			pos += j - i - 1 // ASCII only
			i = j
			continue
		case unicode.IsLetter(r) || r == '_':
			j := i
			n := 0
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if !(unicode.IsLetter(r2) || unicode.IsDigit(r2) || r2 == '_') {
					break
				}
				j += w2
				n++
			}
			toks = append(toks, token{kind: tIdent, text: s[i:j], pos: start})
			pos += n - 1
			i = j
			continue
		}
		op := ""
		switch r {
		case '+', '-', '/', '^', '(', ')', ',':
			op = string(r)
		case '*':
			op = "*"
			if i+1 < len(s) && s[i+1] == '*' {
				op = "^"
				i++
				pos++
			}
		case '−', '–':
			op = "-"
		case '×', '·', '⋅':
			op = "*"
		case '÷':
			op = "/"
		case '<', '>':
			op = string(r)
			if i+1 < len(s) && s[i+1] == '=' {
				op += "="
				i++
				pos++
			}
		case '≤':
			op = "<="
		case '≥':
			op = ">="
		case '=':
			return nil, &ParseError{s, start, "'=' is not an operator (conditions use <, <=, >, >=)"}
		default:
			return nil, &ParseError{s, start, fmt.Sprintf("unexpected character %q", r)}
		}
		toks = append(toks, token{kind: tOp, text: op, pos: start})
		i += w
	}
	toks = append(toks, token{kind: tEOF, pos: pos + 1})
	return toks, nil
}

type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

// Parse reads a formula in q (see the package documentation for the
// grammar) into an expression tree as written. Errors are *ParseError.
func Parse(formula string) (*Node, error) {
	if len(formula) > MaxFormulaLen {
		return nil, &ParseError{formula, 1, fmt.Sprintf("formula longer than %d bytes", MaxFormulaLen)}
	}
	toks, err := lex(formula)
	if err != nil {
		return nil, err
	}
	p := &parser{src: formula, toks: toks}
	if p.peek().kind == tEOF {
		return nil, p.errAt(p.peek(), "empty formula")
	}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		msg := fmt.Sprintf("unexpected %s after a complete expression", t)
		if t.kind == tNum || t.kind == tIdent || t.text == "(" {
			msg += " (write multiplication with *)"
		}
		return nil, p.errAt(t, msg)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, msg string) error {
	return &ParseError{p.src, t.pos, msg}
}

func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

func (p *parser) isWord(s string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == s
}

func (p *parser) expect(s string, what string) error {
	t := p.peek()
	if t.text == s && (t.kind == tOp || t.kind == tIdent) {
		p.next()
		return nil
	}
	msg := fmt.Sprintf("expected %s, found %s", what, t)
	if s == ")" && (t.kind == tNum || t.kind == tIdent || t.kind == tOp && t.text == "(") {
		msg += " (write multiplication with *)"
	}
	return p.errAt(t, msg)
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return p.errAt(p.peek(), fmt.Sprintf("formula nested more than %d levels deep", maxNesting))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// expr := 'if' cond 'then' expr 'else' expr | sum
func (p *parser) expr() (*Node, error) {
	if p.isWord("if") {
		return p.ifExpr()
	}
	return p.sum()
}

func (p *parser) ifExpr() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	kw := p.next()
	condTok := p.peek()
	lhs, err := p.sum()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	var cmp Cmp
	switch {
	case t.kind == tOp && t.text == "<":
		cmp = Lt
	case t.kind == tOp && t.text == "<=":
		cmp = Le
	case t.kind == tOp && t.text == ">":
		cmp = Gt
	case t.kind == tOp && t.text == ">=":
		cmp = Ge
	default:
		return nil, p.errAt(t, fmt.Sprintf("expected a comparison (<, <=, >, >=) in the condition, found %s", t))
	}
	p.next()
	rhs, err := p.sum()
	if err != nil {
		return nil, err
	}
	var thr *Node
	switch {
	case lhs.Op == OpVar && !rhs.hasVar:
		thr = rhs
	case rhs.Op == OpVar && !lhs.hasVar:
		thr = lhs
		cmp = [...]Cmp{Gt, Ge, Lt, Le}[cmp] // b < q is q > b
	default:
		return nil, p.errAt(condTok, "a condition must compare q with a constant, as in 'if q < 0 then … else …'")
	}
	if err := p.expect("then", "'then'"); err != nil {
		return nil, err
	}
	a, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expect("else", "'else' (a piecewise formula needs both branches)"); err != nil {
		return nil, err
	}
	b, err := p.expr()
	if err != nil {
		return nil, err
	}
	n := If(cmp, thr, a, b)
	n.Pos = kw.pos
	return n, nil
}

// sum := term (('+'|'-') term)*
func (p *parser) sum() (*Node, error) {
	n, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		t := p.next()
		m, err := p.term()
		if err != nil {
			return nil, err
		}
		if t.text == "-" {
			m = raw(OpNeg, m, nil)
			m.Pos = t.pos
		}
		n = raw(OpAdd, n, m)
		n.Pos = t.pos
	}
	return n, nil
}

// term := unary (('*'|'/') unary)*
func (p *parser) term() (*Node, error) {
	n, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") {
		t := p.next()
		m, err := p.unary()
		if err != nil {
			return nil, err
		}
		op := OpMul
		if t.text == "/" {
			op = OpDiv
		}
		n = raw(op, n, m)
		n.Pos = t.pos
	}
	return n, nil
}

// unary := ('-'|'+') unary | power
func (p *parser) unary() (*Node, error) {
	if p.isOp("-") || p.isOp("+") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		t := p.next()
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		if t.text == "+" {
			return n, nil
		}
		m := raw(OpNeg, n, nil)
		m.Pos = t.pos
		return m, nil
	}
	return p.power()
}

// power := primary ('^' unary)?   (so 2^3^2 = 2^(3^2) and -q^2 = -(q^2))
func (p *parser) power() (*Node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.isOp("^") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		t := p.next()
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		n = raw(OpPow, n, e)
		n.Pos = t.pos
	}
	return n, nil
}

var parsedFuncs = map[string]Op{
	"exp": OpExp, "log": OpLog, "ln": OpLog, "log1p": OpLog1p, "expm1": OpExpm1, "sqrt": OpSqrt, "abs": OpAbs,
}

func (p *parser) primary() (*Node, error) {
	t := p.peek()
	switch t.kind {
	case tNum:
		p.next()
		n := Const(t.num)
		n.Pos = t.pos
		return n, nil
	case tIdent:
		switch t.text {
		case "q":
			p.next()
			n := Var()
			n.Pos = t.pos
			return n, nil
		case "e":
			p.next()
			n := Const(math.E)
			n.Pos = t.pos
			return n, nil
		case "pi", "π":
			p.next()
			n := Const(math.Pi)
			n.Pos = t.pos
			return n, nil
		case "if":
			return p.ifExpr()
		case "then", "else":
			return nil, p.errAt(t, fmt.Sprintf("unexpected '%s'", t.text))
		}
		op, ok := parsedFuncs[t.text]
		if !ok {
			msg := fmt.Sprintf("unknown name %q (the variable is q; functions: exp, log, log1p, expm1, sqrt, abs; constants: e, pi)", t.text)
			return nil, p.errAt(t, msg)
		}
		p.next()
		if !p.isOp("(") {
			return nil, p.errAt(p.peek(), fmt.Sprintf("expected '(' after %s, found %s", t.text, p.peek()))
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.isOp(",") {
			return nil, p.errAt(p.peek(), fmt.Sprintf("%s takes one argument", t.text))
		}
		if err := p.expect(")", fmt.Sprintf("')' to close %s(", t.text)); err != nil {
			return nil, err
		}
		n := raw(op, a, nil)
		n.Pos = t.pos
		return n, nil
	case tOp:
		if t.text == "(" {
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			p.next()
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")", "')'"); err != nil {
				return nil, err
			}
			return n, nil
		}
	}
	if t.kind == tEOF {
		return nil, p.errAt(t, "unexpected end of formula (an operand is missing)")
	}
	return nil, p.errAt(t, fmt.Sprintf("unexpected %s (an operand is missing)", t))
}

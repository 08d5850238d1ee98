package symbolic

import (
	"fmt"
	"math"
	"sort"
)

// GuardKind says what a guard requires of its expression u.
type GuardKind uint8

// Guard kinds.
const (
	// GuardPositive: u > 0 (log u, u^c with c < 0 not an integer, the loss itself).
	GuardPositive GuardKind = iota
	// GuardNonNeg: u ≥ 0 (√u, u^c with c > 0 not an integer).
	GuardNonNeg
	// GuardNonZero: u ≠ 0 (division by u, u^n with n < 0 an integer).
	GuardNonZero
	// GuardSmooth: the formula is defined where u = 0 but its derivative may
	// not be (|u|, √u, u^c with 0 < c < 1): at a zero of u the one-sided
	// derivatives must be compared.
	GuardSmooth
)

// Guard is a condition the formula needs at every q for ℓ to be defined
// (and, for GuardSmooth, differentiable): read from the formula as written.
type Guard struct {
	Kind GuardKind
	Expr *Node
	// What names the failure: "log of a non-positive number", …
	What string
	// Site is the subexpression with its position in the formula, Pos the
	// position alone (0 for the loss guard).
	Site string
	Pos  int
	// Proved is set when the structure of Expr proves the guard for every q
	// (a sum of exponentials is positive); otherwise it is checked numerically.
	Proved bool
	// Loss marks the guard ℓ > 0 itself, which holds where ℓ underflows to
	// +0 but f is finite.
	Loss bool
	prog *Program
}

// Holds reports whether the guard holds at q, from a float64 evaluation.
// The loss guard counts an underflow to +0 with a finite f as positive.
func (g *Guard) Holds(q float64, f float64) bool {
	u := g.prog.Eval(q)
	switch g.Kind {
	case GuardPositive:
		if g.Loss && u == 0 && !math.Signbit(u) {
			return !math.IsNaN(f) && !math.IsInf(f, 0)
		}
		return u > 0
	case GuardNonNeg:
		return u >= 0
	case GuardNonZero, GuardSmooth:
		return u != 0 && !math.IsNaN(u)
	}
	return false
}

// Value returns u(q).
func (g *Guard) Value(q float64) float64 { return g.prog.Eval(q) }

// Certified reports whether the guard holds on all of x by interval
// arithmetic, and Refuted whether it fails on all of x.
func (g *Guard) Certified(x Interval) bool {
	u := g.prog.EvalInterval(x)
	if u.Unknown() {
		return false
	}
	switch g.Kind {
	case GuardPositive:
		return u.Lo > 0
	case GuardNonNeg:
		return u.Lo >= 0
	}
	return u.Lo > 0 || u.Hi < 0
}

// Refuted reports whether the guard fails on all of x.
func (g *Guard) Refuted(x Interval) bool {
	u := g.prog.EvalInterval(x)
	if u.Unknown() {
		return false
	}
	switch g.Kind {
	case GuardPositive:
		return u.Hi <= 0
	case GuardNonNeg:
		return u.Hi < 0
	}
	return u.Lo == 0 && u.Hi == 0
}

// Interval returns an enclosure of u on x.
func (g *Guard) Interval(x Interval) Interval { return g.prog.EvalInterval(x) }

// Piece is the formula on one interval between breakpoints (or at one): ℓ
// and its derived functions.
type Piece struct {
	// Loss is ℓ as written (piecewise conditions resolved), Norm the
	// normalized ℓ.
	Loss, Norm *Node
	// F = −StableLog(ℓ), F1 = f′, F2 = f″ (derived from F, so stable too).
	F, F1, F2 *Node
	// L1 = ℓ′ and L2 = ℓ″, derived from Norm (they underflow with ℓ: the
	// checks use ℓ′ = −f′e^{−f} and ℓ″ = (f′² − f″)e^{−f} in log domain).
	L1, L2 *Node
	Guards []*Guard

	f, f1, f2, l, l1, l2 *Program
	h2                   *Program // f′² − f″, the sign of ℓ″
	dh                   *Program // (f′q)′ = f″q + f′
}

// Programs for the checks.

// EvalF returns f(q) on this piece's expression.
func (p *Piece) EvalF(q float64) float64 { return p.f.Eval(q) }

// EvalF1 returns f′(q).
func (p *Piece) EvalF1(q float64) float64 { return p.f1.Eval(q) }

// EvalF2 returns f″(q).
func (p *Piece) EvalF2(q float64) float64 { return p.f2.Eval(q) }

// EvalH2 returns f′(q)² − f″(q), whose sign is that of ℓ″.
func (p *Piece) EvalH2(q float64) float64 { return p.h2.Eval(q) }

// EvalDH returns f″(q)q + f′(q), the derivative of f′(q)q.
func (p *Piece) EvalDH(q float64) float64 { return p.dh.Eval(q) }

// EvalL2 returns ℓ″(q) from the symbolic second derivative of ℓ as
// written (it underflows with ℓ; where it does not, it carries no
// cancellation of f′² against f″).
func (p *Piece) EvalL2(q float64) float64 { return p.l2.Eval(q) }

// IntervalL2 returns an enclosure of ℓ″ on x.
func (p *Piece) IntervalL2(x Interval) Interval { return p.l2.EvalInterval(x) }

// Analytic reports whether f is real-analytic on the piece's interval
// wherever ℓ is defined there: no |u|, √u or u^c (0 < c < 1) whose argument
// may vanish. The zeros of f′ are then isolated unless f′ ≡ 0.
func (p *Piece) Analytic() bool {
	for _, g := range p.Guards {
		if g.Kind == GuardSmooth && !g.Proved {
			return false
		}
	}
	return true
}

// IntervalF returns an enclosure of f on x.
func (p *Piece) IntervalF(x Interval) Interval { return p.f.EvalInterval(x) }

// IntervalF1 returns an enclosure of f′ on x.
func (p *Piece) IntervalF1(x Interval) Interval { return p.f1.EvalInterval(x) }

// IntervalH2 returns an enclosure of f′² − f″ on x.
func (p *Piece) IntervalH2(x Interval) Interval { return p.h2.EvalInterval(x) }

// IntervalDH returns an enclosure of f″q + f′ on x.
func (p *Piece) IntervalDH(x Interval) Interval { return p.dh.EvalInterval(x) }

// Formula is a loss ℓ(q) = e^{−f(q)} read from a formula: its pieces
// between the breakpoints of its conditions, with f, f′, f″, ℓ′, ℓ″ derived
// symbolically and compiled.
type Formula struct {
	Source string
	Raw    *Node
	// Breaks are the thresholds of the conditions, increasing. Pieces[i]
	// holds on (Breaks[i−1], Breaks[i]) (with Breaks[−1] = −∞ and
	// Breaks[len] = +∞), AtBreak[i] at Breaks[i] itself.
	Breaks  []float64
	Pieces  []*Piece
	AtBreak []*Piece
}

// NewFormula parses and derives a loss formula. Errors are *ParseError,
// with the position of the problem: a syntax error, or a constant part
// that is undefined (1/0, log(−1)), a threshold that is not finite.
func NewFormula(src string) (*Formula, error) {
	raw, err := Parse(src)
	if err != nil {
		return nil, err
	}
	fm := &Formula{Source: src, Raw: raw}
	if err := constantGuards(src, raw); err != nil {
		return nil, err
	}
	// Thresholds.
	var thr []float64
	var ferr error
	walk(raw, func(n *Node) {
		if n.Op != OpIf || ferr != nil {
			return
		}
		v, err := constValue(n.T)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = fmt.Errorf("the threshold %v is not a finite number", n.T)
		}
		if err != nil {
			ferr = &ParseError{src, n.Pos, err.Error()}
			return
		}
		thr = append(thr, v)
	})
	if ferr != nil {
		return nil, ferr
	}
	sort.Float64s(thr)
	for i, t := range thr {
		if i == 0 || t != thr[i-1] {
			fm.Breaks = append(fm.Breaks, t)
		}
	}
	cache := map[string]*Piece{}
	build := func(side func(t float64) int) (*Piece, error) {
		n := resolve(raw, side)
		key := n.String()
		if p, ok := cache[key]; ok {
			return p, nil
		}
		p, err := newPiece(src, n)
		if err != nil {
			return nil, err
		}
		cache[key] = p
		return p, nil
	}
	for i := 0; i <= len(fm.Breaks); i++ {
		// q strictly between Breaks[i−1] and Breaks[i].
		p, err := build(func(t float64) int {
			j := sort.SearchFloat64s(fm.Breaks, t) // t = Breaks[j]
			if j < i {
				return 1 // q > t
			}
			return -1
		})
		if err != nil {
			return nil, err
		}
		fm.Pieces = append(fm.Pieces, p)
	}
	for _, b := range fm.Breaks {
		p, err := build(func(t float64) int {
			switch {
			case t < b:
				return 1
			case t > b:
				return -1
			}
			return 0
		})
		if err != nil {
			return nil, err
		}
		fm.AtBreak = append(fm.AtBreak, p)
	}
	return fm, nil
}

// walk calls fn on every node of n.
func walk(n *Node, fn func(*Node)) {
	if n == nil {
		return
	}
	fn(n)
	walk(n.A, fn)
	walk(n.B, fn)
	walk(n.T, fn)
}

// constValue evaluates a constant expression.
func constValue(n *Node) (float64, error) {
	p, err := compile(n)
	if err != nil {
		return 0, err
	}
	return p.Eval(0), nil
}

// resolve replaces every condition q Cmp t by its branch, given the sign of
// q − t for each threshold t.
func resolve(n *Node, side func(t float64) int) *Node {
	if n == nil || !n.hasVar && n.Op != OpIf || n.A == nil && n.B == nil {
		return n
	}
	if n.Op == OpIf {
		t, _ := constValue(n.T)
		s := side(t)
		var yes bool
		switch n.Cmp {
		case Lt:
			yes = s < 0
		case Le:
			yes = s <= 0
		case Gt:
			yes = s > 0
		case Ge:
			yes = s >= 0
		}
		if yes {
			return resolve(n.A, side)
		}
		return resolve(n.B, side)
	}
	m := *n
	m.A, m.B = resolve(n.A, side), resolve(n.B, side)
	m.hasVar = (m.A != nil && m.A.hasVar) || (m.B != nil && m.B.hasVar)
	return &m
}

func site(n *Node) string {
	if n.Pos > 0 {
		return fmt.Sprintf("%v (position %d)", n, n.Pos)
	}
	return n.String()
}

// guardsOf lists the guards of the formula n as written.
func guardsOf(n *Node) []*Guard {
	var gs []*Guard
	add := func(kind GuardKind, u *Node, what string, at *Node) {
		gs = append(gs, &Guard{Kind: kind, Expr: u, What: what, Site: site(at), Pos: at.Pos})
	}
	walk(n, func(m *Node) {
		switch m.Op {
		case OpLog:
			add(GuardPositive, m.A, "log of a non-positive number", m)
		case OpLog1p:
			add(GuardPositive, raw(OpAdd, m.A, Const(1)), "log1p of a number ≤ −1", m)
		case OpSqrt:
			add(GuardNonNeg, m.A, "square root of a negative number", m)
			add(GuardSmooth, m.A, "square root of 0 (infinite slope)", m)
		case OpDiv:
			add(GuardNonZero, m.B, "division by zero", m)
		case OpAbs:
			add(GuardSmooth, m.A, "corner of abs", m)
		case OpPow:
			if m.B.hasVar {
				add(GuardPositive, m.A, "power with a variable exponent of a non-positive base", m)
				return
			}
			c, err := constValue(m.B)
			if err != nil || math.IsNaN(c) {
				return // the exponent's own guards report it
			}
			switch {
			case c == math.Trunc(c) && c < 0:
				add(GuardNonZero, m.A, "negative power of zero", m)
			case c == math.Trunc(c):
			case c < 0:
				add(GuardPositive, m.A, "non-integer negative power of a non-positive number", m)
			default:
				add(GuardNonNeg, m.A, "non-integer power of a negative number", m)
				if c < 1 {
					add(GuardSmooth, m.A, "non-integer power below 1 of 0 (infinite slope)", m)
				}
			}
		}
	})
	return gs
}

// constantGuards reports the guards of constant subexpressions that fail
// (1/0, log(−1)) as a ParseError at their position.
func constantGuards(src string, n *Node) error {
	for _, g := range guardsOf(n) {
		if g.Expr.hasVar || g.Kind == GuardSmooth {
			continue
		}
		v, err := constValue(g.Expr)
		if err != nil {
			return err
		}
		ok := true
		switch g.Kind {
		case GuardPositive:
			ok = v > 0
		case GuardNonNeg:
			ok = v >= 0
		case GuardNonZero:
			ok = v != 0
		}
		if !ok || math.IsNaN(v) {
			return &ParseError{src, max(g.Pos, 1), fmt.Sprintf("%s: %s", g.What, g.Site)}
		}
	}
	return nil
}

// newPiece derives and compiles one piece.
func newPiece(src string, loss *Node) (*Piece, error) {
	p := &Piece{Loss: loss}
	p.Norm = Normalize(loss)
	p.F = Neg(StableLog(loss))
	p.F1 = D(p.F)
	p.F2 = D(p.F1)
	p.L1 = D(p.Norm)
	p.L2 = D(p.L1)
	for _, g := range guardsOf(loss) {
		if g.Expr.hasVar { // constant ones were checked by constantGuards
			p.Guards = append(p.Guards, g)
		}
	}
	p.Guards = append(p.Guards, &Guard{Kind: GuardPositive, Expr: p.Norm, What: "the loss is not positive (f = −log ℓ is undefined)", Site: "ℓ(q) = " + loss.String(), Loss: true})
	h2 := Sub(Pow(p.F1, Const(2)), p.F2)
	dh := Add(Mul(p.F2, Var()), p.F1)
	var err error
	for _, c := range []struct {
		dst **Program
		n   *Node
	}{{&p.f, p.F}, {&p.f1, p.F1}, {&p.f2, p.F2}, {&p.l, p.Norm}, {&p.l1, p.L1}, {&p.l2, p.L2}, {&p.h2, h2}, {&p.dh, dh}} {
		if *c.dst, err = compile(c.n); err != nil {
			return nil, &ParseError{src, 1, err.Error()}
		}
	}
	for _, g := range p.Guards {
		if g.prog, err = compile(g.Expr); err != nil {
			return nil, &ParseError{src, 1, err.Error()}
		}
		switch g.Kind {
		case GuardPositive:
			g.Proved = Positive(g.Expr)
		case GuardNonNeg:
			g.Proved = nonNegative(g.Expr)
		case GuardNonZero, GuardSmooth:
			g.Proved = nonZero(g.Expr)
		}
	}
	return p, nil
}

// piece returns the piece that holds at q.
func (fm *Formula) piece(q float64) *Piece {
	for i, b := range fm.Breaks {
		if q < b {
			return fm.Pieces[i]
		}
		if q == b {
			return fm.AtBreak[i]
		}
	}
	return fm.Pieces[len(fm.Breaks)]
}

// PieceOn returns the piece that holds on all of [a, b], and false when a
// breakpoint lies in [a, b] (or a > b).
func (fm *Formula) PieceOn(a, b float64) (*Piece, bool) {
	if !(a <= b) {
		return nil, false
	}
	for _, br := range fm.Breaks {
		if a <= br && br <= b {
			return nil, false
		}
	}
	return fm.piece(a), true
}

// PieceAt returns the piece that holds at q.
func (fm *Formula) PieceAt(q float64) *Piece { return fm.piece(q) }

// LogLoss returns log ℓ(q) = −f(q).
func (fm *Formula) LogLoss(q float64) float64 { return -fm.piece(q).f.Eval(q) }

// F returns f(q) = −log ℓ(q).
func (fm *Formula) F(q float64) float64 { return fm.piece(q).f.Eval(q) }

// FPrime returns f′(q).
func (fm *Formula) FPrime(q float64) float64 { return fm.piece(q).f1.Eval(q) }

// FSecond returns f″(q).
func (fm *Formula) FSecond(q float64) float64 { return fm.piece(q).f2.Eval(q) }

// Loss returns ℓ(q), from the normalized formula (softplus for
// log(1 + exp(·)), …); it underflows for large margins, where LogLoss does
// not.
func (fm *Formula) Loss(q float64) float64 { return fm.piece(q).l.Eval(q) }

// DLoss returns ℓ′(q) from its symbolic derivative.
func (fm *Formula) DLoss(q float64) float64 { return fm.piece(q).l1.Eval(q) }

// D2Loss returns ℓ″(q) from its symbolic derivative.
func (fm *Formula) D2Loss(q float64) float64 { return fm.piece(q).l2.Eval(q) }

// IsExponential reports whether f simplifies to q on all of ℝ: the formula
// is the exponential loss of LL (A3).
func (fm *Formula) IsExponential() bool {
	for _, p := range append(fm.Pieces, fm.AtBreak...) {
		if p.F.Op != OpVar {
			return false
		}
	}
	return true
}

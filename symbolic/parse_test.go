package symbolic

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// evalRaw evaluates a parsed, piecewise-free formula at q.
func evalRaw(t *testing.T, n *Node, q float64) float64 {
	t.Helper()
	p, err := Compile(n)
	if err != nil {
		t.Fatalf("Compile(%v): %v", n, err)
	}
	return p.Eval(q)
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	// Each formula at q = 2 against the value computed by hand (exact in
	// float64, or the same library call).
	for _, test := range []struct {
		formula string
		want    float64
	}{
		{"q", 2},
		{"-q^2", -4},             // unary minus binds looser than ^
		{"2^3^2", 512},           // ^ is right-associative
		{"q^-1", 0.5},            // a signed exponent
		{"(-q)^2", 4},            //
		{"1 - 2 - 3", -4},        // − is left-associative
		{"8 / 4 / 2", 1},         // ÷ too
		{"2*q + 3*q", 10},        //
		{"--q", 2},               // double negation
		{"+q", 2},                // unary plus
		{"q − 1", 1},             // Unicode minus
		{"q × 3 ÷ 2", 3},         // Unicode times and divide
		{"q·q", 4},               // middle dot
		{"q**3", 8},              // ** as power
		{"exp(0) + log(1)", 1},   //
		{"log1p(q) - log(3)", 0}, //
		{"expm1(0)", 0},          //
		{"sqrt(q^2)", 2},         //
		{"abs(-q)", 2},           //
		{"e", math.E},            //
		{"pi", math.Pi},          //
		{"π", math.Pi},           //
		{"ln(e)", 1},             // ln is log
		{"1.5e1 + .5", 15.5},     // number forms
		{"2E-1*10", 2},           //
		{"  q\t+ \n1 ", 3},       // whitespace
	} {
		n, err := Parse(test.formula)
		if err != nil {
			t.Errorf("Parse(%q): %v", test.formula, err)
			continue
		}
		if got := evalRaw(t, n, 2); got != test.want {
			t.Errorf("%q at q = 2 = %v, want %v", test.formula, got, test.want)
		}
	}
}

func TestParsePiecewise(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		formula   string
		at        []float64
		want      []float64
		breaks    []float64
		numPieces int
	}{
		{"if q < 0 then 1 else 2", []float64{-1, 0, 1}, []float64{1, 2, 2}, []float64{0}, 2},
		{"if q <= 0 then 1 else 2", []float64{-1, 0, 1}, []float64{1, 1, 2}, []float64{0}, 2},
		{"if q > 0 then 1 else 2", []float64{-1, 0, 1}, []float64{2, 2, 1}, []float64{0}, 2},
		{"if q >= 0 then 1 else 2", []float64{-1, 0, 1}, []float64{2, 1, 1}, []float64{0}, 2},
		{"if 0 < q then 1 else 2", []float64{-1, 0, 1}, []float64{2, 2, 1}, []float64{0}, 2},
		{"if q ≤ 1/2 then 1 else 2", []float64{0.5, 0.6}, []float64{1, 2}, []float64{0.5}, 2},
		// Nested, with a then-branch that is itself piecewise.
		{"if q < 1 then if q < -1 then 1 else 2 else 3", []float64{-2, -1, 0, 1, 2}, []float64{1, 2, 2, 3, 3}, []float64{-1, 1}, 3},
		// A condition inside an operand.
		{"1 + (if q < 0 then q else 2*q)", []float64{-1, 3}, []float64{0, 7}, []float64{0}, 2},
		// The same threshold twice gives one breakpoint.
		{"(if q < 0 then 1 else 2) + (if q < 0 then 10 else 20)", []float64{-1, 1}, []float64{11, 22}, []float64{0}, 2},
	} {
		fm, err := NewFormula(test.formula)
		if err != nil {
			t.Errorf("NewFormula(%q): %v", test.formula, err)
			continue
		}
		if len(fm.Breaks) != len(test.breaks) || len(fm.Pieces) != test.numPieces {
			t.Errorf("%q: breaks %v, %d pieces; want %v, %d", test.formula, fm.Breaks, len(fm.Pieces), test.breaks, test.numPieces)
			continue
		}
		for i, b := range test.breaks {
			if fm.Breaks[i] != b {
				t.Errorf("%q: breaks %v, want %v", test.formula, fm.Breaks, test.breaks)
			}
		}
		for i, q := range test.at {
			if got := fm.Loss(q); got != test.want[i] {
				t.Errorf("%q at q = %v = %v, want %v", test.formula, q, got, test.want[i])
			}
		}
	}
}

// TestParseErrors: malformed formulas give a *ParseError whose position
// points at the problem (1-based characters, Unicode counted as one) and
// whose message says what is wrong.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		formula string
		pos     int
		msg     string
	}{
		{"", 1, "empty formula"},
		{"   ", 4, "empty formula"},
		{"q +", 4, "operand is missing"},
		{"(q", 3, "')'"},
		{"q)", 2, "unexpected \")\""},
		{"exp(q", 6, "')' to close exp("},
		{"exp q", 5, "expected '(' after exp"},
		{"foo(q)", 1, "unknown name \"foo\""},
		{"x + 1", 1, "the variable is q"},
		{"2q", 2, "write multiplication with *"},
		{"q q", 3, "write multiplication with *"},
		{"1.2.3", 1, "malformed number"},
		{"1e999", 1, "out of the float64 range"},
		{"q # 1", 3, "unexpected character '#'"},
		{"−q ∘ 1", 4, "unexpected character '∘'"},
		{"q = 1", 3, "'=' is not an operator"},
		{"exp(q, 1)", 6, "takes one argument"},
		{"if q then 1 else 2", 6, "expected a comparison"},
		{"if q < 0 then 1", 16, "'else'"},
		{"if q < 0 1 else 2", 10, "expected 'then'"},
		{"if q^2 < 1 then 1 else 2", 4, "compare q with a constant"},
		{"if q < q then 1 else 2", 4, "compare q with a constant"},
		{"then", 1, "unexpected 'then'"},
		{"q * * 2", 5, "operand is missing"},
		{"\xff", 1, "invalid UTF-8"},
		// Undefined constant parts: errors at the operation's position.
		{"q + 1/0", 6, "division by zero"},
		{"log(-1) * q", 1, "log of a non-positive number"},
		{"exp(-q) + log(0)", 11, "log of a non-positive number"},
		{"sqrt(-2)", 1, "square root of a negative number"},
		{"log1p(-2)", 1, "log1p of a number ≤ −1"},
		{"0^-1", 2, "negative power of zero"},
		{"(-8)^(1/3)", 5, "non-integer power of a negative number"},
		{"if q < 1/0 then 1 else 2", 9, "division by zero"},
		{"if q < log(0) then 1 else 2", 8, "log of a non-positive number"},
		{"if q < 1e308*10 then 1 else 2", 1, "not a finite number"},
	} {
		_, err := NewFormula(test.formula)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("NewFormula(%q) error = %v, want a *ParseError", test.formula, err)
			continue
		}
		if pe.Pos != test.pos || !strings.Contains(pe.Msg, test.msg) {
			t.Errorf("NewFormula(%q) = position %d %q, want position %d and %q", test.formula, pe.Pos, pe.Msg, test.pos, test.msg)
		}
		if s := err.Error(); strings.Contains(s, "\n") || !strings.Contains(s, "position") {
			t.Errorf("error %q is not one line naming the position", s)
		}
	}
}

func TestParseLimits(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("(", 200) + "q" + strings.Repeat(")", 200)
	if _, err := Parse(deep); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("200 nested parentheses: error %v, want one about nesting", err)
	}
	if _, err := Parse(strings.Repeat("-", 300) + "q"); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("300 unary minuses: error %v, want one about nesting", err)
	}
	long := "q" + strings.Repeat("+q", MaxFormulaLen)
	if _, err := Parse(long); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("long formula: error %v", err)
	}
	// A sum of 2000 terms parses (left-associative: no deep recursion) and
	// compiles with a stack of 2.
	sum := "q" + strings.Repeat("+q", 1999)
	fm, err := NewFormula(sum)
	if err != nil {
		t.Fatalf("sum of 2000 q: %v", err)
	}
	if got := fm.Loss(1); got != 2000 {
		t.Errorf("sum of 2000 q at 1 = %v", got)
	}
	// Right-nested sums need a deeper stack than Program has: a clear error.
	right := strings.Repeat("q+(", 90) + "q" + strings.Repeat(")", 90)
	if _, err := NewFormula(right); err == nil || !strings.Contains(err.Error(), "deeply nested") {
		t.Errorf("right-nested sum: error %v, want one about the evaluation stack", err)
	}
}

// TestPrintRoundTrip: printing a parsed formula and parsing it again gives
// the same tree (also the property FuzzParse checks on random input).
func TestPrintRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range []string{
		"exp(-q)", "log(1+exp(-q^3))", "1/(q+1)", "-q^2", "(-q)^2", "2^3^2", "(2^3)^2", "a",
		"if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)", "q - (1 - q)", "q/(2/q)", "--q",
		"-(q + 1)", "q*-q", "1 + (if q < 0 then 1 else 2) * 3", "if q < 1 then if q < 0 then 1 else 2 else 3",
		"1e-300*q", "q^-0.5", "(1e300)^q", "sqrt(abs(q))", "e^q", "expm1(q)/log1p(q)",
	} {
		n, err := Parse(f)
		if err != nil {
			continue // "a" is not a formula
		}
		s := n.String()
		m, err := Parse(s)
		if err != nil {
			t.Errorf("%q prints as %q, which does not parse: %v", f, s, err)
			continue
		}
		if !Equal(n, m) {
			t.Errorf("%q prints as %q, which parses to %q", f, s, m)
		}
	}
}

package symbolic

import (
	"errors"
	"math"
	"testing"
	"unicode/utf8"
)

// fuzzSettings keep the analysis of one fuzzed formula in the
// milliseconds: a few cells, a short grid.
var fuzzSettings = Settings{CertifyTo: 10, EvidenceTo: 1e4, GridPoints: 12, Scan: &ScanSettings{Cells: 8, MaxDepth: 6, Budget: 200}}

// FuzzParse: no input makes the parser, the derivation, the compiler or
// the evaluators panic; errors are *ParseError with a position inside the
// formula (or just past its end); a parsed formula prints as text that
// parses back to the same tree. The seed corpus is testdata/fuzz/FuzzParse.
//
//	go test ./symbolic -run '^$' -fuzz FuzzParse -fuzztime 2m
func FuzzParse(f *testing.F) {
	for _, s := range []string{"exp(-q)", "log(1+exp(-q))", "if q < 0 then 1 else q", "1/(q-1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			checkParseError(t, s, err)
			return
		}
		printed := n.String()
		m, err := Parse(printed)
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", s, printed, err)
		}
		if !Equal(n, m) {
			t.Fatalf("%q prints as %q, which parses to a different tree %q", s, printed, m.String())
		}
		fm, err := NewFormula(s)
		if err != nil {
			checkParseError(t, s, err)
			return
		}
		for _, q := range []float64{-1e6, -3, -1, -1e-9, 0, 1e-9, 0.5, 1, 2.5, 40, 800, 1e6, math.NaN()} {
			fm.F(q)
			fm.FPrime(q)
			fm.FSecond(q)
			fm.Loss(q)
			fm.DLoss(q)
			fm.D2Loss(q)
			p := fm.PieceAt(q)
			if !math.IsNaN(q) {
				x := Interval{q, q + 1}
				p.IntervalF(x)
				p.IntervalF1(x)
				p.IntervalDH(x)
				for _, g := range p.Guards {
					g.Certified(x)
					g.Holds(q, fm.F(q))
				}
			}
		}
		fm.Inverse(1, 0)
		fm.Kinks()
		fm.BF(&fuzzSettings)
	})
}

func checkParseError(t *testing.T, s string, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("%q: error %v is not a *ParseError", s, err)
	}
	if n := utf8.RuneCountInString(s); pe.Pos < 1 || pe.Pos > n+1 {
		t.Fatalf("%q: error position %d outside [1, %d]: %v", s, pe.Pos, n+1, err)
	}
}

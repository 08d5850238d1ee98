package symbolic

import (
	"math"
	"sort"
)

// Outcome classifies a sub-interval in a Scan.
type Outcome uint8

// Outcomes.
const (
	// Certified: the condition holds on the whole sub-interval (interval
	// arithmetic).
	Certified Outcome = iota
	// Refuted: the condition fails on the whole sub-interval.
	Refuted
	// Undecided: neither, at the finest subdivision the budget allowed.
	Undecided
)

// Span is a sub-interval with its outcome.
type Span struct {
	Lo, Hi  float64
	Outcome Outcome
}

// ScanSettings bounds a Scan.
type ScanSettings struct {
	// Cells is the number of equal cells [a, b] starts with.
	Cells int
	// MaxDepth is how often a cell may be halved.
	MaxDepth int
	// Budget is the most judgements a Scan makes.
	Budget int
}

// DefaultScan is used when a Scan is given nil settings: 256 cells, each
// halved down to 2⁻⁴⁰ of its width (7e-13 on [−100, 100]), 20 000
// judgements.
var DefaultScan = ScanSettings{Cells: 256, MaxDepth: 40, Budget: 20000}

// Scan subdivides [a, b] breadth first: every cell that judge calls
// Undecided is halved, level by level, until MaxDepth or the budget ends.
// It returns the leaves, in order, with adjacent leaves of the same outcome
// merged.
func Scan(a, b float64, s *ScanSettings, judge func(Interval) Outcome) []Span {
	if s == nil {
		s = &DefaultScan
	}
	if !(a <= b) {
		return nil
	}
	if a == b {
		return []Span{{a, b, judge(Point(a))}}
	}
	var done []Span
	level := make([]Span, 0, s.Cells)
	for i := 0; i < s.Cells; i++ {
		lo := a + (b-a)*float64(i)/float64(s.Cells)
		hi := a + (b-a)*float64(i+1)/float64(s.Cells)
		if i == s.Cells-1 {
			hi = b
		}
		if lo < hi {
			level = append(level, Span{lo, hi, Undecided})
		}
	}
	used := 0
	for depth := 0; len(level) > 0; depth++ {
		var next []Span
		for i, c := range level {
			if used >= s.Budget {
				done = append(done, level[i:]...)
				break
			}
			used++
			o := judge(Interval{c.Lo, c.Hi})
			if o != Undecided || depth >= s.MaxDepth {
				done = append(done, Span{c.Lo, c.Hi, o})
				continue
			}
			m := c.Lo + (c.Hi-c.Lo)/2
			if m <= c.Lo || m >= c.Hi {
				done = append(done, Span{c.Lo, c.Hi, Undecided})
				continue
			}
			next = append(next, Span{c.Lo, m, Undecided}, Span{m, c.Hi, Undecided})
		}
		if used >= s.Budget {
			done = append(done, next...)
			break
		}
		level = next
	}
	sort.Slice(done, func(i, j int) bool { return done[i].Lo < done[j].Lo })
	var out []Span
	for _, sp := range done {
		if n := len(out); n > 0 && out[n-1].Outcome == sp.Outcome && out[n-1].Hi == sp.Lo {
			out[n-1].Hi = sp.Hi
			continue
		}
		out = append(out, sp)
	}
	return out
}

// GeomGrid returns n points from a to b (0 < a < b) in geometric
// progression, both ends included.
func GeomGrid(a, b float64, n int) []float64 {
	xs := make([]float64, n)
	la, lb := math.Log(a), math.Log(b)
	for i := range xs {
		xs[i] = math.Exp(la + (lb-la)*float64(i)/float64(n-1))
	}
	xs[0], xs[n-1] = a, b
	return xs
}

// SpanPoints returns points of [lo, hi] to sample an undecided span: n
// equally spaced, and points approaching each end geometrically (down to
// a distance of 1e-300 times the scale), so that a failure at an endpoint
// — where a scan's undecided spans collect — is sampled.
func SpanPoints(lo, hi float64, n int) []float64 {
	var xs []float64
	for i := 0; i <= n; i++ {
		xs = append(xs, lo+(hi-lo)*float64(i)/float64(n))
	}
	w := hi - lo
	for e := -1; e >= -300; e -= 3 {
		d := w * math.Pow(10, float64(e))
		if d == 0 {
			break
		}
		xs = append(xs, lo+d, hi-d)
	}
	sort.Float64s(xs)
	var out []float64
	for _, x := range xs {
		if x < lo || x > hi || len(out) > 0 && x == out[len(out)-1] {
			continue
		}
		out = append(out, x)
	}
	return out
}

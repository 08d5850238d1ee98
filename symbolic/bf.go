package symbolic

import (
	"math"
	"sort"
)

// Settings says how far the analysis of a formula looks.
type Settings struct {
	// CertifyTo is C: sign conditions are certified by interval arithmetic
	// on [−C, C] (on [0, C] for the conditions on large margins).
	CertifyTo float64
	// EvidenceTo is Q: beyond C, conditions are sampled on a geometric
	// grid up to |q| = Q.
	EvidenceTo float64
	// GridPoints is the number of grid points on [C, Q] (and on [−Q, −C]).
	GridPoints int
	// Scan bounds the subdivision of the interval checks.
	Scan *ScanSettings
}

// DefaultSettings: C = 100, Q = 1e6, 400 grid points per side.
var DefaultSettings = Settings{CertifyTo: 100, EvidenceTo: 1e6, GridPoints: 400, Scan: &DefaultScan}

func (s *Settings) orDefault() *Settings {
	if s == nil {
		return &DefaultSettings
	}
	return s
}

// Segment is a part of the line where one piece of a formula holds.
type Segment struct {
	Lo, Hi float64
	Piece  *Piece
}

// Segments splits [a, b] at the breakpoints: each segment is closed, and
// its piece is the one that holds inside it (the at-break pieces are
// checked on their own, see BreakChecks).
func (fm *Formula) Segments(a, b float64) []Segment {
	var segs []Segment
	for i := 0; i <= len(fm.Breaks); i++ {
		lo, hi := math.Inf(-1), math.Inf(1)
		if i > 0 {
			lo = fm.Breaks[i-1]
		}
		if i < len(fm.Breaks) {
			hi = fm.Breaks[i]
		}
		lo, hi = math.Max(lo, a), math.Min(hi, b)
		if lo < hi {
			segs = append(segs, Segment{lo, hi, fm.Pieces[i]})
		}
	}
	return segs
}

// Grid returns the evidence grid beyond the certified range: GridPoints
// points from C to Q, and their negatives if negative is set, each with
// the piece that holds there.
func (s *Settings) Grid(negative bool) []float64 {
	s = s.orDefault()
	g := GeomGrid(s.CertifyTo, s.EvidenceTo, s.GridPoints)
	if !negative {
		return g
	}
	out := make([]float64, 0, 2*len(g))
	for i := len(g) - 1; i >= 0; i-- {
		out = append(out, -g[i])
	}
	return append(out, g...)
}

// BFResult is the outcome of the search for b_f (LL (B3.3): f′(q)q is
// non-decreasing on (b_f, ∞), b_f ≥ 0).
type BFResult struct {
	// BF is the smallest admissible b_f found: 0 when h′ = (f′q)′ ≥ 0 on
	// (0, ∞) as far as certified and sampled; otherwise the point where the
	// last stretch of h′ < 0 ends (or the breakpoint where h jumps down);
	// +Inf when h′ < 0 at the largest sampled q.
	BF float64
	// Spans are the scan of h′ ≥ 0 on [0, C] (Certified: h′ ≥ 0 there).
	Spans []Span
	// Witness is the largest q where h′ < 0 (or h jumps down), NaN if none,
	// and WitnessDH the value of h′ there (NaN for a jump).
	Witness, WitnessDH float64
	// Jump reports that the witness is a downward jump at a breakpoint.
	Jump bool
	// Unsampled counts undecided spans of the scan in which no sample had
	// h′ < 0: there the monotonicity is numerical evidence only.
	Unsampled int
	// Underflow is the first grid margin beyond C where f′ and f″ are both
	// 0 in float64 (NaN if none): samples there say nothing about h′ and
	// are skipped.
	Underflow float64
}

// DH returns h′(q) = f″(q)q + f′(q) on the piece that holds at q.
func (fm *Formula) DH(q float64) float64 { return fm.piece(q).dh.Eval(q) }

// BF searches for the smallest admissible b_f: h′ = f″q + f′ is certified
// ≥ 0 on [0, C] by interval arithmetic where it can be, sampled in the
// undecided spans and on the grid up to Q; at breakpoints h must not jump
// down. The largest failure found is refined by bisection to the point
// where h′ becomes ≥ 0.
func (fm *Formula) BF(s *Settings) BFResult {
	s = s.orDefault()
	res := BFResult{Witness: math.NaN(), WitnessDH: math.NaN(), Underflow: math.NaN()}
	type pt struct {
		q  float64
		ok bool
	}
	var pts []pt // evaluated points, to bracket the last sign change
	addSample := func(q float64) {
		if p := fm.piece(q); p.f1.Eval(q) == 0 && p.f2.Eval(q) == 0 {
			// f′ and f″ underflow (or vanish): h′ = 0 says nothing.
			if math.IsNaN(res.Underflow) {
				res.Underflow = q
			}
			return
		}
		dh := fm.DH(q)
		pts = append(pts, pt{q, dh >= 0})
		if dh < 0 && !(q <= res.Witness) {
			res.Witness, res.WitnessDH, res.Jump = q, dh, false
		}
	}
	for _, seg := range fm.Segments(0, s.CertifyTo) {
		p := seg.Piece
		spans := Scan(seg.Lo, seg.Hi, s.Scan, func(x Interval) Outcome {
			v := p.dh.EvalInterval(x)
			switch {
			case v.Unknown():
				return Undecided
			case v.Lo >= 0:
				return Certified
			case v.Hi < 0:
				return Refuted
			}
			return Undecided
		})
		res.Spans = append(res.Spans, spans...)
		for _, sp := range spans {
			switch sp.Outcome {
			case Certified:
				pts = append(pts, pt{sp.Lo, true}, pt{sp.Hi, true})
			case Refuted:
				pts = append(pts, pt{sp.Lo, false})
				if !(sp.Hi <= res.Witness) {
					res.Witness, res.WitnessDH, res.Jump = sp.Hi, p.dh.Eval(sp.Hi), false
				}
			case Undecided:
				before := res.Witness
				for _, q := range SpanPoints(sp.Lo, sp.Hi, 64) {
					if q > seg.Lo && q < seg.Hi || q == sp.Lo || q == sp.Hi {
						dh := p.dh.Eval(q)
						pts = append(pts, pt{q, dh >= 0})
						if dh < 0 && !(q <= res.Witness) {
							res.Witness, res.WitnessDH, res.Jump = q, dh, false
						}
					}
				}
				if res.Witness == before || math.IsNaN(res.Witness) {
					res.Unsampled++
				}
			}
		}
	}
	for _, q := range s.Grid(false) {
		if q > s.CertifyTo {
			addSample(q)
		}
	}
	// Jumps of h = f′q at breakpoints b > 0.
	for i, b := range fm.Breaks {
		if b <= 0 {
			continue
		}
		hl := IMul(Point(b), fm.Pieces[i].f1.EvalInterval(Point(b)))
		hr := IMul(Point(b), fm.Pieces[i+1].f1.EvalInterval(Point(b)))
		if hl.Lo > hr.Hi && !(b <= res.Witness) {
			res.Witness, res.WitnessDH, res.Jump = b, math.NaN(), true
		}
	}
	if math.IsNaN(res.Witness) {
		res.BF = 0
		return res
	}
	if res.Jump {
		res.BF = res.Witness
		return res
	}
	// Bracket [w, r]: w has h′ < 0, r the next evaluated point with h′ ≥ 0.
	sort.Slice(pts, func(i, j int) bool { return pts[i].q < pts[j].q })
	r := math.Inf(1)
	for _, p := range pts {
		if p.q > res.Witness && p.ok {
			r = p.q
			break
		}
	}
	if math.IsInf(r, 1) {
		res.BF = r
		return res
	}
	l := res.Witness
	for i := 0; i < 200; i++ {
		m := l + (r-l)/2
		if m <= l || m >= r {
			break
		}
		if fm.DH(m) < 0 {
			l = m
		} else {
			r = m
		}
	}
	res.BF = r
	return res
}

// Kinks returns the breakpoints where f or f′ is discontinuous: the
// enclosures of the one-sided values (from the pieces on either side,
// evaluated at the breakpoint) are disjoint, or one of them is undefined.
func (fm *Formula) Kinks() []float64 {
	var ks []float64
	for i, b := range fm.Breaks {
		l, r := fm.Pieces[i], fm.Pieces[i+1]
		x := Point(b)
		if disjoint(l.f.EvalInterval(x), r.f.EvalInterval(x)) || disjoint(l.f1.EvalInterval(x), r.f1.EvalInterval(x)) ||
			disjoint(l.f.EvalInterval(x), fm.AtBreak[i].f.EvalInterval(x)) {
			ks = append(ks, b)
		}
	}
	return ks
}

// disjoint reports whether a and b certainly differ (or either is unknown).
func disjoint(a, b Interval) bool {
	return a.Unknown() || b.Unknown() || a.Hi < b.Lo || b.Hi < a.Lo
}

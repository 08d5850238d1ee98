package lossassumptions

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems"
)

// lossAnalysis holds what several checks share: the formula, the settings,
// the search for b_f and the scan of f′.
type lossAnalysis struct {
	fm *symbolic.Formula
	s  *symbolic.Settings
	C  float64 // certified range [−C, C]
	Q  float64 // evidence up to |q| = Q
	bf symbolic.BFResult
	// fp is the analysis of f′ > 0 (B3.2), which ZD's strict decrease reuses.
	fp *fprimeScan
	// domain lists the margins where ℓ is undefined or not positive (found
	// by checkB31, which runs first).
	domain []failure
}

// domainFailure returns the first margin ≥ from where ℓ is undefined.
func (a *lossAnalysis) domainFailure(from float64) (failure, bool) {
	for _, f := range a.domain {
		if f.q >= from {
			return f, true
		}
	}
	return failure{}, false
}

// undefined returns a Violated outcome for a hypothesis that needs ℓ
// defined on [from, ∞) when it is not.
func (a *lossAnalysis) undefined(h LossHypothesis, from float64) (LossHypothesis, bool) {
	f, ok := a.domainFailure(from)
	if !ok {
		return h, false
	}
	h.Status = theorems.Violated
	h.Value = math.NaN()
	h.Witness = &LossWitness{f.q, f.detail}
	h.Detail = "ℓ is not defined (or not positive) at q = " + fmtQ(f.q) + ": " + f.detail
	return h, true
}

func newAnalysis(fm *symbolic.Formula, s *symbolic.Settings) *lossAnalysis {
	a := &lossAnalysis{fm: fm, s: s, C: s.CertifyTo, Q: s.EvidenceTo}
	a.bf = fm.BF(s)
	return a
}

// Tolerances of the kink test (oneSided). At a point z where a guard of
// |u|, √u or u^c vanishes, the jump J(h) = |f′(z+h) − f′(z−h)| is measured
// at h = 1e-6·s and 1e-9·s (s = max(1, |z|)). A C¹ function has J(h) → 0:
// J(h) = O(h·sup|f″|), so J shrinks by ~1000 between the two; a corner
// keeps J(h) at the size of the jump. kinkRelTol is the jump, relative to
// |f′|, below which a corner is not reported: far above the rounding of f′
// (a few ε) and of the O(h) term at h = 1e-9 for |f″| ≤ 1e3·|f′|.
const (
	kinkRelTol = 1e-6
	// kinkShrink: a jump that shrinks by less than this factor between
	// h = 1e-6 and 1e-9 does not tend to 0.
	kinkShrink = 10
)

// oneSided tests f′ for a corner at z; it returns a description when there
// is one.
func oneSided(p *symbolic.Piece, z float64) (bool, string) {
	s := math.Max(1, math.Abs(z))
	var j [2]float64
	var dl, dr float64
	for i, h := range []float64{1e-6 * s, 1e-9 * s} {
		dl, dr = p.EvalF1(z-h), p.EvalF1(z+h)
		if math.IsNaN(dl) || math.IsNaN(dr) || math.IsInf(dl, 0) || math.IsInf(dr, 0) {
			return true, fmt.Sprintf("f′ is not finite next to q = %s: f′(q−h) = %s, f′(q+h) = %s at h = %s", fmtQ(z), fmtV(dl), fmtV(dr), fmtQ(h))
		}
		j[i] = math.Abs(dr - dl)
	}
	tol := kinkRelTol * math.Max(1, math.Max(math.Abs(dl), math.Abs(dr)))
	if j[1] > tol && j[1]*kinkShrink > j[0] {
		return true, fmt.Sprintf("f′ jumps at q = %s: f′(q−h) = %s, f′(q+h) = %s (h = %s·max(1,|q|); the jump does not shrink with h)", fmtQ(z), fmtV(dl), fmtV(dr), "1e-9")
	}
	return false, ""
}

type failure struct {
	q      float64
	detail string
	rank   int // smaller first: domain, breakpoint, corner
}

// checkB31: f is C¹ on ℝ. ℓ must be defined and positive everywhere (the
// guards of the formula: log of a positive number, no division by zero,
// ℓ > 0), differentiable inside each piece (no corner of |u|, no infinite
// slope of √u), and f and f′ continuous across the breakpoints.
func (a *lossAnalysis) checkB31() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypB31, Source: "LL App. A.1", Claim: "f = −log ℓ is C¹ on ℝ", Value: math.NaN()}
	var fails []failure
	structural := true
	certified := true
	var notes []string
	// Each segment is checked on its negative and non-negative halves
	// separately, so that a failure at q ≥ 0 (where the margin theorems
	// live) is found even when there is one at q < 0.
	for _, seg := range a.fm.Segments(math.Inf(-1), math.Inf(1)) {
		p := seg.Piece
		for _, half := range [2][2]float64{{math.Inf(-1), 0}, {0, math.Inf(1)}} {
			slo, shi := math.Max(seg.Lo, half[0]), math.Min(seg.Hi, half[1])
			if !(slo < shi) {
				continue
			}
			lo, hi := math.Max(slo, -a.C), math.Min(shi, a.C)
			pos := half[0] == 0
			inside := func(q float64) bool {
				return q > seg.Lo && q < seg.Hi && (q >= 0) == pos
			}
			var grid []float64
			for _, q := range a.s.Grid(true) {
				if inside(q) && math.Abs(q) > a.C {
					grid = append(grid, q)
				}
			}
			for _, g := range p.Guards {
				if g.Proved {
					continue
				}
				structural = false
				if g.Kind == symbolic.GuardSmooth {
					for _, z := range a.zeros(g, lo, hi, grid, inside, &certified) {
						if kink, d := oneSided(p, z); kink {
							fails = append(fails, failure{z, fmt.Sprintf("%s: %s at %s", d, g.What, g.Site), 2})
						}
					}
					continue
				}
				for _, f := range a.guardFailures(g, p, lo, hi, grid, inside, &certified) {
					fails = append(fails, f)
					a.domain = append(a.domain, f)
				}
			}
		}
	}
	// Breakpoints: continuity of f and f′.
	for i, b := range a.fm.Breaks {
		structural = false
		l, r, at := a.fm.Pieces[i], a.fm.Pieces[i+1], a.fm.AtBreak[i]
		x := symbolic.Point(b)
		fl, fr, fa := l.IntervalF(x), r.IntervalF(x), at.IntervalF(x)
		dl, dr := l.IntervalF1(x), r.IntervalF1(x)
		switch {
		case fl.Unknown() || fr.Unknown() || fa.Unknown() || math.IsInf(fl.Lo, 0) || math.IsInf(fr.Lo, 0):
			fails = append(fails, failure{b, fmt.Sprintf("f is undefined or infinite at the breakpoint from one side: f(q⁻) = %s, f(q) = %s, f(q⁺) = %s", fmtV(l.EvalF(b)), fmtV(at.EvalF(b)), fmtV(r.EvalF(b))), 1})
		case disjointI(fl, fr) || disjointI(fl, fa) || disjointI(fa, fr):
			fails = append(fails, failure{b, fmt.Sprintf("f jumps at the breakpoint: f(q⁻) = %s, f(q) = %s, f(q⁺) = %s", fmtV(l.EvalF(b)), fmtV(at.EvalF(b)), fmtV(r.EvalF(b))), 1})
		case disjointI(dl, dr):
			fails = append(fails, failure{b, fmt.Sprintf("f′ jumps at the breakpoint (a kink): f′(q⁻) = %s, f′(q⁺) = %s (f is continuous there, f = %s)", fmtV(l.EvalF1(b)), fmtV(r.EvalF1(b)), fmtV(at.EvalF(b))), 1})
		default:
			notes = append(notes, fmt.Sprintf("at the breakpoint q = %s, f and f′ from both sides agree to within their enclosures (f = %s, f′ = %s)", fmtQ(b), fmtV(at.EvalF(b)), fmtV(l.EvalF1(b))))
		}
	}
	// Failures in order of kind, then nearest to 0 (the boundary of a bad
	// half-line, not its far end).
	sort.SliceStable(fails, func(i, j int) bool {
		if fails[i].rank != fails[j].rank {
			return fails[i].rank < fails[j].rank
		}
		return math.Abs(fails[i].q) < math.Abs(fails[j].q)
	})
	sort.SliceStable(a.domain, func(i, j int) bool { return math.Abs(a.domain[i].q) < math.Abs(a.domain[j].q) })
	if len(fails) > 0 {
		h.Status = theorems.Violated
		h.Witness = &LossWitness{fails[0].q, fails[0].detail}
		h.Detail = fails[0].detail
		seen := map[string]bool{fails[0].detail: true}
		for _, f := range fails[1:] {
			if !seen[f.detail] && len(h.Notes) < 4 {
				seen[f.detail] = true
				h.Notes = append(h.Notes, fmt.Sprintf("also at q = %s: %s", fmtQ(f.q), f.detail))
			}
		}
		return h
	}
	h.Status = theorems.Holds
	h.Notes = notes
	if structural {
		h.Certified = "ℝ (by the structure of the formula)"
		h.Detail = "ℓ is defined, positive and C¹ for every q: no log of a possibly non-positive number, no division by a possibly zero one, no |·|, √· or fractional power that may meet 0"
		return h
	}
	if certified {
		h.Certified = fmtRange(-a.C, a.C)
	}
	h.EvidenceTo = a.Q
	h.Detail = "ℓ is defined, positive and differentiable; no corner or jump found"
	return h
}

func disjointI(a, b symbolic.Interval) bool { return a.Hi < b.Lo || b.Hi < a.Lo }

// guardFailures checks a domain guard on one segment: certified by a scan
// on [lo, hi], sampled in the undecided spans and on the grid; a sign change
// of a "≠ 0" guard between samples is bisected to the zero.
func (a *lossAnalysis) guardFailures(g *symbolic.Guard, p *symbolic.Piece, lo, hi float64, grid []float64, inside func(float64) bool, certified *bool) []failure {
	var fails []failure
	fail := func(q float64) {
		fails = append(fails, failure{q, fmt.Sprintf("%s: %s, where it is %s", g.What, g.Site, fmtV(g.Value(q))), 0})
	}
	check := func(qs []float64) {
		prev, prevU := math.NaN(), math.NaN()
		var kept []float64 // the samples checked, for the even zeros (losspole.go)
		for _, q := range qs {
			if !inside(q) && !(q == lo || q == hi) {
				continue
			}
			u := g.Value(q)
			if !g.Holds(q, p.EvalF(q)) {
				fail(q)
				return
			}
			if g.Kind == symbolic.GuardNonZero && !math.IsNaN(prevU) && (u < 0) != (prevU < 0) {
				fail(numerics.BisectSign(g.Value, prev, q))
				return
			}
			prev, prevU = q, u
			kept = append(kept, q)
		}
		if g.Kind != symbolic.GuardNonZero {
			return
		}
		for i := 1; i+1 < len(kept); i++ {
			a, m, b := math.Abs(g.Value(kept[i-1])), math.Abs(g.Value(kept[i])), math.Abs(g.Value(kept[i+1]))
			if m <= a && m <= b && (m < a || m < b) {
				if z, ok := evenZero(g.Value, kept[i-1], kept[i+1]); ok {
					fails = append(fails, failure{z, fmt.Sprintf("%s (a pole of ℓ: the divisor touches 0 without changing sign): %s, where it is %s", g.What, g.Site, fmtV(g.Value(z))), 0})
					return
				}
			}
		}
	}
	if lo < hi {
		spans := symbolic.Scan(lo, hi, a.s.Scan, func(x symbolic.Interval) symbolic.Outcome {
			switch {
			case g.Certified(x):
				return symbolic.Certified
			case g.Refuted(x):
				return symbolic.Refuted
			}
			return symbolic.Undecided
		})
		for _, sp := range spans {
			switch sp.Outcome {
			case symbolic.Refuted:
				// Report the end of the bad stretch next to the good part.
				q := sp.Hi
				if !inside(q) || g.Holds(q, p.EvalF(q)) {
					q = sp.Lo
				}
				if !inside(q) || g.Holds(q, p.EvalF(q)) {
					q = sp.Lo + (sp.Hi-sp.Lo)/2
				}
				fail(q)
			case symbolic.Undecided:
				*certified = false
				check(symbolic.SpanPoints(sp.Lo, sp.Hi, 64))
			}
			if len(fails) > 0 {
				return fails
			}
		}
	}
	check(grid)
	return fails
}

// zeros returns the zeros of a smoothness guard's expression on a segment:
// a scan that certifies u ≠ 0, and in its undecided spans and on the grid
// the samples where u = 0 or changes sign (bisected).
func (a *lossAnalysis) zeros(g *symbolic.Guard, lo, hi float64, grid []float64, inside func(float64) bool, certified *bool) []float64 {
	var zs []float64
	scan := func(qs []float64) {
		prev, prevU := math.NaN(), math.NaN()
		for _, q := range qs {
			if !inside(q) {
				continue
			}
			u := g.Value(q)
			switch {
			case u == 0:
				zs = append(zs, q)
			case !math.IsNaN(prevU) && prevU != 0 && (u < 0) != (prevU < 0):
				zs = append(zs, numerics.BisectSign(g.Value, prev, q))
			}
			prev, prevU = q, u
		}
	}
	if lo < hi {
		spans := symbolic.Scan(lo, hi, a.s.Scan, func(x symbolic.Interval) symbolic.Outcome {
			if g.Certified(x) {
				return symbolic.Certified
			}
			return symbolic.Undecided
		})
		for _, sp := range spans {
			if sp.Outcome == symbolic.Undecided {
				*certified = false
				scan(symbolic.SpanPoints(sp.Lo, sp.Hi, 64))
			}
		}
	}
	scan(grid)
	if len(zs) > 8 {
		zs = zs[:8]
	}
	return zs
}

// fprimeScan is the analysis of f′ > 0 on ℝ.
type fprimeScan struct {
	// gaps are the parts of [−C, C] where f′ > 0 was not certified.
	gaps []symbolic.Span
	// nonNeg: f′ ≥ 0 certified on all of [−C, C].
	nonNeg bool
	// fails are the samples with f′ ≤ 0 (q, f′) that interval arithmetic
	// confirms: the enclosure of f′ at the point is ≤ 0.
	fails [][2]float64
	// uncertain are samples with f′ ≤ 0 in float64 whose enclosure reaches
	// above 0 (cancellation, or f′ underflowing: σ(−q) at q = 800).
	uncertain [][2]float64
	// zeros has one failure per gap (and each failing breakpoint or grid
	// point): the points the report names.
	zeros [][2]float64
	// tiny are gaps without a failing sample whose smallest sampled f′ is
	// below tinyFPrime times their largest: (argmin, min).
	tiny    [][2]float64
	samples int
	// strict: f is strictly increasing even where f′ = 0: f′ ≥ 0 is
	// certified on [−C, C] (and sampled beyond), and every piece with a
	// zero of f′ is real-analytic (Piece.Analytic) with f′ ≢ 0, so its zeros
	// are isolated and f has no flat stretch.
	strict bool
}

// confirmed reports whether f′(q) ≤ 0 is certified by the enclosure of f′
// at the point q, and records the sample as uncertain if not.
func (r *fprimeScan) confirmed(p *symbolic.Piece, q, d float64) bool {
	if v := p.IntervalF1(symbolic.Point(q)); !v.Unknown() && v.Hi <= 0 {
		return true
	}
	r.uncertain = append(r.uncertain, [2]float64{q, d})
	return false
}

func (a *lossAnalysis) scanFPrime() *fprimeScan {
	if a.fp != nil {
		return a.fp
	}
	r := &fprimeScan{nonNeg: true, strict: true}
	for _, seg := range a.fm.Segments(-a.C, a.C) {
		p := seg.Piece
		pos := symbolic.Scan(seg.Lo, seg.Hi, a.s.Scan, func(x symbolic.Interval) symbolic.Outcome {
			v := p.IntervalF1(x)
			switch {
			case v.Unknown():
				return symbolic.Undecided
			case v.Lo > 0:
				return symbolic.Certified
			case v.Hi <= 0:
				return symbolic.Refuted
			}
			return symbolic.Undecided
		})
		for _, sp := range pos {
			if sp.Outcome == symbolic.Certified {
				continue
			}
			r.gaps = append(r.gaps, sp)
			nn := symbolic.Scan(sp.Lo, sp.Hi, a.s.Scan, func(x symbolic.Interval) symbolic.Outcome {
				if v := p.IntervalF1(x); !v.Unknown() && v.Lo >= 0 {
					return symbolic.Certified
				}
				return symbolic.Undecided
			})
			for _, s := range nn {
				if s.Outcome != symbolic.Certified {
					r.nonNeg = false
				}
			}
			inside := func(q float64) bool {
				return !(q <= seg.Lo && seg.Lo > -a.C || q >= seg.Hi && seg.Hi < a.C) // breakpoints: checked from both sides below
			}
			pts := symbolic.SpanPoints(sp.Lo, sp.Hi, 64)
			// The minimum of f′ in the gap, where f″ changes sign from − to
			// +: a zero of f′ there need not lie on the sample grid.
			m := math.NaN()
			if p.EvalF2(sp.Lo) < 0 && p.EvalF2(sp.Hi) > 0 {
				m = numerics.BisectSign(p.EvalF2, sp.Lo, sp.Hi)
				pts = append(pts, m)
			}
			var gapFails [][2]float64
			gmin, gmax, argmin := math.Inf(1), 0.0, math.NaN()
			for _, q := range pts {
				if !inside(q) {
					continue
				}
				r.samples++
				d := p.EvalF1(q)
				if d < gmin {
					gmin, argmin = d, q
				}
				gmax = math.Max(gmax, math.Abs(d))
				if !(d > 0) {
					if !r.confirmed(p, q, d) {
						continue
					}
					gapFails = append(gapFails, [2]float64{q, d})
					if !p.Analytic() || sp.Outcome == symbolic.Refuted {
						r.strict = false
					}
				}
			}
			switch {
			case len(gapFails) > 0:
				r.fails = append(r.fails, gapFails...)
				// One zero per gap: the failure nearest the minimizer (or
				// the middle one).
				rep := gapFails[len(gapFails)/2]
				for _, f := range gapFails {
					if !math.IsNaN(m) && math.Abs(f[0]-m) < math.Abs(rep[0]-m) {
						rep = f
					}
				}
				r.zeros = append(r.zeros, rep)
			case gmin <= tinyFPrime*gmax:
				r.tiny = append(r.tiny, [2]float64{argmin, gmin})
			}
		}
	}
	// Breakpoints: both one-sided derivatives.
	for i, b := range a.fm.Breaks {
		if math.Abs(b) > a.C {
			continue
		}
		for _, p := range []*symbolic.Piece{a.fm.Pieces[i], a.fm.Pieces[i+1]} {
			r.samples++
			if d := p.EvalF1(b); !(d > 0) && r.confirmed(p, b, d) {
				r.fails = append(r.fails, [2]float64{b, d})
				r.zeros = append(r.zeros, [2]float64{b, d})
			}
		}
	}
	for _, q := range a.s.Grid(true) {
		if math.Abs(q) > a.C {
			r.samples++
			if d := a.fm.FPrime(q); !(d > 0) {
				r.strict = false
				if r.confirmed(a.fm.PieceAt(q), q, d) {
					r.fails = append(r.fails, [2]float64{q, d})
					r.zeros = append(r.zeros, [2]float64{q, d})
				}
			}
		}
	}
	r.strict = r.strict && r.nonNeg
	for _, f := range r.fails {
		if !(f[1] == 0) {
			r.strict = false
		}
	}
	a.fp = r
	return r
}

// tinyFPrime: a gap of the f′ > 0 scan (where interval arithmetic could not
// certify f′ > 0) whose smallest sampled f′ is below 1e-12 of its largest
// looks like a zero of f′ that lies between float64 numbers (f′ = 3(q−1/3)²
// is ≥ 1e-33 at every float): the check is then inconclusive, not a pass.
// A gap that only reflects the overestimation of interval arithmetic has
// samples of one size.
const tinyFPrime = 1e-12

// checkB32: f′(q) > 0 for all q ∈ ℝ.
func (a *lossAnalysis) checkB32() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypB32, Source: "LL App. A.1", Claim: "f′(q) > 0 for all q ∈ ℝ", Value: math.NaN()}
	if u, ok := a.undefined(h, math.Inf(-1)); ok {
		return u
	}
	r := a.scanFPrime()
	if len(r.fails) == 0 && len(r.uncertain) > 0 {
		u := r.uncertain[0]
		h.Status = theorems.Inconclusive
		h.Detail = fmt.Sprintf("f′(%s) = %s in float64, but its enclosure reaches above 0 (cancellation or underflow): f′ > 0 could be neither certified nor refuted there", fmtQ(u[0]), fmtV(u[1]))
		return h
	}
	if len(r.fails) == 0 && len(r.tiny) > 0 {
		h.Status = theorems.Inconclusive
		h.Detail = fmt.Sprintf("f′ > 0 could not be certified near q = %s, where f′ = %s, 1e-12 below the values around it: a zero of f′ between float64 numbers cannot be excluded", fmtQ(r.tiny[0][0]), fmtV(r.tiny[0][1]))
		return h
	}
	if len(r.fails) == 0 {
		h.Status = theorems.Holds
		if len(r.gaps) == 0 {
			h.Certified = fmtRange(-a.C, a.C)
		} else {
			h.Notes = append(h.Notes, "f′ > 0 not certified on "+spanList(r.gaps)+" (sampled there)")
		}
		h.EvidenceTo = a.Q
		h.Detail = "f′ > 0 everywhere: ℓ is strictly decreasing"
		return h
	}
	// The witness: the most negative f′, then the smallest |q|.
	w := r.fails[0]
	for _, f := range r.fails[1:] {
		if f[1] < w[1] || f[1] == w[1] && math.Abs(f[0]) < math.Abs(w[0]) {
			w = f
		}
	}
	h.Status = theorems.Violated
	h.Witness = &LossWitness{w[0], fmt.Sprintf("f′(%s) = %s", fmtQ(w[0]), fmtV(w[1]))}
	var zs []string
	neg := false
	for _, f := range r.fails {
		if f[1] < 0 || math.IsNaN(f[1]) {
			neg = true
		}
	}
	for _, z := range r.zeros {
		if len(zs) < 5 {
			zs = append(zs, fmtQ(z[0]))
		}
	}
	h.Detail = fmt.Sprintf("f′(%s) = %s", fmtQ(w[0]), fmtV(w[1]))
	narrow := true
	for _, g := range r.gaps {
		if g.Outcome == symbolic.Refuted || g.Hi-g.Lo > 1e-6*a.C {
			narrow = false
		}
	}
	if !neg && r.nonNeg && narrow {
		h.Detail = fmt.Sprintf("f′ vanishes at the isolated point q = %s (f′(%s) = %s); elsewhere f′ > 0", zs[0], zs[0], fmtV(w[1]))
		if len(r.zeros) > 1 {
			h.Detail = fmt.Sprintf("f′ vanishes at the isolated points q = %s; elsewhere f′ > 0", strings.Join(zs, ", "))
		}
		h.Notes = append(h.Notes, fmt.Sprintf("f′ ≥ 0 certified on %s; f′ > 0 certified there except on %s, where f′ = 0 at q = %s (%d samples, and the minimizer of f′ where f″ changes sign)",
			fmtRange(-a.C, a.C), spanList(r.gaps), strings.Join(zs, ", "), r.samples))
		if r.strict {
			h.Notes = append(h.Notes, "f is still strictly increasing, so ℓ is strictly decreasing: f′ ≥ 0, and f′ is real-analytic and not ≡ 0, so its zeros are isolated")
		}
	}
	// Where (B3.2) holds: beyond the last failure.
	last := math.Inf(-1)
	for _, f := range r.fails {
		last = math.Max(last, f[0])
	}
	bf := a.bf.BF
	if !math.IsInf(bf, 0) && last <= bf {
		where := "(" + fmtQ(bf) + ", ∞)"
		cert := ""
		if lo := a.certifiedAbove(bf); lo < a.C {
			cert = "certified on " + fmtRange(lo, a.C)
			if lo > bf {
				cert += ", sampled on " + "(" + fmtQ(bf) + ", " + fmtQ(lo) + ")"
			}
			cert += ", numerical evidence up to q = " + fmtQ(a.Q)
		}
		h.Notes = append(h.Notes, fmt.Sprintf("holds on (b_f, ∞) = %s (%s): the range the margin theorems use after t₀, when every q_n > b_f", where, cert))
	}
	return h
}

// certifiedAbove returns the smallest x ≥ from such that f′ > 0 is
// certified on [x, C].
func (a *lossAnalysis) certifiedAbove(from float64) float64 {
	x := from
	for _, g := range a.scanFPrime().gaps {
		if g.Hi > x {
			x = g.Hi
		}
	}
	return x
}

func spanList(ss []symbolic.Span) string {
	var parts []string
	for i, s := range ss {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(ss)-4))
			break
		}
		parts = append(parts, fmtRange(s.Lo, s.Hi))
	}
	return strings.Join(parts, " ∪ ")
}

// growth classifies a sequence of values at q = 10², …, 10⁶ (or any
// sequence of equal steps in log q) as tending to +∞ or bounded, from the
// ratio r of its last two increments: r ≥ 0.9 (increments per decade that
// do not shrink: at least log-growth, h ~ c·log q has r = 1, h ~ q^a has
// r = 10^a) is unbounded; r ≤ 0.5 (increments shrinking geometrically: a
// limit approached like q^{−a}, a ≥ 0.3) is bounded, with the limit
// extrapolated as last + d·r/(1 − r); in between it is undecided. A
// sequence that stops increasing is bounded. This cannot tell log-growth
// from convergence slower than q^{−0.05}: that is the limit of sampling.
type growthKind int

// growthTol is the relative change per decade below which a sequence counts
// as constant: 1e-10, far above the rounding of the values (a few ε) and
// far below any growth the test is meant to see.
const growthTol = 1e-10

const (
	growthUnknown growthKind = iota
	growthUnbounded
	growthBounded
)

func growth(v []float64) (kind growthKind, limit, ratio float64) {
	n := len(v)
	if n < 3 {
		// Two increments are needed (a short evidence range, e.g. loss
		// --evidence 1e3, samples fewer decades): nothing can be said.
		return growthUnknown, math.NaN(), math.NaN()
	}
	for _, x := range v {
		if math.IsNaN(x) {
			return growthUnknown, math.NaN(), math.NaN()
		}
	}
	if math.IsInf(v[n-1], 1) {
		return growthUnbounded, math.Inf(1), math.Inf(1)
	}
	dn, dp := v[n-1]-v[n-2], v[n-2]-v[n-3]
	// Increments below growthTol of the values are rounding, not growth: a
	// ratio f′(y)/f′(θy) that is constant in y (a power law) varies by a
	// few ε from decade to decade.
	if math.Abs(dn) <= growthTol*math.Abs(v[n-1]) {
		dn = 0
	}
	if math.Abs(dp) <= growthTol*math.Abs(v[n-2]) {
		dp = 0
	}
	if dn <= 0 {
		return growthBounded, v[n-1], 0
	}
	if dp <= 0 {
		return growthUnknown, math.NaN(), math.NaN()
	}
	r := dn / dp
	switch {
	case r >= 0.9:
		return growthUnbounded, math.Inf(1), r
	case r <= 0.5:
		return growthBounded, v[n-1] + dn*r/(1-r), r
	}
	return growthUnknown, math.NaN(), r
}

// decades returns 10², 10³, …, up to Q.
func (a *lossAnalysis) decades() []float64 {
	var qs []float64
	for e := 2.0; math.Pow(10, e) <= a.Q*(1+1e-12); e++ {
		qs = append(qs, math.Pow(10, e))
	}
	if len(qs) < 3 {
		qs = []float64{a.Q / 100, a.Q / 10, a.Q}
	}
	return qs
}

// checkB33: f′(q)q is non-decreasing on (b_f, ∞) for some b_f ≥ 0 and
// tends to +∞; reports the smallest admissible b_f.
func (a *lossAnalysis) checkB33() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypB33, Source: "LL App. A.1", Claim: "f′(q)q non-decreasing on (b_f, ∞), b_f ≥ 0, and f′(q)q → ∞", ValueName: "b_f", Value: a.bf.BF}
	bf := a.bf
	if u, ok := a.undefined(h, 0); ok {
		return u
	}
	if math.IsInf(bf.BF, 1) {
		h.Status = theorems.Violated
		h.Witness = &LossWitness{bf.Witness, fmt.Sprintf("(f′q)′ = f″q + f′ = %s < 0 at the largest sampled q", fmtV(bf.WitnessDH))}
		upTo := a.Q
		if !math.IsNaN(bf.Underflow) {
			upTo = bf.Underflow
			h.Notes = append(h.Notes, fmt.Sprintf("f′ and f″ underflow to 0 from q = %s on: the samples stop there", fmtQ(bf.Underflow)))
		}
		h.Detail = "f′(q)q still decreases at q = " + fmtQ(bf.Witness) + ": no admissible b_f up to " + fmtQ(upTo)
		return h
	}
	// Growth of h(q) = f′(q)q at q = 10², …, Q.
	ds := a.decades()
	vals := make([]float64, len(ds))
	for i, q := range ds {
		vals[i] = a.fm.FPrime(q) * q
	}
	kind, limit, ratio := growth(vals)
	last := ds[len(ds)-1]
	hl := vals[len(vals)-1]
	bfNote := "b_f = 0: (f′q)′ = f″q + f′ ≥ 0 on (0, ∞)"
	if bf.BF > 0 {
		if bf.Jump {
			bfNote = fmt.Sprintf("b_f = %s: f′q jumps down at that breakpoint", fmtQ(bf.BF))
		} else {
			bfNote = fmt.Sprintf("b_f = %s is the smallest admissible: (f′q)′ = f″q + f′ < 0 just below (%s at q = %s) and ≥ 0 beyond", fmtV(bf.BF), fmtV(bf.WitnessDH), fmtQ(bf.Witness))
		}
	}
	switch kind {
	case growthBounded:
		h.Status = theorems.Violated
		h.Witness = &LossWitness{last, fmt.Sprintf("f′(q)q = %s at q = %s", fmtV(hl), fmtQ(last))}
		h.Detail = fmt.Sprintf("f′(q)q → %s (bounded): f′(%s)·%s = %s, its increments per decade of q shrink ×%s", fmtV(limit), fmtQ(last), fmtQ(last), fmtV(hl), fmtV(ratio))
		h.Notes = append(h.Notes, "the non-decreasing part holds with "+bfNote)
		return h
	case growthUnknown:
		h.Status = theorems.Inconclusive
		h.Detail = fmt.Sprintf("cannot tell whether f′(q)q → ∞: f′(q)q = %s at q = %s, ratio of the last increments per decade %s (neither ≥ 0.9 nor ≤ 0.5)", fmtV(hl), fmtQ(last), fmtV(ratio))
		return h
	}
	h.Status = theorems.Holds
	h.Detail = fmt.Sprintf("%s; f′(q)q → ∞ (f′(%s)·%s = %s, growing ×%s per decade)", bfNote, fmtQ(last), fmtQ(last), fmtV(hl), fmtV(ratio))
	// Certified part: the certified spans that reach C.
	lo := a.C
	for i := len(bf.Spans) - 1; i >= 0; i-- {
		sp := bf.Spans[i]
		if sp.Outcome != symbolic.Certified || sp.Hi < lo {
			break
		}
		lo = sp.Lo
	}
	if lo < a.C {
		h.Certified = fmtRange(math.Max(lo, bf.BF), a.C)
		if lo > bf.BF {
			h.Notes = append(h.Notes, fmt.Sprintf("monotonicity sampled only on (%s, %s), where interval arithmetic cannot separate (f′q)′ from 0", fmtQ(bf.BF), fmtQ(lo)))
		}
	}
	h.EvidenceTo = a.Q
	return h
}

// checkB4: the separability threshold ℓ(b_f) = e^{−f(b_f)} of (B4) exists.
func (a *lossAnalysis) checkB4() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypB4, Source: "LL App. A.1", Claim: "threshold ℓ(b_f) = e^{−f(b_f)}: 𝓛 < ℓ(b_f) ⇒ every q_n > b_f", ValueName: "ℓ(b_f)", Value: math.NaN()}
	bf := a.bf.BF
	if u, ok := a.undefined(h, 0); ok {
		return u
	}
	if math.IsInf(bf, 0) {
		h.Status = theorems.Violated
		h.Detail = "no admissible b_f, so no threshold"
		h.Witness = &LossWitness{a.bf.Witness, "f′(q)q decreases there"}
		return h
	}
	fb := a.fm.F(bf)
	if math.IsNaN(fb) || math.IsInf(fb, 0) {
		h.Status = theorems.Violated
		h.Witness = &LossWitness{bf, fmt.Sprintf("f(b_f) = %s", fmtV(fb))}
		h.Detail = "ℓ(b_f) is not a positive number"
		return h
	}
	h.Status = theorems.Holds
	h.Value = math.Exp(-fb)
	h.Detail = fmt.Sprintf("ℓ(b_f) = %s (log ℓ(b_f) = −f(b_f) = %s, b_f = %s)", fmtV(math.Exp(-fb)), fmtV(-fb), fmtQ(bf))
	if bf == 0 {
		h.Detail += ": separation 𝓛 < ℓ(0) means every q_n > 0"
	}
	return h
}

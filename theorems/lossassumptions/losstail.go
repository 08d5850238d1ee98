package lossassumptions

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems"
)

// thetas are the θ ∈ [1/2, 1) of (B3.4)'s doubling conditions: 1/2 + j/64.
func thetas() []float64 {
	ts := make([]float64, 32)
	for j := range ts {
		ts[j] = 0.5 + float64(j)/64
	}
	return ts
}

// ratioSearch is the sup of a ratio over a grid, with the sups per decade
// of q for the growth test.
type ratioSearch struct {
	max, at, theta float64
	decade         []float64
}

// checkB34: the doubling conditions g′(x) ≤ K g′(θx) for x > b_g and
// f′(y) ≤ K f′(θy) for y > g(b_g), θ ∈ [1/2, 1), with
// b_g = max(2f(b_f), f(2b_f)) (the smallest LL allows). K is the sup of the
// ratios over a grid of y (geometric from just above g(b_g) to Q) and x
// (from just above b_g to f(Q)) and 32 values of θ; a sup that keeps
// growing from decade to decade of q (growth) means no finite K.
func (a *lossAnalysis) checkB34() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypB34, Source: "LL App. A.1", Claim: "g′(x) ≤ K g′(θx), f′(y) ≤ K f′(θy) for x > b_g, y > g(b_g), θ ∈ [1/2, 1)", ValueName: "K", Value: math.NaN()}
	if u, ok := a.undefined(h, 0); ok {
		return u
	}
	b := a.bf.BF
	if math.IsInf(b, 0) {
		h.Status = theorems.Inconclusive
		h.Detail = "needs b_f, and (B3.3) found none"
		return h
	}
	fm := a.fm
	bg := math.Max(2*fm.F(b), fm.F(2*b))
	y0 := fm.Inverse(bg, b)
	fQ := fm.F(a.Q)
	if math.IsNaN(y0) || !(y0 < a.Q) || !(fQ > bg) {
		h.Status = theorems.Inconclusive
		h.Detail = fmt.Sprintf("g(b_g) not found below q = %s (b_g = %s)", fmtQ(a.Q), fmtV(bg))
		return h
	}
	ds := a.decades()
	decadeOf := func(q float64) int {
		for i := len(ds) - 2; i >= 0; i-- {
			if q >= ds[i] {
				return i
			}
		}
		return -1
	}
	search := func(xs []float64, ratio func(x, t float64) float64, qOf func(x float64) float64) ratioSearch {
		rs := ratioSearch{max: math.Inf(-1), decade: make([]float64, len(ds)-1)}
		for i := range rs.decade {
			rs.decade[i] = math.Inf(-1)
		}
		for _, x := range xs {
			d := decadeOf(qOf(x))
			for _, t := range thetas() {
				r := ratio(x, t)
				if math.IsNaN(r) {
					r = math.Inf(1)
				}
				if r > rs.max {
					rs.max, rs.at, rs.theta = r, x, t
				}
				if d >= 0 && r > rs.decade[d] {
					rs.decade[d] = r
				}
			}
		}
		return rs
	}
	d0 := 1e-6 * math.Max(1, math.Abs(y0))
	ys := symbolic.GeomGrid(d0, a.Q-y0, 300)
	for i := range ys {
		ys[i] += y0
	}
	fs := search(ys, func(y, t float64) float64 { return fm.FPrime(y) / fm.FPrime(t*y) }, func(y float64) float64 { return y })
	dx := 1e-6 * math.Max(1, math.Abs(bg))
	xs := symbolic.GeomGrid(dx, fQ-bg, 200)
	gOf := map[float64]float64{}
	for i := range xs {
		xs[i] += bg
		gOf[xs[i]] = fm.Inverse(xs[i], b)
	}
	gs := search(xs, func(x, t float64) float64 {
		return fm.FPrime(fm.Inverse(t*x, b)) / fm.FPrime(gOf[x])
	}, func(x float64) float64 { return gOf[x] })

	type cond struct {
		name string
		rs   ratioSearch
		desc func(rs ratioSearch) string
	}
	conds := []cond{
		{"f′", fs, func(rs ratioSearch) string {
			return fmt.Sprintf("f′(y)/f′(θy) = %s at y = %s, θ = %s", fmtV(rs.max), fmtQ(rs.at), fmtV(rs.theta))
		}},
		{"g′", gs, func(rs ratioSearch) string {
			return fmt.Sprintf("g′(x)/g′(θx) = %s at x = %s (q = g(x) = %s), θ = %s", fmtV(rs.max), fmtQ(rs.at), fmtQ(gOf[rs.at]), fmtV(rs.theta))
		}},
	}
	K := math.Inf(-1)
	for _, c := range conds {
		kind, _, ratio := growth(c.rs.decade)
		switch {
		case math.IsInf(c.rs.max, 1):
			h.Status = theorems.Violated
			q := c.rs.at
			if c.name == "g′" {
				q = gOf[q]
			}
			h.Witness = &LossWitness{q, c.desc(c.rs)}
			h.Detail = fmt.Sprintf("the %s condition has no finite K: %s", c.name, c.desc(c.rs))
			return h
		case kind == growthUnbounded:
			h.Status = theorems.Violated
			q := c.rs.at
			if c.name == "g′" {
				q = gOf[q]
			}
			h.Witness = &LossWitness{q, c.desc(c.rs)}
			h.Detail = fmt.Sprintf("the %s condition has no finite K: %s, and the sup over each decade of q keeps growing (its increments ×%s per decade)", c.name, c.desc(c.rs), fmtV(ratio))
			return h
		case kind == growthUnknown:
			h.Status = theorems.Inconclusive
			h.Detail = fmt.Sprintf("cannot tell whether the %s ratio stays bounded: %s", c.name, c.desc(c.rs))
			return h
		}
		K = math.Max(K, c.rs.max)
	}
	h.Status = theorems.Holds
	h.Value = K
	h.EvidenceTo = a.Q
	h.Detail = fmt.Sprintf("K = %s, b_g = %s (sup over θ ∈ [1/2, 1) and the grid; %s; %s)", fmtV(K), fmtV(bg), conds[0].desc(fs), conds[1].desc(gs))
	// Certify the f′ condition on [y_c, C] with a little headroom over the
	// sampled sup (the sup between grid points may be slightly larger).
	kc := fs.max * (1 + doublingHeadroom)
	if yc := a.certifyDoubling(y0, a.C, kc); yc < a.C {
		h.Certified = fmtRange(yc, a.C) + " (f′ condition)"
		h.Notes = append(h.Notes, fmt.Sprintf("f′(y) ≤ %s·f′(θy) certified for y ∈ %s, θ ∈ [1/2, 1] (interval arithmetic on boxes); the g′ condition and the rest of the f′ condition are sampled", fmtV(kc), fmtRange(yc, a.C)))
	}
	return h
}

// doublingHeadroom is the relative margin over the sampled sup K of
// f′(y)/f′(θy) that the certification of (B3.4) asks for: 1e-3, enough for
// the sup between grid points (the grid's steps in y and θ are ~5% and
// 1/64) of ratios that vary smoothly, and small enough to be a statement
// about the K reported.
const doublingHeadroom = 1e-3

// doublingBudget bounds the boxes the certification of (B3.4) evaluates.
const doublingBudget = 60000

// certifyDoubling returns the smallest y_c ≥ lo (on a geometric ladder from
// hi down, ratio 1.05) such that f′(y)/f′(θy) ≤ K is certified for all
// y ∈ [y_c, hi] and θ ∈ [1/2, 1], or hi if not even the top cell is.
func (a *lossAnalysis) certifyDoubling(lo, hi, K float64) float64 {
	budget := doublingBudget
	yc := hi
	floor := math.Max(lo, 1e-6*math.Max(1, math.Abs(lo)))
	for y1 := hi; y1 > floor; {
		y0 := math.Max(floor, y1/1.05)
		if !a.certifyBox(y0, y1, 0.5, 1, K, 0, &budget) {
			break
		}
		yc, y1 = y0, y0
	}
	return yc
}

// certifyBox certifies f′(Y)/f′(ΘY) ≤ K on the box Y × Θ, halving the
// relatively wider side until it can (depth ≤ 30, within the budget). A box
// whose Y or ΘY crosses a breakpoint is not certified.
func (a *lossAnalysis) certifyBox(y0, y1, t0, t1, K float64, depth int, budget *int) bool {
	if *budget <= 0 {
		return false
	}
	*budget--
	Y, T := symbolic.Interval{Lo: y0, Hi: y1}, symbolic.Interval{Lo: t0, Hi: t1}
	TY := symbolic.IMul(T, Y)
	p, ok1 := a.fm.PieceOn(y0, y1)
	pt, ok2 := a.fm.PieceOn(TY.Lo, TY.Hi)
	if ok1 && ok2 {
		den := pt.IntervalF1(TY)
		if !den.Unknown() && den.Lo > 0 {
			if r := symbolic.IDiv(p.IntervalF1(Y), den); !r.Unknown() && r.Hi <= K {
				return true
			}
		}
	}
	if depth >= 30 {
		return false
	}
	if (y1-y0)/y1 > (t1-t0)/t1 {
		m := y0 + (y1-y0)/2
		return a.certifyBox(y0, m, t0, t1, K, depth+1, budget) && a.certifyBox(m, y1, t0, t1, K, depth+1, budget)
	}
	m := t0 + (t1-t0)/2
	return a.certifyBox(y0, y1, t0, m, K, depth+1, budget) && a.certifyBox(y0, y1, m, t1, K, depth+1, budget)
}

// checkTightTail: XY App. A.1.1 (Soudry et al.'s tight exponential tail):
// −ℓ′(u) = c·e^{−au}·(1 + r(u)) with |r(u)| ≤ e^{−μu} for large u, c, a,
// μ > 0. In log form, with −ℓ′ = f′e^{−f}:
//
//	a = lim f′(u),  log c = lim L(u),  L(u) = log f′(u) − f(u) + a·u,
//
// and r(u) = L(u) − log c must decay exponentially. a is f′(Q) when f′ has
// converged (growth over decades); log c = L(Q); r(u) is compared with the
// rounding floor 8ε·(|log f′| + |f| + a·u + |log c|) of the sum that forms
// it: a tight tail reaches the floor by u = 1e4 (rate μ ≥ ~4e-3) and stays
// there. μ is fitted on the samples above 100 floors.
func (a *lossAnalysis) checkTightTail() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypTightTail, Source: "XY App. A.1.1 (Soudry et al.)", Claim: "tight exponential tail: −ℓ′(u) = c·e^{−au}(1 + O(e^{−μu}))", ValueName: "a", Value: math.NaN()}
	if u, ok := a.undefined(h, 0); ok {
		return u
	}
	fm := a.fm
	ds := a.decades()
	fp := make([]float64, len(ds))
	for i, q := range ds {
		fp[i] = fm.FPrime(q)
	}
	Q := ds[len(ds)-1]
	aQ := fp[len(fp)-1]
	kind, _, ratio := growth(fp)
	inv := make([]float64, len(fp))
	for i, v := range fp {
		inv[i] = -v
	}
	kindDown, _, _ := growth(inv)
	switch {
	case math.IsNaN(aQ):
		h.Status = theorems.Inconclusive
		h.Detail = "f′ is undefined at large q"
		return h
	case kind == growthUnbounded:
		h.Status = theorems.Violated
		h.Witness = &LossWitness{Q, fmt.Sprintf("f′(%s) = %s", fmtQ(Q), fmtV(aQ))}
		h.Detail = fmt.Sprintf("f′(u) → ∞ (f′(%s) = %s, increments ×%s per decade): −ℓ′ decays faster than any e^{−au}", fmtQ(Q), fmtV(aQ), fmtV(ratio))
		return h
	case !(aQ > 0) || kindDown == growthUnbounded || aQ < 1e-3*fp[0]:
		h.Status = theorems.Violated
		h.Witness = &LossWitness{Q, fmt.Sprintf("f′(%s) = %s", fmtQ(Q), fmtV(aQ))}
		h.Detail = fmt.Sprintf("f′(u) → 0 (f′(%s) = %s): −ℓ′ decays slower than any e^{−au} (a heavier, e.g. polynomial, tail)", fmtQ(Q), fmtV(aQ))
		return h
	case math.Abs(aQ-fp[len(fp)-2]) > 1e-8*aQ:
		h.Status = theorems.Violated
		h.Witness = &LossWitness{Q, fmt.Sprintf("f′(%s) = %s, f′(%s) = %s", fmtQ(ds[len(ds)-2]), fmtV(fp[len(fp)-2]), fmtQ(Q), fmtV(aQ))}
		h.Detail = fmt.Sprintf("f′ has not converged to a constant a by u = %s (f′ = %s there, %s a decade earlier): the tail is not c·e^{−au} up to exponentially small terms", fmtQ(Q), fmtV(aQ), fmtV(fp[len(fp)-2]))
		return h
	}
	A := aQ
	L := func(u float64) float64 { return math.Log(fm.FPrime(u)) - fm.F(u) + A*u }
	logc := L(Q)
	us := symbolic.GeomGrid(1, Q, 240)
	floor := func(u float64) float64 {
		return 8 * 0x1p-52 * (math.Abs(math.Log(fm.FPrime(u))) + math.Abs(fm.F(u)) + A*u + math.Abs(logc))
	}
	u0 := math.NaN()
	var fitU, fitR []float64
	for i := len(us) - 1; i >= 0; i-- {
		u := us[i]
		r := math.Abs(L(u) - logc)
		if !(r <= floor(u)) {
			if math.IsNaN(u0) {
				u0 = u
			}
			if r > 100*floor(u) && r < 1 {
				fitU, fitR = append(fitU, u), append(fitR, math.Log(r))
			}
		}
	}
	// u0 is the largest u above the floor: beyond it r is at rounding level.
	const tightBy = 1e4
	if u0 > tightBy {
		h.Status = theorems.Violated
		r := L(u0) - logc
		h.Witness = &LossWitness{u0, fmt.Sprintf("−ℓ′(u)e^{au}/c − 1 = %s at u = %s", fmtV(math.Expm1(r)), fmtQ(u0))}
		h.Detail = fmt.Sprintf("−ℓ′(u)e^{au} → c only slowly: the relative deviation is still %s at u = %s (a tight tail reaches rounding level by u = 1e4)", fmtV(math.Expm1(r)), fmtQ(u0))
		return h
	}
	h.Status = theorems.Holds
	h.Value = A
	h.EvidenceTo = a.Q
	c := math.Exp(logc)
	if len(fitU) >= 2 {
		mu := -numerics.Slope(fitU, fitR)
		h.Detail = fmt.Sprintf("a = %s, c = %s, μ ≈ %s (−ℓ′(u)e^{au}/c − 1 is at rounding level beyond u = %s)", fmtV(A), fmtV(c), fmtV(mu), fmtQ(u0))
	} else {
		h.Detail = fmt.Sprintf("a = %s, c = %s: −ℓ′(u) = c·e^{−au} exactly, to rounding, beyond u = 1", fmtV(A), fmtV(c))
	}
	return h
}

// checkConvex: ZD Thm 8's convexity of ℓ on ℝ. ℓ″ = (f′² − f″)e^{−f}, so
// ℓ is convex inside a piece iff h₂ = f′² − f″ ≥ 0 (certified on [−C, C],
// sampled beyond), and across a breakpoint ℓ′ = −f′ℓ may only jump up:
// f′(b⁺) ≤ f′(b⁻).
func (a *lossAnalysis) checkConvex() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypConvex, Source: "ZD Thm 8", Claim: "ℓ is convex on ℝ", Value: math.NaN()}
	if u, ok := a.undefined(h, math.Inf(-1)); ok {
		return u
	}
	var worstQ, worstH = math.NaN(), 0.0
	certified := true
	note := func(q, v float64) {
		if v < worstH || math.IsNaN(v) && math.IsNaN(worstQ) {
			worstQ, worstH = q, v
		}
	}
	for _, seg := range a.fm.Segments(-a.C, a.C) {
		p := seg.Piece
		// Two enclosures of the sign of ℓ″, both sound: h₂ = f′² − f″
		// (which cancels where f′² ≈ f″, e.g. the logistic loss at q → −∞)
		// and ℓ″ as written (which underflows where ℓ does).
		spans := symbolic.Scan(seg.Lo, seg.Hi, a.s.Scan, func(x symbolic.Interval) symbolic.Outcome {
			v, w := p.IntervalH2(x), p.IntervalL2(x)
			switch {
			case !v.Unknown() && v.Lo >= 0 || !w.Unknown() && w.Lo >= 0:
				return symbolic.Certified
			case !v.Unknown() && v.Hi < 0 || !w.Unknown() && w.Hi < 0:
				return symbolic.Refuted
			}
			return symbolic.Undecided
		})
		for _, sp := range spans {
			if sp.Outcome == symbolic.Certified {
				continue
			}
			certified = false
			for _, q := range symbolic.SpanPoints(sp.Lo, sp.Hi, 64) {
				note(q, l2Sign(p, q))
			}
		}
	}
	for _, q := range a.s.Grid(true) {
		if math.Abs(q) > a.C {
			note(q, l2Sign(a.fm.PieceAt(q), q))
		}
	}
	for i, b := range a.fm.Breaks {
		l, r := a.fm.Pieces[i], a.fm.Pieces[i+1]
		dl, dr := l.IntervalF1(symbolic.Point(b)), r.IntervalF1(symbolic.Point(b))
		if dr.Lo > dl.Hi {
			h.Status = theorems.Violated
			ell := math.Exp(-a.fm.F(b))
			h.Witness = &LossWitness{b, fmt.Sprintf("ℓ′(q⁻) = %s > ℓ′(q⁺) = %s", fmtV(-l.EvalF1(b)*ell), fmtV(-r.EvalF1(b)*ell))}
			h.Detail = "ℓ′ jumps down at the breakpoint (a concave corner): " + h.Witness.Detail
			return h
		}
	}
	if worstH < 0 || math.IsNaN(worstH) {
		h.Status = theorems.Violated
		l2 := math.Exp(logAbsCurv(a.fm.PieceAt(worstQ), worstQ))
		h.Witness = &LossWitness{worstQ, fmt.Sprintf("ℓ″(%s) = %s < 0", fmtQ(worstQ), fmtV(-l2))}
		h.Detail = fmt.Sprintf("ℓ is concave near q = %s: ℓ″(%s) = %s", fmtQ(worstQ), fmtQ(worstQ), fmtV(-l2))
		return h
	}
	h.Status = theorems.Holds
	if certified {
		h.Certified = fmtRange(-a.C, a.C)
	}
	h.EvidenceTo = a.Q
	h.Detail = "ℓ″ = (f′² − f″)e^{−f} ≥ 0"
	return h
}

// l2Sign returns a number with the sign of ℓ″(q): ℓ″ as written where it
// is a normal number, else f′² − f″ (ℓ″ = (f′² − f″)e^{−f}).
func l2Sign(p *symbolic.Piece, q float64) float64 {
	if v := p.EvalL2(q); math.Abs(v) >= 0x1p-1000 && !math.IsInf(v, 0) {
		return v
	}
	return p.EvalH2(q)
}

// logAbsCurv returns log|ℓ″(q)|: from ℓ″ as written where it is a normal
// number, else log|f′² − f″| − f.
func logAbsCurv(p *symbolic.Piece, q float64) float64 {
	if v := p.EvalL2(q); math.Abs(v) >= 0x1p-1000 && !math.IsInf(v, 0) {
		return math.Log(math.Abs(v))
	}
	return math.Log(math.Abs(p.EvalH2(q))) - p.EvalF(q)
}

// checkSmooth: ZD Thm 8's L-smoothness, |ℓ″| ≤ L on ℝ. It needs ℓ′
// continuous ((B3.1): a kink of f is a jump of ℓ′), and sup|ℓ″| finite:
// |ℓ″| = |f′² − f″|e^{−f} is bounded by interval arithmetic on [−C, C]
// (4096 cells per piece) and sampled beyond, where its log at q = ±10²…±Q
// must not grow (growth).
func (a *lossAnalysis) checkSmooth(b31 LossHypothesis) LossHypothesis {
	h := LossHypothesis{ID: theorems.HypSmooth, Source: "ZD Thm 8", Claim: "ℓ is L-smooth on ℝ: |ℓ″| ≤ L", ValueName: "L", Value: math.NaN()}
	if u, ok := a.undefined(h, math.Inf(-1)); ok {
		return u
	}
	if b31.Status == theorems.Violated {
		h.Status = theorems.Violated
		h.Witness = b31.Witness
		h.Detail = "ℓ′ is not continuous (B3.1 fails): " + b31.Witness.Detail
		return h
	}
	fm := a.fm
	logAbsCurv := func(q float64) float64 { return logAbsCurv(fm.PieceAt(q), q) }
	// Sampled sup and its location.
	best, bestQ := math.Inf(-1), math.NaN()
	sample := func(q float64) {
		if v := logAbsCurv(q); v > best {
			best, bestQ = v, q
		}
	}
	bound := math.Inf(-1) // certified log-bound on [−C, C]
	for _, seg := range fm.Segments(-a.C, a.C) {
		p := seg.Piece
		const cells = 4096
		for i := 0; i < cells; i++ {
			lo := seg.Lo + (seg.Hi-seg.Lo)*float64(i)/cells
			hi := seg.Lo + (seg.Hi-seg.Lo)*float64(i+1)/cells
			x := symbolic.Interval{Lo: lo, Hi: hi}
			l2 := symbolic.IMul(symbolic.IExp(symbolic.INeg(p.IntervalF(x))), symbolic.IAbs(p.IntervalH2(x)))
			if w := symbolic.IAbs(p.IntervalL2(x)); !w.Unknown() && (l2.Unknown() || w.Hi < l2.Hi) {
				l2 = w // the tighter of the two sound bounds
			}
			if l2.Unknown() {
				bound = math.Inf(1)
			} else {
				bound = math.Max(bound, math.Log(l2.Hi))
			}
			sample(lo + (hi-lo)/2)
		}
	}
	// Growth toward ±∞.
	ds := a.decades()
	for _, sgn := range []float64{-1, 1} {
		vals := make([]float64, len(ds))
		for i, q := range ds {
			vals[i] = logAbsCurv(sgn * q)
			sample(sgn * q)
		}
		kind, _, ratio := growth(vals)
		if kind == growthUnbounded {
			q := sgn * ds[len(ds)-1]
			h.Status = theorems.Violated
			h.Witness = &LossWitness{q, fmt.Sprintf("|ℓ″(%s)| = e^%s", fmtQ(q), fmtV(vals[len(vals)-1]))}
			h.Detail = fmt.Sprintf("ℓ″ is unbounded as q → %s∞: log|ℓ″(%s)| = %s, growing ×%s per decade", map[float64]string{-1: "−", 1: "+"}[sgn], fmtQ(q), fmtV(vals[len(vals)-1]), fmtV(ratio))
			// The half-line after separation.
			half := math.Inf(-1)
			for _, seg := range fm.Segments(0, a.C) {
				for i := 0; i <= 512; i++ {
					half = math.Max(half, logAbsCurv(seg.Lo+(seg.Hi-seg.Lo)*float64(i)/512))
				}
			}
			for _, q := range a.s.Grid(false) {
				half = math.Max(half, logAbsCurv(q))
			}
			h.Notes = append(h.Notes, fmt.Sprintf("on the half-line q ≥ 0 (the margins after separation) sup|ℓ″| = %s (sampled)", fmtV(math.Exp(half))))
			return h
		}
	}
	for _, q := range a.s.Grid(true) {
		sample(q)
	}
	// Refine the sup around the best sample (golden section on one cell
	// each side; the sup of a smooth ℓ″ is a local maximum).
	if w := 2 * a.C / 4096; !math.IsNaN(bestQ) && math.Abs(bestQ) <= a.C {
		lo, hi := bestQ-w, bestQ+w
		p := fm.PieceAt(bestQ)
		for i := 0; i < 80 && fm.PieceAt(lo) == p && fm.PieceAt(hi) == p; i++ {
			m1, m2 := hi-0.618*(hi-lo), lo+0.618*(hi-lo)
			if logAbsCurv(m1) < logAbsCurv(m2) {
				lo = m1
			} else {
				hi = m2
			}
		}
		sample(lo + (hi-lo)/2)
	}
	h.Status = theorems.Holds
	h.Value = math.Exp(best)
	h.EvidenceTo = a.Q
	h.Detail = fmt.Sprintf("L = sup|ℓ″| = %s, at q = %s", fmtV(math.Exp(best)), fmtQ(bestQ))
	if !math.IsInf(bound, 1) {
		h.Certified = fmtRange(-a.C, a.C)
		h.Detail += fmt.Sprintf(" (certified |ℓ″| ≤ %s on %s)", fmtV(math.Exp(bound)), fmtRange(-a.C, a.C))
	}
	return h
}

// checkDecreasing: ZD Thm 8's "strictly monotonically decreasing to zero":
// ℓ′ = −f′ℓ ≤ 0 with only isolated zeros (the scan of f′, see checkB32),
// and ℓ(q) → 0, i.e. f(q) → ∞ (growth of f at q = 10², …, Q).
func (a *lossAnalysis) checkDecreasing() LossHypothesis {
	h := LossHypothesis{ID: theorems.HypDecrease, Source: "ZD Thm 8", Claim: "ℓ strictly decreasing, ℓ(q) → 0 as q → ∞", Value: math.NaN()}
	if u, ok := a.undefined(h, math.Inf(-1)); ok {
		return u
	}
	ds := a.decades()
	fs := make([]float64, len(ds))
	for i, q := range ds {
		fs[i] = a.fm.F(q)
	}
	kind, limit, ratio := growth(fs)
	last := ds[len(ds)-1]
	switch kind {
	case growthBounded:
		h.Status = theorems.Violated
		h.Witness = &LossWitness{last, fmt.Sprintf("ℓ(%s) = e^{−%s}", fmtQ(last), fmtV(fs[len(fs)-1]))}
		h.Detail = fmt.Sprintf("ℓ(q) → e^{−%s} > 0: f = −log ℓ stays bounded", fmtV(limit))
		return h
	case growthUnknown:
		h.Status = theorems.Inconclusive
		h.Detail = fmt.Sprintf("cannot tell whether ℓ → 0: f(%s) = %s (ratio of increments %s)", fmtQ(last), fmtV(fs[len(fs)-1]), fmtV(ratio))
		return h
	}
	r := a.scanFPrime()
	for _, f := range r.fails {
		if f[1] < 0 || math.IsNaN(f[1]) {
			h.Status = theorems.Violated
			h.Witness = &LossWitness{f[0], fmt.Sprintf("f′(%s) = %s: ℓ increases there", fmtQ(f[0]), fmtV(f[1]))}
			h.Detail = h.Witness.Detail
			return h
		}
	}
	if len(r.fails) > 0 && !(r.strict && r.nonNeg) || len(r.uncertain) > 0 || len(r.tiny) > 0 {
		h.Status = theorems.Inconclusive
		h.Detail = "f′ = 0 (or indistinguishable from 0) at sampled points, and strict decrease across them could not be certified"
		return h
	}
	h.Status = theorems.Holds
	if len(r.gaps) == 0 {
		h.Certified = fmtRange(-a.C, a.C)
	}
	h.EvidenceTo = a.Q
	h.Detail = fmt.Sprintf("ℓ′ = −f′ℓ < 0, ℓ(q) → 0 (log ℓ(%s) = %s)", fmtQ(last), fmtV(-fs[len(fs)-1]))
	if len(r.fails) > 0 {
		h.Detail = fmt.Sprintf("ℓ′ = −f′ℓ ≤ 0 with isolated zeros (q = %s), so ℓ is strictly decreasing; ℓ(q) → 0 (log ℓ(%s) = %s)", fmtQ(r.fails[0][0]), fmtQ(last), fmtV(-fs[len(fs)-1]))
	}
	return h
}

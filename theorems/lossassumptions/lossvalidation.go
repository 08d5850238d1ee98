package lossassumptions

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems"
)

// Catalog section G: a loss written as a formula checked against the
// hypotheses of the theorems (LL App. A.1 (B3.1)–(B3.4), (B4); XY App.
// A.1.1's tight exponential tail; ZD Thm 8's convex, L-smooth, strictly
// decreasing to 0). Each hypothesis is reported as
//
//	certified on [a, b]         interval arithmetic with outward rounding
//	                            over a subdivision (symbolic.Scan) proved it there
//	numerical evidence to |q| = Q   beyond, it held at every point of a
//	                            geometric grid up to Q (symbolic.Settings)
//	fails at q = …              with the witness: the value that breaks it
//
// or inconclusive (never a pass) when the sampling cannot decide.

func trainRefusal(r *LossReport, a *lossAnalysis) string {
	if len(a.domain) > 0 {
		if h, ok := r.Hypothesis(theorems.HypB31); ok && h.Status == theorems.Violated {
			return "the loss is not positive and finite everywhere: (" + h.ID + ") " + h.StatusText() + ": " + h.Detail
		}
	}
	for _, f := range a.scanFPrime().fails {
		if f[1] < 0 || math.IsNaN(f[1]) {
			return fmt.Sprintf("the loss is not decreasing: (%s) fails at q = %s: f′(%s) = %s < 0, ℓ increases there", theorems.HypB32, fmtQ(f[0]), fmtQ(f[0]), fmtV(f[1]))
		}
	}
	return ""
}

// ValidateLoss checks the formula against every hypothesis of section G
// (nil settings: symbolic.DefaultSettings, C = 100, Q = 1e6).
func ValidateLoss(fm *symbolic.Formula, s *symbolic.Settings) *LossReport {
	if s == nil {
		s = &symbolic.DefaultSettings
	}
	r := &LossReport{Formula: fm.Source, CertifyTo: s.CertifyTo, EvidenceTo: s.EvidenceTo}
	r.Pieces = lossPieces(fm)
	a := newAnalysis(fm, s)
	b31 := a.checkB31()
	r.Hypotheses = []LossHypothesis{
		b31,
		a.checkB32(),
		a.checkB33(),
		a.checkB34(),
		a.checkB4(),
		a.checkTightTail(),
		a.checkConvex(),
		a.checkSmooth(b31),
		a.checkDecreasing(),
	}
	for i := range r.Hypotheses {
		refuseInfinite(&r.Hypotheses[i])
	}
	r.refusal = trainRefusal(r, a)
	r.Applies = applicability(r, fm, a)
	return r
}

// refuseInfinite turns a hypothesis that "holds" with an infinite constant
// (L = sup|ℓ″| = +Inf, K = +Inf, ℓ(b_f) = +Inf) into a failure: each asks
// for a finite constant, and +Inf is the sampled sup running into a pole or
// an overflow, never a value the theorems can use (issue 21: ZD-smooth
// "held" with L = +Inf).
func refuseInfinite(h *LossHypothesis) {
	if h.Status != theorems.Holds || !math.IsInf(h.Value, 0) {
		return
	}
	h.Status = theorems.Violated
	h.Detail = fmt.Sprintf("%s = %s is not finite; %s", h.ValueName, fmtV(h.Value), h.Detail)
	h.Certified, h.EvidenceTo = "", 0
}

func lossPieces(fm *symbolic.Formula) []LossPiece {
	var ps []LossPiece
	add := func(where string, p *symbolic.Piece) {
		ps = append(ps, LossPiece{Where: where, Loss: p.Loss.String(), F: p.F.String(), F1: p.F1.String(), L1: p.L1.String(), L2: p.L2.String()})
	}
	if len(fm.Breaks) == 0 {
		add("all q", fm.Pieces[0])
		return ps
	}
	for i, p := range fm.Pieces {
		var where string
		switch {
		case i == 0:
			where = "q < " + fmtQ(fm.Breaks[0])
		case i == len(fm.Breaks):
			where = "q > " + fmtQ(fm.Breaks[i-1])
		default:
			where = fmtQ(fm.Breaks[i-1]) + " < q < " + fmtQ(fm.Breaks[i])
		}
		add(where, p)
		if i < len(fm.Breaks) {
			if at := fm.AtBreak[i]; at != p && at != fm.Pieces[i+1] {
				add("q = "+fmtQ(fm.Breaks[i]), at)
			}
		}
	}
	return ps
}

package lossassumptions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

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

// LossWitness is a margin at which a hypothesis fails, with what fails.
type LossWitness struct {
	Q      float64 `json:"q"`
	Detail string  `json:"detail"`
}

// LossHypothesis is the outcome of one hypothesis on one loss.
type LossHypothesis struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Claim  string `json:"claim"`
	// Status is Holds, Violated or Inconclusive.
	Status theorems.Status `json:"status"`
	// Certified describes where interval arithmetic proved the claim
	// ("[-100, 100]", "ℝ (by the structure of the formula)"), empty if
	// nowhere; EvidenceTo is the largest |q| of the sampled evidence beyond
	// it (0 for none).
	Certified  string  `json:"certified,omitempty"`
	EvidenceTo float64 `json:"evidence_to,omitempty"`
	// Witness is set when the claim fails.
	Witness *LossWitness `json:"witness,omitempty"`
	// Value is the constant the hypothesis asks for (b_f, K, ℓ(b_f), L, the
	// tail rate a), named by ValueName; NaN when there is none.
	ValueName string  `json:"value_name,omitempty"`
	Value     float64 `json:"-"`
	// Detail is the one-line summary, Notes further findings.
	Detail string   `json:"detail"`
	Notes  []string `json:"notes,omitempty"`
}

// StatusText is the table's status column: "certified on [a, b]; evidence
// to q = Q", "fails at q = …" or "inconclusive".
func (h LossHypothesis) StatusText() string {
	switch h.Status {
	case theorems.Violated:
		if h.Witness != nil {
			return "fails at q = " + fmtQ(h.Witness.Q)
		}
		return "fails"
	case theorems.Inconclusive:
		return "inconclusive"
	}
	var parts []string
	if h.Certified != "" {
		parts = append(parts, "certified on "+h.Certified)
	}
	if h.EvidenceTo > 0 {
		parts = append(parts, "numerical evidence up to |q| = "+fmtQ(h.EvidenceTo))
	}
	if len(parts) == 0 {
		return "holds"
	}
	return strings.Join(parts, "; ")
}

// LossApplicability says whether a catalog entry applies to the loss: which
// hypotheses it needs and which of them fail.
type LossApplicability struct {
	ID       string   `json:"id"`
	Claim    string   `json:"claim"`
	Requires []string `json:"requires"`
	Applies  bool     `json:"applies"`
	// Missing lists the required hypotheses that do not hold (failed or
	// inconclusive).
	Missing []string `json:"missing,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// LossPiece is one piece of the formula with its derived functions, printed.
type LossPiece struct {
	Where string `json:"where"` // "q < 0", "q = 0", "all q"
	Loss  string `json:"loss"`
	F     string `json:"f"`
	F1    string `json:"f1"`
	L1    string `json:"l1"`
	L2    string `json:"l2"`
}

// LossReport is the validation of one loss formula.
type LossReport struct {
	Formula    string              `json:"formula"`
	Pieces     []LossPiece         `json:"pieces"`
	Hypotheses []LossHypothesis    `json:"hypotheses"`
	Applies    []LossApplicability `json:"applicability"`
	// CertifyTo and EvidenceTo are the settings used (C and Q).
	CertifyTo  float64 `json:"certify_to"`
	EvidenceTo float64 `json:"evidence_to"`
	// refusal is why training with the loss would give wrong numbers (see
	// TrainRefusal); empty when it is fit.
	refusal string
}

// TrainRefusal says why training with the loss is refused: ℓ is undefined,
// not positive or has a pole somewhere ((B3.1): f = −log ℓ, the log-domain
// engine's every number, is then NaN or ±Inf at such margins), or ℓ
// increases somewhere (f′ < 0, so (B3.2) fails with a negative witness:
// "training" drives those margins the wrong way and a summed loss can
// decrease by making q_min → −∞, as 'exp(q)' did in issue 21). The message
// names the hypothesis. Losses that are positive and non-increasing but
// break a finer hypothesis (a polynomial tail, a kink, isolated zeros of
// f′) train fine; the theorems that need more say so in 'implicitbias loss'.
func (r *LossReport) TrainRefusal() (string, bool) { return r.refusal, r.refusal != "" }

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

// Hypothesis returns the outcome with the given ID.
func (r *LossReport) Hypothesis(id string) (LossHypothesis, bool) {
	for _, h := range r.Hypotheses {
		if h.ID == id {
			return h, true
		}
	}
	return LossHypothesis{}, false
}

// Admissible reports whether the loss meets (B3.1)–(B3.4) on all of ℝ and
// (B4)'s threshold exists: every one of them holds (an inconclusive one is
// not a pass).
func (r *LossReport) Admissible() bool {
	for _, id := range []string{theorems.HypB31, theorems.HypB32, theorems.HypB33, theorems.HypB34, theorems.HypB4} {
		if h, ok := r.Hypothesis(id); !ok || h.Status != theorems.Holds {
			return false
		}
	}
	return true
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

// fmtQ prints a margin compactly: 0, 1e+06 → 1e6, 0.25, -7.1e-13.
func fmtQ(q float64) string {
	switch {
	case math.IsInf(q, 1):
		return "∞"
	case math.IsInf(q, -1):
		return "−∞"
	case q == 0:
		return "0"
	}
	if q == math.Trunc(q) && math.Abs(q) < 1e5 {
		return strconv.FormatFloat(q, 'f', -1, 64)
	}
	s := strconv.FormatFloat(q, 'g', 4, 64)
	if i := strings.Index(s, "e+"); i >= 0 {
		s = s[:i] + "e" + strings.TrimLeft(s[i+2:], "0")
	}
	if i := strings.Index(s, "e-0"); i >= 0 {
		s = s[:i] + "e-" + s[i+3:]
	}
	return s
}

// fmtV prints a value with 6 significant digits.
func fmtV(v float64) string {
	if v == 0 {
		v = 0 // no "-0"
	}
	s := strconv.FormatFloat(v, 'g', 6, 64)
	if i := strings.Index(s, "e+"); i >= 0 {
		s = s[:i] + "e" + strings.TrimLeft(s[i+2:], "0")
	}
	return s
}

func fmtRange(lo, hi float64) string { return "[" + fmtQ(lo) + ", " + fmtQ(hi) + "]" }

// MarshalJSON writes the hypothesis with its status text and its value
// (null when there is none).
func (h LossHypothesis) MarshalJSON() ([]byte, error) {
	type plain LossHypothesis
	var v *float64
	if !math.IsNaN(h.Value) && !math.IsInf(h.Value, 0) {
		v = &h.Value
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "f′ > 0" readable
	err := enc.Encode(struct {
		plain
		StatusText string   `json:"status_text"`
		Value      *float64 `json:"value"`
	}{plain(h), h.StatusText(), v})
	return bytes.TrimRight(b.Bytes(), "\n"), err
}

func (h LossHypothesis) String() string {
	s := fmt.Sprintf("(%s) %s: %s", h.ID, h.StatusText(), h.Detail)
	return s
}

package lossassumptions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/theorems"
)

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

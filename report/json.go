package report

import (
	"encoding/json"
	"io"
	"math"

	"github.com/implicitbias/implicitbias/theorems"
)

// SchemaVersion is the version of the JSON document below.
const SchemaVersion = 1

// Document is the JSON output of `implicitbias verify --json`:
//
//	{
//	  "schema_version": 1,
//	  "seed": 1, "budget": "quick",
//	  "entries": [ Entry … ],          // in catalog order
//	  "totals": { "entries": …, "holds": …, "violated": …, "inconclusive": …,
//	              "assumption_failed": …, "unchecked": …, "not_selected": …, "checks": … }
//	}
//
// Statistics that could not be computed (NaN) are null.
type Document struct {
	SchemaVersion int     `json:"schema_version"`
	Seed          int64   `json:"seed"`
	Budget        string  `json:"budget"`
	Entries       []Entry `json:"entries"`
	Totals        Totals  `json:"totals"`
	// Provenance is set in a report's report.json (WriteReport), never in
	// verify --json, whose shards merge bit for bit.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Entry is one catalog entry's result.
type Entry struct {
	ID               string   `json:"id"`
	Section          string   `json:"section"`
	Source           string   `json:"source"`
	Claim            string   `json:"claim"`
	Status           string   `json:"status"`
	Cases            int      `json:"cases"`
	Holds            int      `json:"holds"`
	Violated         int      `json:"violated"`
	Inconclusive     int      `json:"inconclusive"`
	AssumptionFailed int      `json:"assumption_failed"`
	Statistic        *float64 `json:"statistic"`
	Bound            *float64 `json:"bound"`
	Detail           string   `json:"detail"`
	WorstCase        string   `json:"worst_case"`
	Controls         int      `json:"controls"`
	ControlsCaught   int      `json:"controls_caught"`
	ControlMissed    string   `json:"control_missed,omitempty"`
	// Figures lists the entry's figure files (relative to the report
	// directory) when the report was written with --report.
	Figures []string `json:"figures,omitempty"`
	// Interrupted marks an entry stopped by Ctrl-C before its cases ran.
	Interrupted bool `json:"interrupted,omitempty"`
	// NotApplicable and EngineErrors count the cases another engine could
	// not run or failed on (verify --engine; absent otherwise).
	NotApplicable int `json:"not_applicable,omitempty"`
	EngineErrors  int `json:"engine_errors,omitempty"`
}

// MarshalJSON writes the totals with snake_case keys.
func (t Totals) MarshalJSON() ([]byte, error) {
	m := map[string]int{
		"entries": t.Entries, "holds": t.Holds, "violated": t.Violated,
		"inconclusive": t.Inconclusive, "assumption_failed": t.AssumptionFailed, "unchecked": t.Unchecked,
		"not_selected": t.NotSelected, "checks": t.Checks,
	}
	if t.NotApplicable+t.EngineError > 0 { // a run on another engine
		m["not_applicable"], m["engine_error"] = t.NotApplicable, t.EngineError
	}
	return json.Marshal(m)
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// NewDocument converts results; checks as for Count.
func NewDocument(seed int64, budget string, rs []theorems.Result, checks ...string) Document {
	d := Document{SchemaVersion: SchemaVersion, Seed: seed, Budget: budget, Totals: Count(rs, checks...), Entries: []Entry{}}
	for _, r := range rs {
		s := r.Claims
		shown, shownCase := s.Shown()
		d.Entries = append(d.Entries, Entry{
			ID: r.ID, Section: r.Section, Source: r.Source, Claim: r.Info.Claim, Status: r.Status().String(),
			Cases: s.Cases, Holds: s.Holds, Violated: s.Violated, Inconclusive: s.Inconclusive, AssumptionFailed: s.AssumptionFailed,
			NotApplicable: s.NotApplicable, EngineErrors: s.EngineErrors,
			Statistic: finite(shown.Statistic), Bound: finite(shown.Bound), Detail: shown.Detail, WorstCase: shownCase,
			Controls: r.Controls, ControlsCaught: r.ControlsCaught, ControlMissed: r.ControlMissed, Interrupted: r.Interrupted,
		})
	}
	return d
}

// WriteJSON writes the document, indented.
func WriteJSON(w io.Writer, d Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

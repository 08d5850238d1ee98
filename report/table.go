package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/theorems"
)

// Totals counts entries by status.
type Totals struct {
	Entries                                         int
	Holds, Violated, Inconclusive, AssumptionFailed int
	// NotApplicable and EngineError count the entries that another engine
	// (verify --engine) could not run or failed on.
	NotApplicable, EngineError int
	// Unchecked counts catalog entries without a check.
	Unchecked int
	// NotSelected counts entries that have a check but were not run
	// (verify --only, --shard), and Checks how many have one; both are 0
	// when the totals were counted without the registered checks.
	NotSelected, Checks int
}

// Count returns the totals of rs against the catalog. checks, when given,
// lists the IDs of every registered check: then Unchecked counts the
// catalog entries without one, and NotSelected the checks not run (issue
// 21: 'verify --only X' said "44 catalog entries have no check yet").
// Without checks, every catalog entry without a result counts as
// unchecked.
func Count(rs []theorems.Result, checks ...string) Totals {
	t := Totals{Entries: len(rs), Unchecked: len(theorems.Catalog())}
	if checks != nil {
		t = scoped(len(rs), checks)
		for _, r := range rs {
			t.add(r.Status().String())
		}
		return t
	}
	seen := map[string]bool{}
	for _, r := range rs {
		t.add(r.Status().String())
		if !seen[r.ID] {
			seen[r.ID] = true
			t.Unchecked--
		}
	}
	return t
}

// scoped returns the totals of n results of a run whose registered checks
// are checks, without the status counts.
func scoped(n int, checks []string) Totals {
	has := map[string]bool{}
	for _, id := range checks {
		has[id] = true
	}
	t := Totals{Entries: n, NotSelected: len(has) - n, Checks: len(has)}
	for _, c := range theorems.Catalog() {
		if !has[c.ID] {
			t.Unchecked++
		}
	}
	return t
}

// add counts one entry of the status (as Status.String spells it).
func (t *Totals) add(status string) {
	switch status {
	case "holds":
		t.Holds++
	case "violated":
		t.Violated++
	case "inconclusive":
		t.Inconclusive++
	case "assumption-failed":
		t.AssumptionFailed++
	case "not-applicable":
		t.NotApplicable++
	case "engine-error":
		t.EngineError++
	}
}

// Summary is the totals line: "45 entries checked: …; 0 catalog entries
// have no check yet." and, for a selection, how many checks it left out.
func (t Totals) Summary() string {
	s := fmt.Sprintf("%d entries checked: %d holds, %d violated, %d inconclusive, %d assumption-failed", t.Entries, t.Holds, t.Violated, t.Inconclusive, t.AssumptionFailed)
	s += t.onEngine()
	if t.NotSelected > 0 {
		s += fmt.Sprintf("; %d other checks not selected", t.NotSelected)
	}
	return s + fmt.Sprintf("; %d catalog entries have no check yet.", t.Unchecked)
}

// onEngine is the totals of a run on another engine: "; 3 not applicable,
// 1 engine error" ("" when there are none).
func (t Totals) onEngine() string {
	if t.NotApplicable+t.EngineError == 0 {
		return ""
	}
	return fmt.Sprintf("; %d not applicable on the engine, %d engine errors", t.NotApplicable, t.EngineError)
}

// Stat formats a verdict's statistic against its bound.
func Stat(v theorems.Verdict) string {
	if math.IsNaN(v.Statistic) {
		return "—"
	}
	op := "≤"
	if !(v.Statistic <= v.Bound) {
		op = ">"
	}
	if r := v.Statistic / v.Bound; r > 0.99 && r < 1.01 {
		// Close to the bound: enough digits to see the side it is on.
		return fmt.Sprintf("%.6g %s %.6g", v.Statistic, op, v.Bound)
	}
	return fmt.Sprintf("%.2g %s %.2g", v.Statistic, op, v.Bound)
}

// Cases formats the case counts: "100" or "97 (3 undecided)".
func Cases(s theorems.Summary) string {
	c := fmt.Sprint(s.Cases)
	var extra []string
	if s.Inconclusive > 0 {
		extra = append(extra, fmt.Sprintf("%d undecided", s.Inconclusive))
	}
	if s.AssumptionFailed > 0 {
		extra = append(extra, fmt.Sprintf("%d outside hypotheses", s.AssumptionFailed))
	}
	if s.Violated > 0 {
		extra = append(extra, fmt.Sprintf("%d violated", s.Violated))
	}
	if s.NotApplicable > 0 {
		extra = append(extra, fmt.Sprintf("%d not applicable", s.NotApplicable))
	}
	if s.EngineErrors > 0 {
		extra = append(extra, fmt.Sprintf("%d engine errors", s.EngineErrors))
	}
	for i, e := range extra {
		if i == 0 {
			c += " ("
		} else {
			c += ", "
		}
		c += e
	}
	if len(extra) > 0 {
		c += ")"
	}
	return c
}

// CasesOf formats an entry's case counts: Cases, or for a conjecture the
// support frequency, "8 (5/8 supported)".
func CasesOf(r theorems.Result) string {
	if !r.Conjecture {
		return Cases(r.Claims)
	}
	k, n := r.Support()
	return fmt.Sprintf("%d (%d/%d supported)", r.Claims.Cases, k, n)
}

// Controls formats the negative controls: "2/2 caught".
func Controls(r theorems.Result) string {
	if r.Controls == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d caught", r.ControlsCaught, r.Controls)
}

// WriteTable writes one row per result and a summary line (with how many
// catalog entries have no check), then the details of every entry that did
// not hold.
func WriteTable(w io.Writer, rs []theorems.Result, checks ...string) error {
	return writeTable(w, rs, true, checks)
}

// WriteEntries is WriteTable for a selection that is not a run of the
// catalog (such as the entries run with a user's loss): its summary line
// does not count the catalog.
func WriteEntries(w io.Writer, rs []theorems.Result) error { return writeTable(w, rs, false, nil) }

func writeTable(w io.Writer, rs []theorems.Result, catalog bool, checks []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tCLAIM\tCASES\tSTATUS\tWORST (stat vs bound)\tCONTROLS")
	for _, r := range rs {
		shown, _ := r.Claims.Shown()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Source, r.Info.Claim, CasesOf(r), r.Status(), Stat(shown), Controls(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := Count(rs, checks...)
	if catalog {
		fmt.Fprintf(w, "\n%s\n", t.Summary())
	} else {
		fmt.Fprintf(w, "\n%d entries checked: %d holds, %d violated, %d inconclusive, %d assumption-failed%s.\n", t.Entries, t.Holds, t.Violated, t.Inconclusive, t.AssumptionFailed, t.onEngine())
	}
	var na []string
	for _, r := range rs {
		if r.Status() == theorems.NotApplicable {
			na = append(na, r.ID)
		}
	}
	if na != nil {
		fmt.Fprintf(w, "\nnot applicable on the engine (the protocol does not express their runs; docs/engines.md): %s\n", strings.Join(na, ", "))
	}
	for _, r := range rs {
		if s := r.Status(); s == theorems.Holds || s == theorems.NotApplicable {
			continue
		}
		fmt.Fprintf(w, "\n%s %s: %s\n  worst case: %s\n", r.ID, r.Status(), r.Claims.Worst.Detail, r.Claims.WorstCase)
		if r.ControlMissed != "" {
			fmt.Fprintf(w, "  negative control not caught: %s\n", r.ControlMissed)
		}
		for _, e := range r.Claims.EngineFailures {
			fmt.Fprintf(w, "  engine error: %s\n", e)
		}
	}
	return nil
}

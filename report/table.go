package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/theorems"
)

// Totals counts entries by status.
type Totals struct {
	Entries                                         int
	Holds, Violated, Inconclusive, AssumptionFailed int
	// Unchecked counts catalog entries without a check.
	Unchecked int
}

// Count returns the totals of rs against the catalog.
func Count(rs []theorems.Result) Totals {
	t := Totals{Entries: len(rs), Unchecked: len(theorems.Catalog())}
	seen := map[string]bool{}
	for _, r := range rs {
		switch r.Status() {
		case theorems.Holds:
			t.Holds++
		case theorems.Violated:
			t.Violated++
		case theorems.Inconclusive:
			t.Inconclusive++
		case theorems.AssumptionFailed:
			t.AssumptionFailed++
		}
		if !seen[r.ID] {
			seen[r.ID] = true
			t.Unchecked--
		}
	}
	return t
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
func WriteTable(w io.Writer, rs []theorems.Result) error { return writeTable(w, rs, true) }

// WriteEntries is WriteTable for a selection that is not a run of the
// catalog (such as the entries run with a user's loss): its summary line
// does not count the catalog.
func WriteEntries(w io.Writer, rs []theorems.Result) error { return writeTable(w, rs, false) }

func writeTable(w io.Writer, rs []theorems.Result, catalog bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tCLAIM\tCASES\tSTATUS\tWORST (stat vs bound)\tCONTROLS")
	for _, r := range rs {
		shown, _ := r.Claims.Shown()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Source, r.Info.Claim, CasesOf(r), r.Status(), Stat(shown), Controls(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := Count(rs)
	fmt.Fprintf(w, "\n%d entries checked: %d holds, %d violated, %d inconclusive, %d assumption-failed", t.Entries, t.Holds, t.Violated, t.Inconclusive, t.AssumptionFailed)
	if catalog {
		fmt.Fprintf(w, "; %d catalog entries have no check yet", t.Unchecked)
	}
	fmt.Fprintln(w, ".")
	for _, r := range rs {
		if r.Status() == theorems.Holds {
			continue
		}
		fmt.Fprintf(w, "\n%s %s: %s\n  worst case: %s\n", r.ID, r.Status(), r.Claims.Worst.Detail, r.Claims.WorstCase)
		if r.ControlMissed != "" {
			fmt.Fprintf(w, "  negative control not caught: %s\n", r.ControlMissed)
		}
	}
	return nil
}

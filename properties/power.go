package properties

import (
	"context"
	"fmt"

	"github.com/implicitbias/implicitbias/faults"
)

// PowerRow is one declared (fault, claim) pair measured: how many of the
// pair's cases the claim's check reported violated.
type PowerRow struct {
	Fault    string  `json:"fault"`
	Claim    string  `json:"claim"`
	Cases    int     `json:"cases"`
	Violated int     `json:"violated"`
	Caught   float64 `json:"caught"` // Violated/Cases
	// Invalid counts the draws on which the claim does not hold without
	// the fault, Refused those the faulted check reported
	// assumption-failed: neither is a case (properties.Decide).
	Invalid int `json:"invalid,omitempty"`
	Refused int `json:"refused,omitempty"`
	// Missed describes the first case not reported violated, with its
	// verdict ("" when every case was).
	Missed string `json:"missed,omitempty"`
	// Property names the claim whose cases carried the fault ("" when no
	// claim of the entry accepts faults: the pair is then not run).
	Property string `json:"property,omitempty"`
	// NotApplicable marks a pair the engine under test cannot run
	// (verify --engine --faults): shown, neither a catch nor a miss.
	NotApplicable bool `json:"not_applicable,omitempty"`
}

// OK reports whether the pair was caught in at least faults.MinPower of
// its cases.
func (r PowerRow) OK() bool {
	return r.Cases > 0 && float64(r.Violated) >= faults.MinPower*float64(r.Cases)
}

// MeasurePower runs the fault control of the pair (fault, e.ID) on the
// entry's control count of cases, the cases verify's run of that control
// draws at r's seed (a claim's cases with the fault planted), and counts
// the violated ones. Every case drawn counts: an inconclusive or
// assumption-failed case is a miss.
func MeasurePower(ctx context.Context, r *Runner, e Entry, fault string) (PowerRow, error) {
	row := PowerRow{Fault: fault, Claim: e.ID}
	if _, err := faults.Lookup(fault); err != nil {
		return row, err
	}
	index := -1
	for i := range e.Controls {
		if e.Controls[i].Meta().Fault == fault {
			index = i
			break
		}
	}
	if index < 0 {
		return row, fmt.Errorf("%s has no claim whose cases accept fault %s", e.ID, fault)
	}
	row.Property = e.Controls[index].Meta().Name
	// The run verify makes of this control (Runner.Run): the same seed,
	// the same count, the same rule.
	o := r.RunControl(ctx, e, index)
	if o.Interrupted {
		return row, ctx.Err()
	}
	if o.NotRun() {
		row.NotApplicable, row.Missed = true, o.Summary.Worst.Detail
		return row, nil
	}
	row.Cases, row.Violated = o.Summary.Cases-o.Summary.NotApplicable, o.Summary.Violated
	row.Invalid, row.Refused = o.Invalid, o.Refused
	if row.Cases > 0 {
		row.Caught = float64(row.Violated) / float64(row.Cases)
	}
	if row.Violated < row.Cases {
		row.Missed = o.Failed
		if row.Missed == "" {
			row.Missed = fmt.Sprintf("%v (within the %d misses allowed)", o.Summary.Worst, o.MissesAllowed)
		}
	}
	return row, nil
}

// PowerTable measures every pair the entries es declare (FaultPairs: by
// fault in registry order, then in the order of es) under r.
func PowerTable(ctx context.Context, r *Runner, es []Entry) ([]PowerRow, error) {
	byID := map[string]Entry{}
	for _, e := range es {
		byID[e.ID] = e
	}
	var rows []PowerRow
	for _, pr := range FaultPairs(es) {
		row, err := MeasurePower(ctx, r, byID[pr.Claim], pr.Fault)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

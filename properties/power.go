package properties

import (
	"context"
	"fmt"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/theorems"
)

// PowerRow is one declared (fault, claim) pair measured: how many of the
// pair's cases the claim's check reported violated.
type PowerRow struct {
	Fault    string  `json:"fault"`
	Claim    string  `json:"claim"`
	Cases    int     `json:"cases"`
	Violated int     `json:"violated"`
	Caught   float64 `json:"caught"` // Violated/Cases
	// Missed describes the first case not reported violated, with its
	// verdict ("" when every case was).
	Missed string `json:"missed,omitempty"`
	// Property names the claim whose cases carried the fault ("" when no
	// claim of the entry accepts faults: the pair is then not run).
	Property string `json:"property,omitempty"`
}

// OK reports whether the pair was caught in at least faults.MinPower of
// its cases.
func (r PowerRow) OK() bool {
	return r.Cases > 0 && float64(r.Violated) >= faults.MinPower*float64(r.Cases)
}

// controlCases is the number of cases of each negative control of e at
// budget b (verify's and the power table's count).
func (e Entry) controlCases(b Budget) int {
	n := e.cases(b)
	if e.Sweep {
		return n
	}
	return max(n/4, 10)
}

// MeasurePower runs the fault control of the pair (fault, e.ID) on the
// entry's control count of cases drawn from seed (the cases a claim test
// draws, with the fault planted) and counts the violated ones. Every case
// drawn counts: an inconclusive or assumption-failed case is a miss.
func MeasurePower(ctx context.Context, e Entry, fault string, seed int64, b Budget) (PowerRow, error) {
	row := PowerRow{Fault: fault, Claim: e.ID}
	if _, err := faults.Lookup(fault); err != nil {
		return row, err
	}
	var p *Property
	for i := range e.Controls {
		if e.Controls[i].Fault == fault {
			p = &e.Controls[i]
			break
		}
	}
	if p == nil {
		return row, fmt.Errorf("%s has no claim whose cases accept fault %s", e.ID, fault)
	}
	row.Property = p.Name
	for _, c := range Sample(p.Gen, seed, e.controlCases(b)) {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		v := p.Check(c)
		row.Cases++
		if v.Status == theorems.Violated {
			row.Violated++
		} else if row.Missed == "" {
			row.Missed = fmt.Sprintf("%v gave %s", c, v)
		}
	}
	if row.Cases > 0 {
		row.Caught = float64(row.Violated) / float64(row.Cases)
	}
	return row, nil
}

// PowerTable measures every declared pair whose claim is selected in es
// (all declared pairs for Entries()).
func PowerTable(ctx context.Context, es []Entry, seed int64, b Budget) ([]PowerRow, error) {
	byID := map[string]Entry{}
	for _, e := range es {
		byID[e.ID] = e
	}
	var rows []PowerRow
	for _, pr := range faults.Pairs() {
		e, ok := byID[pr.Claim]
		if !ok {
			continue
		}
		row, err := MeasurePower(ctx, e, pr.Fault, seed, b)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

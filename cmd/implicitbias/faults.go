package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/properties"
)

// runFaultPower is `verify --faults`: every declared (fault, claim) pair of
// the selected entries, the share of the pair's cases its check reported
// violated. Exit status 0 when every pair reaches faults.MinPower, 1
// otherwise, 130 when interrupted (the finished pairs are printed).
func runFaultPower(ctx context.Context, r *properties.Runner, entries []properties.Entry, asJSON bool, stdout, stderr io.Writer) int {
	rows, err := properties.PowerTable(ctx, r, entries)
	if err != nil && ctx.Err() == nil {
		return fail(stderr, "verify", err)
	}
	return writePower(ctx, rows, asJSON, stdout, stderr)
}

// writePower prints the power table (or its JSON lines) and returns the
// exit status: 1 if a pair is caught in less than faults.MinPower of its
// cases (a pair not applicable on another engine is shown, not counted).
func writePower(ctx context.Context, rows []properties.PowerRow, asJSON bool, stdout, stderr io.Writer) int {
	interrupted := ctx.Err() != nil
	if asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return fail(stderr, "verify", err)
			}
		}
	} else {
		component := map[string]string{}
		for _, f := range faults.Registry() {
			component[f.Name] = f.Component
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FAULT\tCOMPONENT\tCLAIM\tCASES\tVIOLATED\tCAUGHT\t")
		for _, r := range rows {
			mark := ""
			switch {
			case r.NotApplicable:
				mark = "not applicable on the engine"
			case !r.OK():
				mark = fmt.Sprintf("below %.0f%%", 100*faults.MinPower)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.0f%%\t%s\n", r.Fault, component[r.Fault], r.Claim, r.Cases, r.Violated, 100*r.Caught, mark)
		}
		if err := tw.Flush(); err != nil {
			return fail(stderr, "verify", err)
		}
		for _, r := range rows {
			if !r.OK() && !r.NotApplicable {
				fmt.Fprintf(stdout, "\n%s / %s: first miss: %s\n", r.Fault, r.Claim, r.Missed)
			}
		}
	}
	if interrupted {
		fmt.Fprintf(stderr, "implicitbias verify: interrupted; %d pairs finished\n", len(rows))
		return exitInterrupted
	}
	for _, r := range rows {
		if !r.OK() && !r.NotApplicable {
			return 1
		}
	}
	return 0
}

package main

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
)

// The report plots every negative control's cases next to the claim's
// (report.RatioPlot): a control's statistics far past the bound are the
// best picture of a check's power. properties.Runner.Run counts the
// controls but keeps no case of theirs, so for a report the CLI draws them
// again through the runner's own path (Runner.RunControl: the same seed,
// the same count, the same rule), which gives the same verdicts, case for
// case.

// claimBounds returns the bound of every claim case of r, drawn again like
// the controls, when r lacks them: properties' merge of the claims' summaries
// keeps their statistics (Values) but not their bounds, and a plot of
// statistic/bound needs each case's own. The statistics drawn again must
// equal the run's, bit for bit, or nothing is returned (the plot then
// divides by the shown bound and says so). Sweep entries (one case, whose
// bound is the shown one) are not drawn again. Once properties keeps
// Bounds (one line in its merge), this does nothing.
func claimBounds(ctx context.Context, run *properties.Runner, e properties.Entry, r theorems.Result) []float64 {
	if len(r.Claims.Bounds) == len(r.Claims.Values) || e.Sweep {
		return nil
	}
	var values, bounds []float64
	for k := range e.Claims {
		out := run.RunClaim(ctx, e, k)
		values = append(values, out.Summary.Values...)
		bounds = append(bounds, out.Summary.Bounds...)
	}
	if len(values) != len(r.Claims.Values) || len(bounds) != len(values) {
		return nil
	}
	for i, v := range values {
		if math.Float64bits(v) != math.Float64bits(r.Claims.Values[i]) {
			return nil
		}
	}
	return bounds
}

// addControlRuns fills every result's ControlRuns (and the claims' Bounds,
// see claimBounds) under run, the entries in parallel (each is
// deterministic for its seed).
func addControlRuns(ctx context.Context, run *properties.Runner, entries []properties.Entry, results []theorems.Result) {
	byID := map[string]properties.Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(results)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				e, ok := byID[results[i].ID]
				if !ok {
					continue
				}
				if bs := claimBounds(ctx, run, e, results[i]); bs != nil {
					results[i].Claims.Bounds = bs
				}
				var runs []theorems.ControlRun
				for k, p := range e.Controls {
					if ctx.Err() != nil {
						break // keep draining work: the feeder must not block
					}
					m := p.Meta()
					out := run.RunControl(ctx, e, k)
					runs = append(runs, theorems.ControlRun{Name: m.Name, Drops: m.Drops, Fault: m.Fault, Caught: out.Passed(), Summary: out.Summary})
				}
				results[i].ControlRuns = runs
			}
		}()
	}
	for i := range results {
		work <- i
	}
	close(work)
	wg.Wait()
}

package main

import (
	"context"
	"runtime"
	"sync"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
)

// The report plots every negative control's cases next to the claim's
// (report.RatioPlot): a control's statistics far past the bound are the
// best picture of a check's power. properties.Entry.RunContext counts the
// controls but keeps no case of theirs, so for a report the CLI draws them
// again: properties.Decide on the same seeds (seed + 1000 + i) and the same
// case counts gives the same verdicts, case for case.

// controlCaseCount is properties' count of cases per negative control at
// a budget (Entry.controlCases, unexported there): a quarter of the
// claim's cases, at least 10, or the sweep's one.
func controlCaseCount(e properties.Entry, b properties.Budget) int {
	if e.Sweep {
		return max(e.Cases, 1)
	}
	n := e.Cases
	if n == 0 {
		n = 100
	}
	return max(n*[...]int{1, 4, 20}[b]/4, 10)
}

// addControlRuns fills every result's ControlRuns, the entries in
// parallel (each is deterministic for its seed).
func addControlRuns(ctx context.Context, entries []properties.Entry, results []theorems.Result, seed int64, b properties.Budget) {
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
				var runs []theorems.ControlRun
				for k, p := range e.Controls {
					if ctx.Err() != nil {
						break // keep draining work: the feeder must not block
					}
					out := properties.Decide(ctx, e.ID, p, seed+int64(1000+k), controlCaseCount(e, b), p.CaughtBy, true)
					runs = append(runs, theorems.ControlRun{Name: p.Name, Drops: p.Drops, Fault: p.Fault, Caught: out.Passed(), Summary: out.Summary})
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

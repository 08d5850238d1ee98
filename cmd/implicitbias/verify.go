package main

import (
	"flag"
	"io"
	"runtime"
	"sync"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/theorems"
)

const verifyUsage = `implicitbias verify [--only IDs] [--seed N] [--budget quick|standard|long] [--json]

Runs every registered catalog check on cases generated from the seed and
prints a table: ID, source, claim, cases, status, the worst statistic against
its bound, and how many negative controls the check caught.

  --only IDs     comma-separated catalog IDs or prefixes ending in '-' (LL-,ENG-grad)
  --seed N       seed of the generated cases (default 1); the same seed gives the same output
  --budget B     quick (default), standard (4× cases) or long (20× cases, long runs)
  --json         print the results as JSON (schema: package report, Document)

Exit status: 0 if nothing is violated, 1 if something is, 2 for bad input.
An inconclusive entry is shown and counted, never as a pass.
`

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	only := fs.String("only", "", "")
	seed := fs.Int64("seed", 1, "")
	budgetName := fs.String("budget", "quick", "")
	asJSON := fs.Bool("json", false, "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	budget, err := properties.ParseBudget(*budgetName)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	properties.SetRunBudget(budget) // run lengths of the asymptotic checks
	entries, err := properties.Select(*only)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	results := runEntries(entries, *seed, budget)
	if *asJSON {
		if err := report.WriteJSON(stdout, report.NewDocument(*seed, budget.String(), results)); err != nil {
			return fail(stderr, "verify", err)
		}
	} else if err := report.WriteTable(stdout, results); err != nil {
		return fail(stderr, "verify", err)
	}
	for _, r := range results {
		if r.Status() == theorems.Violated {
			return exitViolated
		}
	}
	return exitOK
}

// runEntries runs the entries concurrently (each is deterministic for its
// seed) and returns the results in the entries' order.
func runEntries(entries []properties.Entry, seed int64, b properties.Budget) []theorems.Result {
	results := make([]theorems.Result, len(entries))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(entries)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = entries[i].Run(seed, b)
			}
		}()
	}
	for i := range entries {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

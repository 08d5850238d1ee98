package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/theorems"
)

const verifyUsage = `implicitbias verify [--only IDs] [--seed N] [--budget quick|standard|long] [--json] [--report DIR] [--shard I/N]
                   [--sweep-store DIR [--sweep-shard I/N]]
implicitbias verify --faults [--fault NAMES] [--only IDs] [--seed N] [--json]
implicitbias verify --engine 'CMD ARGS' [--engine-timeout D] [--faults [--fault NAMES]] [--only IDs] [--seed N] [--json]
implicitbias verify --hunt ID --drop HYPOTHESIS [--seed N]

Runs every registered catalog check on cases generated from the seed and
prints a table: ID, source, claim, cases, status, the worst statistic against
its bound, and how many negative controls the check caught.

  --only IDs     comma-separated catalog IDs or prefixes ending in '-' (LL-,ENG-grad)
  --seed N       seed of the generated cases (default 1); the same seed gives the same output
  --budget B     quick (default), standard (4× cases) or long (20× cases, long runs)
  --json         print the results as JSON (schema: package report, Document)
  --report DIR   also write DIR/index.html, DIR/report.md, DIR/report.json and the
                 figures (PNG and SVG) under DIR/figures
  --shard I/N    run only the entries with index ≡ I (mod N) of the selection
                 (0 ≤ I < N); 'implicitbias merge' joins the shards' JSON.
                 Default: from a Slurm array (SLURM_ARRAY_TASK_ID, _COUNT) or a
                 Kubernetes indexed Job (JOB_COMPLETION_INDEX, JOB_COMPLETIONS),
                 else none (docs/cluster.md)
  --sweep-store DIR
                 keep every job of the width sweeps (section F) in DIR and reuse
                 the jobs found there
  --sweep-shard I/N
                 with --sweep-store: compute only the sweep jobs with index ≡ I
                 (mod N); their entries report inconclusive until a run
                 without --sweep-shard finds every job in DIR (docs/ntk.md)
  --case LINE    rerun one case verbosely: LINE is a case as verify printed it
                 ("worst case: LINE"), found again among the draws of the
                 selection's generators at --seed; exit status 1 if it
                 violates a claim
  --failures DIR where a violated entry's case is stored (DIR/ID.fail, like
                 rapid's fail files) and rerun first by the next verify that
                 selects the entry (default testdata/implicitbias; off: never)
  --faults       run every declared engine fault (package faults) against the
                 claims it must break and print, per (fault, claim), the share
                 of cases the check reported violated (--json: one object per
                 pair, {"fault", "claim", "cases", "violated", "caught"});
                 exit status 1 if a pair is caught in less than 95%
  --fault NAMES  with --faults: only these faults (comma-separated registry
                 names, e.g. missing-zero-grad)
  --engine CMD   property-test another engine: start CMD once and send it the
                 runs of the claims the engine protocol expresses (docs/engines.md);
                 the other claims are listed as not-applicable, never as passes;
                 a case the engine crashes, hangs on or answers garbage to is an
                 engine-error (exit status 1). With --faults: one engine per fault
                 its handshake lists (CMD --fault NAME), and the power table
  --engine-timeout D
                 per-case timeout of --engine (default 10m)
  --hunt ID      search the cases of one of ID's negative controls for a
                 counterexample to the claim, shrink it and print it
  --drop H       the hypothesis the hunt drops (a control's key; an unknown key
                 lists the entry's keys)

On a terminal, a progress line is shown on stderr. Ctrl-C stops the run and
still writes the entries that finished (exit status 130).
Exit status: 0 if nothing is violated, 1 if something is, 2 for bad input.
An inconclusive entry is shown and counted, never as a pass. A hunt exits 0
when it found a counterexample and 1 when it did not.
`

const exitInterrupted = 130

// verifyGCPercent sets the garbage collector's target for a verify run and
// returns the previous one. verify's live heap is small (≈ 50 MB at the
// quick budget: cases, records, cached runs) but it allocates steadily, so
// at Go's default (collect at 2× the live heap) the collector cost ≈ 5% of
// its CPU; at 5× (GOGC=400) the peak is ≈ 200–230 MB instead of ≈ 105 MB
// and the CPU ≈ 4% lower (seed 1, 2 vCPU Sapphire Rapids, idle:
// docs/speed.md). A GOGC the user set wins. check, whose heap holds a
// user's θ (GBs for large nets), keeps the default.
func verifyGCPercent() int {
	if os.Getenv("GOGC") != "" {
		old := debug.SetGCPercent(-1) // no getter: read it, put it back
		debug.SetGCPercent(old)
		return old
	}
	return debug.SetGCPercent(400)
}

// defaultFailures is where verify stores failing cases (see replay.go).
const defaultFailures = "testdata/implicitbias"

func runVerify(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	only := fs.String("only", "", "")
	seed := fs.Int64("seed", 1, "")
	budgetName := fs.String("budget", "quick", "")
	asJSON := fs.Bool("json", false, "")
	reportDir := fs.String("report", "", "")
	shardSpec := fs.String("shard", "", "")
	sweepStore := fs.String("sweep-store", "", "")
	sweepShard := fs.String("sweep-shard", "", "")
	hunt := fs.String("hunt", "", "")
	drop := fs.String("drop", "", "")
	faultPower := fs.Bool("faults", false, "")
	faultNames := fs.String("fault", "", "")
	caseLine := fs.String("case", "", "")
	failDir := fs.String("failures", defaultFailures, "")
	engineCmd := fs.String("engine", "", "")
	engineTimeout := fs.Duration("engine-timeout", 10*time.Minute, "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if err := nonEmpty(fs, "only", "report", "shard", "case", "failures", "engine", "fault"); err != nil {
		return fail(stderr, "verify", err)
	}
	if *faultNames != "" && !*faultPower {
		return fail(stderr, "verify", fmt.Errorf("--fault picks the faults of --faults; add --faults"))
	}
	if *reportDir != "" {
		if err := report.CheckDir(*reportDir); err != nil {
			return fail(stderr, "verify", fmt.Errorf("--report: %v", err))
		}
	}
	budget, err := properties.ParseBudget(*budgetName)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	si, sn := 0, 0
	if *sweepShard != "" {
		if si, sn, err = parseShard(*sweepShard); err != nil {
			return fail(stderr, "verify", fmt.Errorf("--sweep-shard %q: want I/N with 0 ≤ I < N", *sweepShard))
		}
	}
	store, err := properties.NewSweepStore(*sweepStore, si, sn)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if *engineCmd != "" && (*hunt != "" || *drop != "" || *caseLine != "") {
		return fail(stderr, "verify", fmt.Errorf("--engine runs the table and --faults; --hunt and --case run on our engine only"))
	}
	defer debug.SetGCPercent(verifyGCPercent()) // restored on return (tests run verify in-process)
	runner := properties.NewRunner(*seed, budget)
	runner.Store = store
	runner.Figures = *reportDir != ""
	runner.ControlRuns = *reportDir != "" // the report plots every control's cases, kept by the run itself (issue 28: they were drawn again)
	if *hunt != "" || *drop != "" {
		return runHunt(runner, *hunt, *drop, *asJSON, stdout, stderr)
	}
	entries, err := suite.Select(*only)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if *shardSpec == "" {
		spec, source, err := shardFromEnv(os.Getenv)
		if err != nil {
			return fail(stderr, "verify", err)
		}
		if spec != "" {
			fmt.Fprintf(stderr, "implicitbias verify: shard %s from %s\n", spec, source)
			*shardSpec = spec
		}
	}
	if *shardSpec != "" {
		i, n, err := parseShard(*shardSpec)
		if err != nil {
			return fail(stderr, "verify", err)
		}
		var mine []properties.Entry
		for k, e := range entries {
			if k%n == i {
				mine = append(mine, e)
			}
		}
		entries = mine
	}
	if *caseLine != "" {
		return runCase(runner, entries, *caseLine, stdout, stderr)
	}
	if *faultNames != "" {
		catalog, err := suite.Select("")
		if err != nil {
			return fail(stderr, "verify", err)
		}
		if entries, err = keepFaults(entries, catalog, *faultNames); err != nil { // faultselect.go
			return fail(stderr, "verify", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := engines.Options{Timeout: *engineTimeout}
	if *faultPower && *engineCmd != "" {
		return runEngineFaults(ctx, *seed, budget, *engineCmd, opts, entries, *asJSON, stdout, stderr) // verifyengine.go
	}
	if *faultPower {
		return runFaultPower(ctx, runner, entries, *asJSON, stdout, stderr)
	}
	if *engineCmd != "" {
		closeEngine, err := openEngine(ctx, runner, *engineCmd, opts, stderr) // verifyengine.go
		if err != nil {
			return fail(stderr, "verify", err)
		}
		defer closeEngine()
	}
	stored, err := rerunStored(*failDir, entries, stderr) // replay.go
	if err != nil {
		return fail(stderr, "verify", err)
	}
	prog := newProgress(stderr, len(entries))
	results := runEntries(ctx, runner, entries, prog)
	prog.done()
	interrupted := ctx.Err() != nil
	if interrupted {
		// Keep what finished; drop entries that never started.
		var kept []theorems.Result
		for _, r := range results {
			if r.ID != "" && !r.Interrupted {
				kept = append(kept, r)
			}
		}
		results = kept
	}
	addStored(results, stored)
	// The table (or JSON) first: a report that cannot be written after all
	// must not hide the results or a violation.
	if *asJSON {
		if err := report.WriteJSON(stdout, report.NewDocument(*seed, budget.String(), results, registeredChecks()...)); err != nil {
			return fail(stderr, "verify", err)
		}
	} else if err := report.WriteTable(stdout, results, registeredChecks()...); err != nil {
		return fail(stderr, "verify", err)
	}
	code := exitOK
	for _, r := range results {
		if r.Status() == theorems.Violated || r.Claims.EngineErrors > 0 {
			code = exitViolated
		}
	}
	if *failDir != "off" {
		if err := storeFailures(*failDir, *seed, budget.String(), results, stderr); err != nil {
			fail(stderr, "verify", fmt.Errorf("--failures: %v", err))
		}
	}
	if *reportDir != "" {
		if _, err := report.WriteReport(*reportDir, *seed, budget.String(), results, provenance(append([]string{"verify"}, args...), start), registeredChecks()); err != nil {
			fail(stderr, "verify", fmt.Errorf("--report: %v", err))
			if code == exitOK { // a violation keeps its status
				code = exitUsage
			}
		}
	}
	if interrupted {
		fmt.Fprintf(stderr, "implicitbias verify: interrupted; %d of %d entries finished\n", len(results), len(entries))
		return exitInterrupted
	}
	return code
}

func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N", s)
	}
	return i, n, nil
}

// runEntries runs the entries concurrently under r (each is deterministic
// for its seed; they share r's caches) and returns the results in the
// entries' order.
func runEntries(ctx context.Context, r *properties.Runner, entries []properties.Entry, prog *progress) []theorems.Result {
	results := make([]theorems.Result, len(entries))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(entries)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				prog.start(entries[i].ID)
				results[i] = r.Run(ctx, entries[i])
				prog.finish(entries[i].ID)
			}
		}()
	}
feed:
	for i := range entries {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return results
}

// progress shows "verify: k/n done, running A B" on a terminal.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	total   int
	done_   int
	running []string
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) start(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, id)
	p.draw()
}

func (p *progress) finish(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, r := range p.running {
		if r == id {
			p.running = append(p.running[:i], p.running[i+1:]...)
			break
		}
	}
	p.done_++
	p.draw()
}

func (p *progress) draw() {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[Kverify: %d/%d done, running %s", p.done_, p.total, strings.Join(p.running, " "))
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

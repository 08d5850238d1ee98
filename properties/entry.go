package properties

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/theorems"
)

// Entry binds a catalog entry to its claim and its negative controls.
type Entry struct {
	theorems.Info
	// Claims are checked on generated cases that meet the hypotheses; each
	// must hold.
	Claims []Prop
	// Controls break one hypothesis each; the check must report violated or
	// assumption-failed on every case.
	Controls []Prop
	// Faults are the engine faults (package faults, by name) the entry's
	// check must catch, each with why it must: Entries appends one fault
	// control per fault to Controls, in this order (faultControls), and the
	// power table measures them (PowerTable, `verify --faults`).
	Faults []FaultControl
	// Cases is the number of cases per property at the quick budget.
	Cases int
	// Figures, when set, draws the entry's own evidence (trajectories,
	// scaling plots) for the report, from the runner's seed.
	Figures func(r *Runner) []theorems.Figure
	// ForLoss, when set, builds the entry with a user's binary margin loss
	// in place of the built-in ones (`implicitbias loss FORMULA --run`;
	// forloss.go).
	ForLoss func(loss string) Entry
	// Sweep marks an entry whose cases are whole sweeps (many training runs
	// each, section F) that grow with the run budget instead of in number:
	// Cases is then the number of cases at every budget, and each control
	// runs as many cases as the claims.
	Sweep bool
}

// cases returns the number of cases of each claim of e at budget b.
func (e Entry) cases(b Budget) int {
	if e.Sweep {
		return max(e.Cases, 1)
	}
	n := e.Cases
	if n == 0 {
		n = 100
	}
	return n * [...]int{1, 4, 20}[b]
}

// controlCases is the number of cases of each negative control of e at
// budget b: a quarter of the claim's, at least 10, or the sweep's own.
func (e Entry) controlCases(b Budget) int {
	n := e.cases(b)
	if e.Sweep {
		return n
	}
	return max(n/4, 10)
}

// RunClaim decides claim i of e: its cases drawn from r.Seed + i, e's
// count of cases at r's budget, by Decide's rule. It is the one place
// that sets a claim's seed and count: Run, go test's Assert and the CLI's
// report (which draws the cases again for their bounds) call it.
func (r *Runner) RunClaim(ctx context.Context, e Entry, i int) Outcome {
	return decide(ctx, r, e.ID, e.Claims[i], r.Seed+int64(i), e.cases(r.Budget), ClaimWanted, !e.Conjecture, r.shardedSweep(e))
}

// shardedSweep reports a sweep entry run as one of several sweep shards
// (verify --sweep-shard I/N, N > 1): every case is incomplete there (some
// of its jobs are other shards'), so a case drawn in place of an
// undecided one would only compute jobs that the run without
// --sweep-shard never reads (it reads the first case's): each property
// draws its cases once (issue 28: a shard computed its part of four
// sweeps per property, the discard allowance's).
func (r *Runner) shardedSweep(e Entry) bool {
	return e.Sweep && r.Store != nil && r.Store.shards > 1
}

// RunControl decides negative control i of e (fault controls included):
// its cases drawn from ControlSeed, e's control count at r's budget,
// caught as the control says (Prop.Meta().CaughtBy). It is the one place
// that sets a control's count: Run, Assert, the power table (MeasurePower)
// and the CLI's report call it.
func (r *Runner) RunControl(ctx context.Context, e Entry, i int) Outcome {
	p := e.Controls[i]
	return decide(ctx, r, e.ID, p, ControlSeed(r.Seed, e, i), e.controlCases(r.Budget), p.Meta().CaughtBy, true, r.shardedSweep(e))
}

// ControlSeed is the seed of control i of e at the base seed: seed + 1000
// + i, or, for a fault control (Property.OfClaim), its claim's seed, seed
// + k: a fault is planted in the claim's own cases (those the fault acts
// on), whose clean runs — the validity of each case — the claim already
// trained (issue 28 item 2: ZD-T7's 98 runs were 58 clean ones).
func ControlSeed(seed int64, e Entry, i int) int64 {
	if k := e.Controls[i].Meta().OfClaim; k > 0 {
		return seed + int64(k-1)
	}
	return seed + int64(1000+i)
}

// Sample draws n cases from g, deterministically for a seed.
func Sample[C any](g Gen[C], seed int64, n int) []C {
	var out []C
	for _, v := range SampleAny(gopter.Gen(g), seed, n) {
		out = append(out, v.(C))
	}
	return out
}

// SampleAny draws n cases from g, deterministically for a seed.
func SampleAny(g gopter.Gen, seed int64, n int) []any {
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(seed))
	var out []any
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		if v, ok := g(params).Retrieve(); ok {
			out = append(out, v)
		}
	}
	return out
}

// Run checks the entry's claims and controls by the one rule of Decide
// (the rule `go test` asserts), at r's seed and budget; when ctx is done
// it returns what finished, marked Interrupted.
func (r *Runner) Run(ctx context.Context, e Entry) theorems.Result {
	res := theorems.Result{Info: e.Info, Claims: theorems.Summary{ID: e.ID}}
	for i := range e.Claims {
		out := r.RunClaim(ctx, e, i)
		merge(&res.Claims, out.Summary)
		if out.Interrupted {
			res.Interrupted = true
			return res
		}
	}
	for i, p := range e.Controls {
		res.Controls++
		out := r.RunControl(ctx, e, i)
		if out.Interrupted {
			res.Interrupted = true
			return res
		}
		if r.ControlRuns {
			m := p.Meta()
			res.ControlRuns = append(res.ControlRuns, theorems.ControlRun{Name: m.Name, Drops: m.Drops, Fault: m.Fault, Caught: out.Passed(), Summary: out.Summary})
		}
		if out.NotRun() {
			res.Controls-- // not run on the engine under test
			continue
		}
		switch {
		case out.Passed():
			res.ControlsCaught++
		case res.ControlMissed != "":
		case out.GaveUp:
			res.ControlMissed = fmt.Sprintf("%s: gave up, %d cases inconclusive (%d allowed)", p.Meta().Name, out.Summary.Inconclusive, out.Allowance)
		default:
			res.ControlMissed = fmt.Sprintf("%s: %s", p.Meta().Name, out.Failed)
		}
	}
	if r.Figures && e.Figures != nil && ctx.Err() == nil {
		res.Figures = e.Figures(r)
	}
	return res
}

func merge(dst *theorems.Summary, s theorems.Summary) {
	if s.Cases > 0 && (dst.Cases == 0 || theorems.Worse(s.Worst, dst.Worst)) {
		dst.Worst, dst.WorstCase = s.Worst, s.WorstCase
	}
	if s.Holds+s.Violated > 0 && (dst.Holds+dst.Violated == 0 || theorems.Worse(s.Decided, dst.Decided)) {
		dst.Decided, dst.DecidedCase = s.Decided, s.DecidedCase
	}
	dst.GaveUp = dst.GaveUp || s.GaveUp
	dst.Cases += s.Cases
	dst.Values = append(dst.Values, s.Values...)
	dst.Bounds = append(dst.Bounds, s.Bounds...)
	dst.Holds += s.Holds
	dst.Violated += s.Violated
	dst.Inconclusive += s.Inconclusive
	dst.AssumptionFailed += s.AssumptionFailed
	dst.NotApplicable += s.NotApplicable
	dst.EngineErrors += s.EngineErrors
	dst.EngineFailures = append(dst.EngineFailures, s.EngineFailures...)
}

// FaultControl is one engine fault an entry's check must catch, and why
// it must (issue 18): the fault is planted in the entry's cases and the
// check must report violated on at least faults.MinPower of them.
type FaultControl struct {
	Fault string // the fault's name in faults.Registry
	Why   string
	// On, when set, is a part of the name of the entry's claim whose cases
	// carry the fault (default: its first claim that takes faults).
	On string
}

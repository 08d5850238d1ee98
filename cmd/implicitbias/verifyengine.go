package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/train"
)

// openEngine starts the engine command (verify --engine) as r's engine
// under test and returns what stops it. Ctrl-C (ctx done) stops the engine
// at once (ctxEngine): the case in flight ends, and the interrupted
// run's unfinished entries are not reported.
func openEngine(ctx context.Context, r *properties.Runner, command string, opts engines.Options, stderr io.Writer) (func(), error) {
	p, err := engines.Start(ctx, command, opts)
	if err != nil {
		return nil, fmt.Errorf("--engine: %w", err)
	}
	cp := p.Capabilities()
	fault := ""
	if cp.Fault != "" {
		fault = ", fault " + cp.Fault
	}
	fmt.Fprintf(stderr, "implicitbias verify: engine %s (protocol %d%s)\n", cp.Engine, cp.Protocol, fault)
	r.Engine = ctxEngine{p, ctx}
	return func() { p.Close() }, nil
}

// ctxEngine runs every call of the engine under ctx, verify's: Ctrl-C
// ends a case in flight at once (the engine's process group is killed),
// where the harness's calls would wait for the per-case timeout.
type ctxEngine struct {
	*engines.Process
	ctx context.Context
}

func (e ctxEngine) Train(_ context.Context, c *engines.Case) (*train.Trajectory, error) {
	return e.Process.Train(e.ctx, c)
}

func (e ctxEngine) Eval(_ context.Context, c *engines.EvalCase) (*engines.Evaluation, error) {
	return e.Process.Eval(e.ctx, c)
}

// runEngineFaults is verify --faults --engine: for each fault the engine's
// handshake lists that the registry knows, one engine started with
// --fault NAME, and the power table of that fault's pairs measured against
// it (the cases' validity — the claim holds without the fault — on our
// engine). A listed fault the registry does not know is named and skipped.
func runEngineFaults(ctx context.Context, seed int64, b properties.Budget, command string, opts engines.Options, entries []properties.Entry, asJSON bool, stdout, stderr io.Writer) int {
	probe, err := engines.Start(ctx, command, opts)
	if err != nil {
		return fail(stderr, "verify", fmt.Errorf("--engine: %w", err))
	}
	listed := probe.Capabilities().Faults
	probe.Close()
	reference := properties.NewRunner(seed, b)
	var rows []properties.PowerRow
	for _, f := range listed {
		if _, err := faults.Lookup(f); err != nil {
			fmt.Fprintf(stderr, "implicitbias verify: engine fault %s is not in the registry: not measured\n", f)
			continue
		}
		var mine []properties.Entry
		for _, e := range entries {
			if slices.ContainsFunc(e.Faults, func(fc properties.FaultControl) bool { return fc.Fault == f }) {
				mine = append(mine, e)
			}
		}
		if len(mine) == 0 {
			continue
		}
		r := properties.NewRunner(seed, b)
		r.EngineFault, r.Reference = f, reference
		closeEngine, err := openEngine(ctx, r, command+" --fault "+f, opts, stderr)
		if err != nil {
			return fail(stderr, "verify", err)
		}
		got, err := properties.PowerTable(ctx, r, mine)
		closeEngine()
		for _, row := range got {
			if row.Fault == f {
				rows = append(rows, row)
			}
		}
		if err != nil && ctx.Err() == nil {
			return fail(stderr, "verify", err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return writePower(ctx, rows, asJSON, stdout, stderr) // faults.go
}

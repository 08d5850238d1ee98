// Package proptest holds what the property tests of every package under
// properties/ share: the tests' Runner (its seed and budget from the
// environment, its caches shared by the tests of one package, as in one
// verify run) and Assert, which checks a catalog entry on verify's path.
// A family's tests assert their own entries (Assert(t, Entries(), id));
// package suite's tests the whole catalog.
package proptest

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/leanovate/gopter"
)

// Seed is the seed of the property tests: IMPLICITBIAS_SEED if set, a
// fresh one in soak mode (IMPLICITBIAS_SOAK set), 1 otherwise (CI). A failing
// property prints it.
func Seed(t *testing.T) int64 {
	return Runner(t).Seed
}

// sharedRunner is the Runner of one test process (one package's tests):
// its seed and budget come from the environment, and its caches serve
// every test (LL-4.4, LL-A9, LL-lin and LL-4.5 read the same training runs,
// as in one verify run).
var sharedRunner = sync.OnceValues(func() (*properties.Runner, error) {
	seed := int64(1)
	if s := os.Getenv("IMPLICITBIAS_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, err
		}
		seed = v
	} else if os.Getenv("IMPLICITBIAS_SOAK") != "" {
		seed = time.Now().UnixNano()
	}
	b, err := properties.BudgetFromEnv()
	if err != nil {
		return nil, err
	}
	r := properties.NewRunner(seed, b)
	if cmd := os.Getenv(engines.EnvEngine); cmd != "" {
		// Another engine under test (docs/engines.md): started once for
		// the package's tests; it exits when the test process closes its
		// stdin.
		p, err := engines.Start(context.Background(), cmd, engines.Options{})
		if err != nil {
			return nil, err
		}
		r.Engine = p
	}
	return r, nil
})

// Runner returns the tests' Runner (IMPLICITBIAS_SEED, IMPLICITBIAS_SOAK,
// IMPLICITBIAS_BUDGET, and IMPLICITBIAS_ENGINE: another engine under test,
// on which the claims the protocol does not express are skipped as not
// applicable).
func Runner(t *testing.T) *properties.Runner {
	r, err := sharedRunner()
	if err != nil {
		t.Fatalf("the test environment: %v", err)
	}
	return r
}

// EntryOf returns the runnable entry id among es (bound by
// properties.Bind: catalog Info, fault controls), failing t when es has
// none.
func EntryOf(t *testing.T, es []properties.Entry, id string) properties.Entry {
	for _, e := range properties.Bind(es) {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no entry %s", id)
	return properties.Entry{}
}

// Assert checks the catalog entry id of es (unbound: a family's
// Entries()) on the path `verify` runs
// (Runner.Run): the same seeds, the same numbers of cases, the same rule
// (Decide), each claim and each control that breaks a hypothesis as a
// subtest. A conjecture's claims are counted, not asserted (they fail only
// by giving up). The fault controls are measured by the family's
// TestFaultPower (FaultPower), in the same process, which reads the
// claims' verdicts Assert leaves in the Runner's cache.
func Assert(t *testing.T, es []properties.Entry, id string) {
	t.Helper()
	// Entries run side by side, as verify runs them: every draw depends on
	// the seed alone and the Runner's caches are safe for concurrent use,
	// so the verdicts are those of a sequential run (go test -parallel,
	// GOMAXPROCS by default, sets how many at once).
	t.Parallel()
	r := Runner(t)
	e := EntryOf(t, es, id)
	for i, p := range e.Claims {
		t.Run(p.Meta().Name, func(t *testing.T) {
			assertOutcome(t, r, p, r.RunClaim(context.Background(), e, i))
		})
	}
	for i, p := range e.Controls {
		if p.Meta().Fault != "" {
			continue // measured by the family's TestFaultPower (FaultPower)
		}
		t.Run(p.Meta().Name, func(t *testing.T) {
			assertOutcome(t, r, p, r.RunControl(context.Background(), e, i))
		})
	}
}

// RunProperty runs p over n decided cases drawn from seed by Decide, the
// rule `verify` applies: an inconclusive verdict is neither a claim's pass
// nor a control's catch; the case is replaced by a fresh one, at most
// DiscardAllowance(n, p.Undecided) times, after which the property fails
// ("gave up"). A failing case is shrunk and printed with the seed that
// reproduces it (IMPLICITBIAS_SEED).
func RunProperty(t *testing.T, r *properties.Runner, id string, p properties.Prop, seed int64, n int, want func(theorems.Verdict) bool, report bool) {
	t.Helper()
	assertOutcome(t, r, p, properties.Decide(context.Background(), r, id, p, seed, n, want, report))
}

// assertOutcome fails t when the run o of p gave up or was falsified.
func assertOutcome(t *testing.T, r *properties.Runner, p properties.Prop, o properties.Outcome) {
	t.Helper()
	switch {
	case o.NotRun():
		t.Skipf("%s: not applicable on the engine under test: %s", p.Meta().Name, o.Summary.Worst.Detail)
	case o.GaveUp:
		t.Fatalf("%s: gave up: %d of %d cases inconclusive, %d allowed (IMPLICITBIAS_SEED=%d reproduces it)\n\tlast: %v",
			p.Meta().Name, o.Summary.Inconclusive, o.Summary.Cases, o.Allowance, r.Seed, o.Summary.Worst)
	case o.Failed != "":
		t.Fatalf("%s: falsified (IMPLICITBIAS_SEED=%d reproduces it)\n\tcase: %s", p.Meta().Name, r.Seed, o.Failed)
	}
	if o.Summary.Inconclusive > 0 {
		t.Logf("%d inconclusive cases replaced (%d allowed)", o.Summary.Inconclusive, o.Allowance)
	}
}

// EnvRunner is testRunner for helpers without a *testing.T: the quick
// budget at seed 1 when the environment is malformed (testRunner reports
// that).
func EnvRunner() *properties.Runner {
	if r, err := sharedRunner(); err == nil {
		return r
	}
	return properties.NewRunner(1, properties.Quick)
}

// DrawCases draws n cases from g with the test's seed.
func DrawCases(t *testing.T, g gopter.Gen, n int) []any {
	params := gopter.DefaultGenParameters()
	params.Rng.Seed(Seed(t))
	var out []any
	for len(out) < n {
		if v, ok := g(params).Retrieve(); ok {
			out = append(out, v)
		}
	}
	return out
}

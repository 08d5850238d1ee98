package properties

import (
	"fmt"
	"sync"

	"github.com/implicitbias/implicitbias/engines"
)

// Runner holds what a run of the properties depends on besides its cases:
// the seed, the budget, the sweep store and the caches of training runs
// that several entries read (as gonum's optimize passes *Settings to every
// method). Every property's check takes it; nothing of a run lives in
// package state, so two runners with different budgets can run at once in
// one process.
//
// A Runner is safe for concurrent use (verify runs entries in parallel):
// its caches are guarded, and the cached values are only read. It must not
// be copied after first use.
type Runner struct {
	// Seed is the base seed: claim i of an entry draws from Seed + i,
	// control i from Seed + 1000 + i (a fault control from its claim's
	// seed: ControlSeed).
	Seed int64
	// Budget sets the number of cases (Entry.cases) and the run lengths of
	// the asymptotic checks (runLengths, Runner.Steps, the sweeps' sizes).
	Budget Budget
	// Figures asks Run for the entries' own figures.
	Figures bool
	// ControlRuns asks Run to keep every negative control's cases
	// (Result.ControlRuns) for the report's plot of claims and controls.
	ControlRuns bool
	// Store, when not nil, keeps the jobs of the section-F sweeps
	// (sweepstore.go).
	Store *SweepStore
	// Engine, when set, is the engine under test (engines.Process: `verify
	// --engine`, IMPLICITBIAS_ENGINE): the claims the protocol expresses
	// send their runs to it, every other claim is not applicable (engine.go).
	// nil: our engine, called directly.
	Engine engines.Engine
	// EngineFault is the registry fault Engine plants itself (an adapter
	// started with --fault NAME: verify --engine --faults): the fault
	// controls of that fault run their cases, fault cleared, on Engine.
	// Reference is the runner of our engine on which their validity (the
	// claim holds without the fault) is decided.
	EngineFault string
	Reference   *Runner

	// caches holds the caches of runs read by more than one entry or
	// figure (Cache), by name: each family names its own, keyed by the
	// case's full description and, where the run depends on it, the budget
	// (the KKT runs of LL-4.4, LL-A9, LL-C10, LL-lin and LL-4.5; the
	// classification runs of ZD-T7, ZD-T8; the ladders of XY-P3, XY-C1; the
	// NTK sweeps of section F).
	caches sync.Map // string → *memo[T]
}

// NewRunner returns a runner at seed and budget, with no sweep store and
// empty caches.
func NewRunner(seed int64, b Budget) *Runner { return &Runner{Seed: seed, Budget: b} }

// Steps returns quick, or 10·quick at the long budget: trajectory
// properties then train 10× longer (the asymptotic versions of the checks)
// and add the slow x² networks; `go test ./...` runs the quick budget.
func (r *Runner) Steps(quick int) int {
	if r.Long() {
		return 10 * quick
	}
	return quick
}

// Long reports whether the long runs are asked for.
func (r *Runner) Long() bool { return r.Budget == Long }

// Cache returns r's cache called name, of values of type T, empty on
// first use. A name is one family's: the same name with another T panics
// (a defect of the caller, found by any test of the entry).
func Cache[T any](r *Runner, name string) *memo[T] {
	c, _ := r.caches.LoadOrStore(name, &memo[T]{})
	return c.(*memo[T])
}

// memo caches results by key; concurrent callers of one key wait for the
// first computation. The cached values are shared: callers must not modify
// them. The zero memo is empty and ready.
type memo[T any] struct {
	mu sync.Mutex
	m  map[string]*memoEntry[T]
}

type memoEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns the value under key, computed by f on first use. Errors are
// not kept: the next caller computes again (a sweep incomplete on one
// shard may be complete once the store has the other shards' jobs).
func (c *memo[T]) Get(key string, f func() (T, error)) (T, error) {
	e := c.entry(key)
	e.once.Do(func() { e.v, e.err = f() })
	if e.err != nil {
		c.mu.Lock()
		if c.m[key] == e {
			delete(c.m, key)
		}
		c.mu.Unlock()
	}
	return e.v, e.err
}

// GetKept is get keeping errors too: f is deterministic for its key, so a
// failed run fails again and is not repeated.
func (c *memo[T]) GetKept(key string, f func() (T, error)) (T, error) {
	e := c.entry(key)
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}

func (c *memo[T]) entry(key string) *memoEntry[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*memoEntry[T]{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &memoEntry[T]{}
		c.m[key] = e
	}
	return e
}

// describer is a case whose description depends on the runner: a sweep's
// widths and seeds grow with the budget.
type describer interface {
	Describe(r *Runner) string
}

// Describe returns the description of case v under r: the line verify
// prints for it (a sweep's widths and seeds depend on the budget).
func Describe(r *Runner, v any) string {
	if d, ok := v.(describer); ok {
		return d.Describe(r)
	}
	return fmt.Sprint(v)
}

// SweepJobs runs the n jobs of the sweep of case c in parallel through r's
// store (storedJob): at(j) names job j's width and seed, job computes it.
// It returns the results in job order and, when some job belongs to
// another shard, ErrSweepIncomplete (incomplete); the first job error
// alone otherwise.
func SweepJobs[T any](r *Runner, c describer, n int, at func(j int) (width int, seed uint64), job func(width int, seed uint64) (T, error)) ([]T, error) {
	out := make([]T, n)
	have := make([]bool, n)
	errs := make([]error, n)
	RunParallel(n, func(j int) {
		w, seed := at(j)
		out[j], have[j], errs[j] = storedJob(r.Store, jobKey(r, c, w, seed), j, func() (T, error) { return job(w, seed) })
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, incomplete(r.Store, c.Describe(r), have)
}

// jobKey names job (width, seed) of a case (its description at r's
// budget) at r's budget.
func jobKey(r *Runner, c describer, width int, seed uint64) string {
	return fmt.Sprintf("%s/%s/width=%d/seed=%d", c.Describe(r), r.Budget, width, seed)
}

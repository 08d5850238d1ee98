// Package properties generates random cases with gopter — homogeneous
// networks, datasets, parameters — and binds them to the checks of package
// theorems: each catalog entry becomes one Entry literal (section_*.go)
// with its claims and its negative controls, each a Property[C]: a
// generator of cases of type C and a check func(*Runner, C) Verdict.
// Entries lists them.
//
// A Runner carries everything a run depends on besides its cases: the
// seed, the budget, the sweep store and the caches of the training runs
// several entries read; the package holds no mutable state. Runner.Run
// checks an entry by the one rule of Decide; the CLI's verify runs it,
// and the package's tests (named by catalog ID, such as
// TestLL_B3_EulerIdentity) run the same path with one line,
// Assert(t, id). docs/architecture.md follows one claim through it.
//
// Cases are described by small integers and a seed, so that gopter shrinks a
// failing case to a readable one (a spec string and a seed) that reproduces
// it.
package properties

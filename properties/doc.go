// Package properties is the harness of the property suite, read once: it
// binds the checks of package theorems to generated cases. A catalog entry
// is one Entry literal (its family's entries.go, under properties/<family>)
// with its claims and its negative controls, each a Property[C]: a
// generator of cases of type C and a check func(*Runner, C) Verdict.
//
// A Runner carries everything a run depends on besides its cases: the
// seed, the budget (Runner.Steps, Runner.Long), the sweep store and the
// caches of the training runs several claims read (Cache: one cache per
// family, by name); the package holds no mutable state. Runner.Run checks
// an entry by the one rule of Decide, and RunClaim / RunControl are the
// one place that sets a property's seed and count. Fault controls
// (faultcontrol.go) plant an engine fault of package faults in a claim's
// own cases and must be violated on at least faults.MinPower of them
// (MeasurePower, PowerTable); an inconclusive case is never a pass, and a
// claim's declared rate of inconclusive cases (Rate) sizes its allowance
// (DiscardAllowance).
//
// The layers above it:
//
//   - properties/cases: the case builders several families share
//     (architectures, teacher data, losses, the GRW schemes, recorders);
//   - one package per catalog section, each with its entries, its own
//     cases and generators, and its tests (named by catalog ID, such as
//     TestLL_B3_EulerIdentity): homogeneity (A), margins (B), kkt (C),
//     regression (D), classification (E), ntk (F);
//   - properties/suite: every entry (suite.Entries, Select, ForLoss), what
//     `implicitbias verify` runs, and the tests across entries;
//   - properties/proptest: the tests' Runner and Assert.
//
// docs/architecture.md follows one claim through them. Cases are described
// by small integers and a seed, so that gopter shrinks a failing case to a
// readable one (a spec string and a seed) that reproduces it.
package properties

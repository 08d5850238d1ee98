// Package faults lists deliberate engine faults: small, named bugs planted
// in one component of the training engine (an optimizer, the reweighting,
// a model's backward pass or degree, a loss's f′, the flow integrator, the
// regularizer) so that the verification suite can show that its checks
// catch broken engines, not only broken arithmetic.
//
// A check that cannot fail is a defect: every claim of sections B–F of the
// catalog (../shared/THEOREMS.md) lists at least one fault among its
// negative controls. This package knows the faults only (name, component,
// effect, how each is planted); the claims each must break, and why, are
// declared by the claims' entries (properties.Entry.Faults), the one place
// of a claim. The property tests run every declared (fault, claim) pair
// and require the claim's check to report violated on at least MinPower of
// the pair's cases; `implicitbias verify --faults` prints the same table.
//
// A fault never reaches a production path: it is applied by wrapping a
// component (Fault.Model, Fault.Loss, Fault.Optimizer, Fault.Regularizer)
// or through the engine's PlantFault methods (train.Objective.PlantFault,
// train.Flow.PlantFault), whose argument types live in the internal package
// internal/enginefault: code outside the module can pass them nil only, so
// the hooks are reachable from this registry alone. The zero Fault is no
// fault: every method returns its argument unchanged.
package faults

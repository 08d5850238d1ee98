// Package enginefault holds the hooks by which the fault registry (package
// faults) plants a deliberate bug inside an engine type: the reweighting of
// train.Objective and the flow integrator train.Flow. The engine takes them
// through methods whose argument type lives here, in an internal package:
// code outside this module cannot name these types, so the only value it can
// pass is nil (no fault). The faults are thus reachable only from the
// registry, without exported hook fields on the engine's types and without
// package-level state.
package enginefault

// Objective is a fault of the objective's reweighting.
type Objective struct {
	// Weights rewrites, in place, the sample weights before they take
	// effect (SetWeights, Reweight).
	Weights func(w []float64)
	// Honest makes the rewrite act on the caller's own slice, so that what
	// the caller records (a GRW scheme's q^{(t)}, Record.Weights, the
	// objective's LogWeight) is what is applied: a bug that is also
	// reported. Without it the rewrite acts on a copy and the objective
	// reports the weights as given.
	Honest bool
}

// Flow is a fault of the flow integrator (train.Flow, Dormand–Prince 5(4)).
type Flow struct {
	// ErrorScale multiplies the local error estimate that the step-size
	// controller accepts steps by and that LocalError reports (0 means 1).
	ErrorScale float64
	// B, when non-nil, replaces the solution weights b_1…b_6 (the last row
	// of the stage matrix: the method is first-same-as-last, so b is also
	// the node of the seventh stage); the error row e = b − b̂ is kept as
	// it is, so the local error estimate does not see the change.
	B *[6]float64
}

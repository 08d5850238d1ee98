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

// MisplacedB1 returns the tableau fault of issue 32 for Flow.B: Dormand–
// Prince's solution row (Hairer, Nørsett & Wanner, Table 5.2) with b₁ =
// 35/38.4 for 35/384, a misplaced decimal point. Σ b_i = 1 + 0.82 ≠ 1: the
// method is no longer consistent (to first order each step advances the
// state 1.82 times as far as its step size says), while the error row
// e = b − b̂ is kept, so the local error estimate does not see it. One
// definition for the fault registry (package faults) and the integrator's
// order tests (package train), a fresh array for each caller.
func MisplacedB1() *[6]float64 {
	return &[6]float64{35.0 / 38.4, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}
}

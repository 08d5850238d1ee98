package ntk

import (
	"fmt"
	"github.com/implicitbias/implicitbias/theorems"
)

// The linearized runs of section F are what the approximation gaps are
// measured against (ZD Lemma 5, 16): GD on the linearization f_lin of ZD
// eq. (11), with the run's weights q^{(t)} and regularizer. In function
// space that GD is a recursion on n + m numbers,
//
//	f_{t+1}(x) = f_t(x) − η(Σ_i Θ^{(0)}(x, x_i) q_i^{(t)} ℓ′(f_t(x_i); y_i) + μ(f_t(x) − f^{(0)}(x))),
//
// computed from the kernel alone, without the engine's objective, weights,
// regularizer or optimizer. A run whose recorded test outputs leave that
// path is not the run the theorem speaks of: an engine whose reweighting
// did nothing (every GRW run is ERM, so every GRW–ERM gap "falls" to
// exactly 0), whose regularizer is centred wrongly, or whose step is
// preconditioned is reported violated here, not passed by the slope tests.
// The path's sup_t max_x distance to the same recursion with uniform
// weights is the effect the weights must have: the limit of a GRW is
// ERM's (ZD Thm 1, Cor. 15), its finite-time path is not.

// LinPath compares the linearized runs of one (width, seed[, μ]) with the
// recursion.
type LinPath struct {
	// Err is max over the linearized runs, their recorded steps and the
	// test points of |f_lin,engine − f_lin,recursion|.
	Err float64
	// Effect is sup_t max_x |f_q − f_uniform| between the recursion with
	// the run's GRW weights and with uniform weights (ERM): how far the
	// weights must move the GRW run.
	Effect float64
}

// Tolerances of the linearized-path test.
const (
	// LinPathTol bounds |f_lin,engine − f_lin,recursion| for a correct
	// engine. The two compute the same linear (squared loss) or smooth
	// (logistic) recursion in different coordinates (θ, of dimension
	// d_L + 1, against f(X), f(Z)): each step's increment agrees to a few
	// ulps, and the engine's θ accumulates one rounding of |θ| ≲ 10 per
	// step, ≤ 2.2e-16·10·10⁵ ≈ 2e-10 over the longest path (10⁵ steps of
	// ZD-T9). 1e-7 leaves a factor 500; the measured maximum on the claims
	// of the quick budget is recorded in docs/ntk.md. A false alarm would
	// need rounding 500 times its bound: none on a correct engine.
	LinPathTol = 1e-7
	// LinPathPower: the weights' effect must exceed LinPathPower·LinPathTol,
	// or an engine that ignored them could pass the path test (its Err
	// would be about Effect): inconclusive then. The A1 schedules' effects
	// are 1e-2 … 1 (docs/ntk.md).
	LinPathPower = 100
)

// linPathVerdict decides one (width, seed, μ)'s linearized path: violated
// when it leaves the recursion, inconclusive when the weights' effect is
// too small to be seen; ok = false when neither.
func linPathVerdict(what string, p LinPath) (v theorems.Verdict, ok bool) {
	if p.Err > LinPathTol {
		return theorems.Verdict{Status: theorems.Violated, Statistic: p.Err, Bound: LinPathTol,
			Detail: fmt.Sprintf("%s: the linearized run is %.3g from GD on ZD eq. (11) with its weights computed in function space (tolerance %.0e); the weights move the path by %.3g from ERM's: the engine did not train the linearization it was given (weights, regularizer or step)", what, p.Err, LinPathTol, p.Effect)}, true
	}
	if !(p.Effect > LinPathPower*LinPathTol) {
		return theorems.Undecided("%s: the GRW weights move the linearized path by %.3g from ERM's, not more than %g × the path tolerance: an engine that ignored them would pass", what, p.Effect, float64(LinPathPower)), true
	}
	return theorems.Verdict{}, false
}

// Package limits computes, for gradient descent on a linear model with a
// margin loss, the limit a recorded run must approach and the budget of
// its approach, and decides a run against them: the machinery behind the
// linear-limit claims of catalog sections C and E (ZD-T7, ZD-B, LL-lin,
// XY-P1 through LinearLimit and MultiClassLimit; ZD-T8 through PathOffset
// and PathLimitBound; XY-P2 through NonSepRun). The claims' checks are in
// package grwclass.
//
// On separable data with rows z_n = y_n x_n and a tight exponential tail,
// GD's iterate is (Soudry et al. 2018, Thm 3; ZD Thm 7 with weights q)
//
//	θ(t) = ŵ·log T + θ̃ + r(t),   ŵ the hard-margin SVM,   T = Σ η,
//
// with the offset θ̃ solving the support-vector equations on the support S
//
//	Σ_{n∈S} q_n e^{−⟨θ̃, z_n⟩} z_n = ŵ   (on span{z_n : n ∈ S}),
//
// and r(t) → 0. The check computes θ̃ and the path of the flow from the
// run's own data, weights and step size, and asks the run to meet it to a
// budget built from its parts. The files, one idea each, read top down:
//
//   - linearlimit.go: LinearLimit, the check that sums the parts;
//   - limitparts.go: the statistic, its window of records and weights,
//     its bound (LinLimitBound) and the parts the support's geometry sets:
//     the residual on the support's span, the drifts off it and off
//     span{z_n}, and the pull of the samples off the margin;
//   - gdstep.go: GD's step size, its map replayed, and the coefficients
//     of a segment's steps on the z_n;
//   - flow.go: what the machinery knows of the loss (its slope and
//     exponential tail, from package losses), GD's modified flow in log
//     time, and the tally of the run's segments against it;
//   - pathoffset.go: the offset θ̃ (ResidualLimit) and the regularization
//     path's δ_∞ of ZD Thm 8 (PathOffset, PathLimitBound).
//
// No file refers back to the one that uses it. The multi-class version
// (ZD App. B, eq. 20) replaces the SVM with the multi-class max margin
// (multiclasslimit.go, multiclassflow.go); the non-separable split of XY
// Prop. 2 is nonseplimit.go.
//
// Nothing here trains: every limit is computed from the data and the
// records (numerics' SVM and RK4), and every tolerance says where it comes
// from.
package limits

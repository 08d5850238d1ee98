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
// budget built from its parts (limitparts.go: the statistic's bound, the
// support's geometry, the window's weights, the on-support residual and
// the drifts), the pulls off the support and on it (offpull.go), GD's step
// size and its map replayed (gdstep.go), its modified flow in log time
// (logflow.go), the step coefficients (stepcoef.go) and the tally of the
// flow's segments (flowtally.go); LinearLimit (linearlimit.go) sits on top
// of them, and no file refers back to the one that uses it. The multi-class version (ZD App. B, eq. 20) replaces the
// SVM with the multi-class max margin (multiclasslimit.go,
// multiclassflow.go); the regularization path θ_R/R of ZD Thm 8 has the
// offset δ_∞ of pathoffset.go; the non-separable split of XY Prop. 2 is
// nonseplimit.go. tailmodel.go is what the machinery knows of the loss
// (its slope and exponential tail, from package losses).
//
// Nothing here trains: every limit is computed from the data and the
// records (numerics' SVM and RK4), and every tolerance says where it comes
// from.
package limits

// Package theorems is the core of the catalog of claims from the three
// papers (LL: Lyu & Li 2020; ZD: Zhai, Dan, Kolter & Ravikumar; XY: Xu, Ye
// & Ruan 2021): the catalog itself (catalog.go, one ID constant per claim,
// and what a claim needs of a loss, lossneeds.go), the verdict a check
// returns (verdict.go), the summary of a claim over many cases and its
// result with controls (summary.go), and the figures a check can show
// (figure.go). Package report renders results and imports only this core.
//
// The checks live in one package per claim family, each stating its
// mathematics in its doc.go:
//
//	theorems/homogeneity       A: homogeneity, Euler and radial identities, exact gradients
//	theorems/margins           B: margin approximation and dynamics, rates, log-domain training
//	theorems/kkt               C: KKT convergence, the Lemma C.8 certificate, MFCQ, LL-I1
//	theorems/regression        D: GRW in regression (interpolator, span, rates, ZD-T10, ZD-P17)
//	theorems/limits            E: the computed limits of GD on linear models (machinery)
//	theorems/grwclass          E: GRW and importance weighting in classification (the claims)
//	theorems/ntk               F: wide networks
//	theorems/lossassumptions   G: a loss formula against the hypotheses of the theorems
//
// Checks never train: they measure. A check reports
//
//	holds               the claim held within the stated bound
//	violated            it did not; Detail carries the counterexample
//	inconclusive        the case could not decide (a degenerate point, a
//	                    budget that ended before the asymptotic regime): never a pass
//	assumption-failed   the case does not meet the theorem's hypotheses; Detail
//	                    names the hypothesis
//
// Every bound is stated where it is used, with where it comes from (machine
// epsilon times a condition number, an integrator's error estimate, or the
// paper's own constant).
package theorems

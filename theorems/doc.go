// Package theorems is the catalog of claims from the three papers (LL: Lyu &
// Li 2020; ZD: Zhai, Dan, Kolter & Ravikumar; XY: Xu, Ye & Ruan 2021), each
// with a pure check that turns a case (a model, parameters, data, or a
// recorded trajectory) into a Verdict.
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

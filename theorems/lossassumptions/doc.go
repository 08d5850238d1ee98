// Package lossassumptions checks a loss written as a formula against the
// hypotheses of the theorems (catalog section G; LL App. A.1, XY App.
// A.1.1, ZD Thm 8), for loss designers (`implicitbias loss FORMULA`). For a
// margin loss ℓ(q) = e^{−f(q)} it derives f = −log ℓ, f′, g = f⁻¹ and g′
// symbolically and decides
//
//	(B3.1)  f is C¹
//	(B3.2)  f′(q) > 0
//	(B3.3)  f′(q)·q non-decreasing on (b_f, ∞) and → ∞
//	(B3.4)  g′(x) ≤ K g′(θx) and f′(y) ≤ K f′(θy) for θ ∈ [1/2, 1), beyond b_g
//	(B4)    the separability threshold ℓ(b_f)
//	XY's tight exponential tail
//	ZD Thm 8: ℓ convex, L-smooth, strictly decreasing to 0
//
// each as certified on an interval (interval arithmetic with outward
// rounding, symbolic.Scan), numerical evidence up to |q| = Q, or failing at
// a witness q; inconclusive when the sampling cannot decide (never a
// pass). The hypothesis IDs (theorems.HypB31 …) and each claim's
// requirements (theorems.Info.Loss) are the core's; the report's
// applicability table says which catalog claims a loss meets.
//
// It is not a catalog entry of its own: the IDs it serves are those whose
// Info.Loss is set (LL-B4, LL-A5, LL-5.1, LL-4.1, LL-4.2, LL-4.3, LL-4.4,
// LL-A9, LL-C10, LL-lin, ZD-T7, ZD-T8, ZD-PT, XY-C1, XY-P1).
//
// Files: lossvalidation.go (ValidateLoss and the report), losshypotheses.go
// (B3.1–B3.3, B4), losstail.go (B3.4, the tail, ZD Thm 8), losspole.go
// (poles and even zeros), lossapplies.go (the applicability table).
package lossassumptions

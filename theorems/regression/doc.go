// Package regression checks generalized reweighting (GRW, ZD §3) on linear
// regression with the squared loss ½(⟨θ, x⟩ − y)², d > n, and the convex
// and linear-algebra claims around it (catalog section D). A GRW run
// minimizes Σ_i q_i^{(t)} ℓ_i with weights q^{(t)} on the simplex.
//
//	θ_T → θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀) for every GRW       ZD-T1    (ZD Thm 1)
//	θ(t) − θ₀ ∈ span{x_i} at every step                    ZD-span  (ZD Thm 1, proof)
//	Assumption 1 and small η: the training risk → 0        ZD-T2    (ZD Thm 2)
//	θ_μ = θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀),                  ZD-T6lin (ZD Thm 6, linear)
//	    ‖θ_μ − θ*‖ = O(√ε)
//	eig(HQ) ⊂ [min q·λ_min(H), max q·λ_max(H)]             ZD-P17   (ZD Prop. 17)
//	f(x_T) ≤ f* + ‖x₀ − x*‖²/(ηT), η ≤ 1/L                  ZD-T10   (ZD Thm 10)
//	ERM, IW and Group DRO on six digits reach one point    ZD-F1    (ZD Fig. 1)
//	Group DRO's weights converge (Assumption 1)            ZD-GDRO  (ZD §3)
//
// ZD-T1's end point is held to a computed rate (grwrate.go: the
// contraction of GD's error under the run's own weights, with rounding
// terms), and its first steps are replayed with the recorded weights
// (grwreplay.go, WeightsActed) so that a fault in the weights shows.
//
// Files: regressioncase.go (RegressionCase, its interpolator), grw.go
// (ZD-T1, ZD-span, ZD-T2, ZD-GDRO),
// grwrate.go, grwreplay.go, regularized.go (ZD-T6lin), eigen.go (ZD-P17),
// convex.go (ZD-T10), fig1.go (ZD-F1).
package regression

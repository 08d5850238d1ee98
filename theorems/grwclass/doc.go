// Package grwclass checks generalized reweighting and importance weighting
// in classification (catalog section E, and LL-lin of section C) on linear
// models, against the computed limits of package limits.
//
//	ZD-T7   every GRW direction → the hard-margin SVM θ̂_MM (logistic)      (ZD Thm 7)
//	ZD-T8   the regularization path θ_R/R and GD's direction agree          (ZD Thm 8)
//	ZD-PT   a polynomial tail: the limit direction depends on the weights   (ZD eq. 19, App. C)
//	ZD-B    multi-class: the direction → the multi-class max margin         (ZD App. B, eq. 20)
//	XY-C1   ‖θ(t)(w)‖ → ∞ under weak regularization                         (XY Claim 1)
//	XY-P1   every w → θ* at rate 1/log t:                                   (XY Prop. 1)
//	        ‖θ̂(t)(w) − θ*‖ ≲ (log n + D_KL(p*‖w) + M)/(γ*·log t)
//	XY-P2   non-separable: the part on S = span D_nonsep → θ̃(w),           (XY Prop. 2)
//	        the part on S^⊥ grows along the SVM of D_sep
//	XY-P3   weakly regularized optima: γ̄(θ_λ(w)) → γ* as λ → 0             (XY Prop. 3)
//	XY-T1   the importance-weighted margin bound with √(D_χ²(P_t‖P_s) + 1)  (XY Thm 1)
//	XY-S5   conjecture: learned weights concentrate, their correlation      (XY §5, Fig. 4)
//	        with the margin rises then decays
//	LL-lin  linear (L = 1): θ̂ → the hard-margin SVM, angle O(1/log t)       (LL Thm A.8)
//
// Files: grwclass.go (GRWDirection for ZD-T7, IWDirection and KLOrdering
// for XY-P1, MultiClassDirection for ZD-B, PathAgreement for ZD-T8,
// PolyTailLimits for ZD-PT), svmdirection.go (SVMDirection for LL-lin), offmargin.go (the gap
// of the samples off the margin), nonsep.go (XY-P2), weakreg.go (XY-C1,
// XY-P3), iwbound.go (XY-T1), learnedweights.go (XY-S5).
package grwclass

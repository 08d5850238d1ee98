// Package ntk checks the wide-network claims of catalog section F (ZD §4)
// on the network of ZD eq. 8–9,
//
//	h^{l+1} = W^l x^l/√d_l + β b^l,   x^{l+1} = σ(h^{l+1}),   f(x) = h^{L+1},
//
// with W^L = 0 at initialization, and its linearization
// f_lin(x) = f⁽⁰⁾(x) + ⟨θ − θ⁽⁰⁾, ∇_θ f⁽⁰⁾(x)⟩ trained by the same GRW:
//
//	ZD-L3     Var Θ⁽⁰⁾ over seeds falls like 1/width                      (ZD Lemma 3)
//	ZD-T4/L5  sup_t |f_lin − f| ≤ C d̃^{−1/4},                            (ZD Thm 4, Lemma 5)
//	          limsup_t |f_GRW − f_ERM| = O(d̃^{−1/4})
//	ZD-T6     limsup |f_reg − f_ERM| = O(d̃^{−1/4} + √ε)                  (ZD Thm 6)
//	ZD-T9     sign f_reg = sign f_MM wherever |f_MM| > C(−log 2ε)^{−1/2}   (ZD Thm 9)
//
// The claims are scaling laws: each check fits a log-log slope over widths
// (FitLogLog, numerics.FitLogLog) and decides with its confidence
// half-width (HalfWidth: a t-quantile at slopeTail, or SlopeZ), against
// the exponent the theorem states; ZD-L3's standard error is a delete-one
// jackknife over seeds (numerics.JackknifeSE).
//
// Files: ntk.go (fits and levels), ntk_concentration.go (ZD-L3),
// ntk_approximation.go (ZD-T4/L5), ntk_regularized.go (ZD-T6), ntk_sign.go
// (ZD-T9), ntk_linpath.go (the linearized path the last three share).
package ntk

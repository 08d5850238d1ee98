// Package losses holds the per-sample losses of the implicit-bias theorems,
// written for log-domain training.
//
// Margin losses (LL App. A.1) are functions of the margin q = yΦ of the form
//
//	ℓ(q) = e^{−f(q)},  g = f⁻¹ on [b_f, ∞),
//
// and expose log ℓ, d log ℓ/dq = −f′, f, f′, g, g′ and b_f in forms that stay
// accurate for margins up to 1e6 and beyond: nothing is computed as ℓ itself
// (which underflows at q ≈ 745) and no formula subtracts two infinities.
//
// The training objective uses the Loss interface: a loss of a score vector s
// against a target y that returns log ℓ and the gradient ∂ℓ/∂s scaled by
// e^{−shift}, where the caller passes shift = log 𝓛 so that the per-sample
// gradients of a loss of 1e-1000 are ordinary numbers. Losses that also
// implement Batch (every binary margin loss, the cross-entropy) evaluate a
// whole batch in one call on the vector kernels of internal/linalg, which
// is what the objective uses on every step.
package losses

// Package train is the engine: a training objective evaluated in log domain,
// optimizers that step on it, and a recorder of per-step metrics.
//
// The objective is a weighted sum of per-sample losses plus an optional
// regularizer (LL: all weights 1; ZD, XY: weights on the simplex),
//
//	𝓛(θ) = Σ_n w_n ℓ(Φ(θ; x_n); y_n),
//
// and is carried as log 𝓛 = LSE_n(log w_n + log ℓ_n), so that losses far
// below 1e-308 are ordinary numbers (LL App. K.2). Its gradient is returned as
// a direction and a log scale,
//
//	∇𝓛 = e^{log 𝓛} · Σ_n p_n ∇_θ log ℓ_n,   p_n = w_n ℓ_n / 𝓛 ∈ [0, 1],
//
// so a step θ − η∇𝓛 is formed as θ − e^{log η + log 𝓛}·direction and the
// loss-based learning rate η ∝ 1/𝓛 of LL App. K.1 never over- or underflows.
package train

// Package margins checks the margin claims of catalog section B (and
// LL-A5 of section A) on L-homogeneous models under the loss family
// ℓ(q) = e^{−f(q)}, g = f⁻¹ (LL App. A.1), with
//
//	γ̄ = q_min/ρ^L,   γ̃ = g(log 1/𝓛)/ρ^L,   ρ = ‖θ‖.
//
// Pointwise, once separated (𝓛 < ℓ(b_f)):
//
//	γ̄ − g′(ξ)·log N/ρ^L ≤ γ̃ ≤ γ̄                       LL-A5  (LL Lemma A.5)
//	d/dt log ρ = ⟨θ, −∇𝓛⟩/ρ² > 0,                       LL-5.1 (LL Lemma 5.1, B.1)
//	d/dt log γ̃ ≥ L·(d/dt log ρ)⁻¹·‖dθ̂/dt‖²
//
// Along a recorded trajectory after t₀:
//
//	γ̃ non-decreasing under gradient flow               LL-4.1 (LL Thm 4.1, A.7)
//	γ̂ = e^{φ(𝓛)}/ρ^L non-decreasing under GD, small η   LL-4.2 (LL Thm 4.2, App. E.2)
//	𝓛 = Θ(1/(T (log T)^{2−2/L})), ρ = Θ((log T)^{1/L})   LL-4.3 (LL Thm 4.3, A.10)
//	the loss-based rate reaches log 𝓛 < −2000           LL-K1  (LL App. K.1)
//	log-domain training keeps γ̃, ρ, θ̂ finite            LL-K2  (LL App. K.2)
//	γ̃ of the cross-entropy non-decreasing under flow    LL-F   (LL App. F)
//	γ̃ = ℓ⁻¹(𝓛)/Π_i ‖w_i‖^{k_i} non-decreasing (flow)     LL-G   (LL Lemma G.2)
//
// A flow's steps are judged against an independent error bar: each
// recorded step is re-integrated by RK4(3) in the clock λ = log F
// (flowcompanion.go), so an integrator that under-reports its error cannot
// make the check trust a wrong path (IntegratorErrorFactor). The flow's
// recorded times are witnessed too (the flow premise, flowtime.go): a sample
// of the record gaps is re-integrated with the checks' RK4 in the same clock,
// dt = −dλ/(F‖Dir‖²), and a gap whose recorded Δt is off by more than the
// declared tolerance permits counts against the run: an integrator that
// keeps the path but runs its clock at the wrong speed is not the gradient
// flow the claims are about.
//
// Files: margins.go (MarginCase: LL-A5, LL-5.1), eulerpremise.go (the
// per-block Euler premise of the flow inequalities), monotone.go
// (TrajectoryCase: LL-4.1, LL-4.2, LL-F, LL-G), flowcompanion.go, flowtime.go, rates.go
// (LL-4.3, LL-K1, LL-K2).
package margins

// Package homogeneity checks the exact identities of catalog section A that
// hold pointwise for an L-homogeneous model Φ(θ; x) (LL App. B), and the
// engine's exact gradients they rest on. A case is a PointCase: a model,
// one parameter vector and a batch of inputs.
//
//	Φ(cθ; x) = c^L Φ(θ; x)                 LL-B2a   (LL Thm B.2)
//	∇Φ(cθ; x) = c^{L−1} ∇Φ(θ; x)           LL-B2b   (LL Thm B.2)
//	⟨θ, ∇_θΦ(θ; x)⟩ = L·Φ(θ; x)            LL-B3    (Euler, LL Thm B.3)
//	⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ per block       LL-B3m   (LL §4.4, App. G)
//	⟨θ, −∇𝓛(θ)⟩ = L·ν(θ),                  LL-B4    (LL Thm B.4, Cor E.6)
//	    ν = Σ_n e^{−f(q_n)} f′(q_n) q_n
//	∇𝓛 = central finite differences        ENG-grad (the engine)
//
// L is derived from the architecture (models.Model.Degree), never fitted;
// a declared L is tested as declared, which is how a wrong L is caught.
// The bounds are relative errors set by rounding: 1e-12 for the scalings,
// EulerBound and RadialBound (1e-10) for the identities, GradFDBound for
// the finite differences (homogeneity.go, radial.go, gradient.go say where
// each comes from).
//
// Files: pointcase.go (the case), homogeneity.go (LL-B2a, LL-B2b, LL-B3,
// LL-B3m), radial.go (LL-B4), gradient.go (ENG-grad). LL-A5 and LL-C7,
// also of section A, are checked with the margins (package margins) and
// the KKT certificate (package kkt).
package homogeneity

// Package homogeneity holds the entries of catalog section A: the exact
// identities of homogeneous networks (LL §3, App. B) and the engine's
// gradients.
//
//   - LL-B2a: Φ(cθ; x) = c^L Φ(θ; x) (LL Thm B.2);
//   - LL-B2b: ∇Φ(cθ; x) = c^{L−1} ∇Φ(θ; x) (LL Thm B.2);
//   - LL-B3: Euler's identity ⟨θ, ∇Φ⟩ = L·Φ, L from the architecture;
//   - LL-B3m: per block ⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ (LL §4.4, App. G);
//   - ENG-grad: exact gradients equal central finite differences;
//   - LL-B4: the radial identity ⟨θ, −∇𝓛⟩ = L·ν (LL Thm B.4, Cor E.6).
//
// Cases are random architectures and points (cases.GenArch, GenScaled,
// GenLoss: linear, deep linear, MLP, 1-D and 2-D CNNs at random θ and
// scales c ∈ [10⁻³, 10³]); nothing is trained. The controls break one
// hypothesis each (a bias term, a non-homogeneous activation, a wrong
// declared degree, a wrong backward pass); the fault controls plant the
// engine faults of package faults that the identities must see.
package homogeneity

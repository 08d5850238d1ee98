// Package margins holds the entries of catalog section B and LL-A5: the
// margin dynamics of LL §4–5 and App. A, K.
//
//   - LL-A5: γ̄ − g′(ξ) log N/ρ^L ≤ γ̃ ≤ γ̄ once separated (Lemma A.5);
//   - LL-5.1: the pointwise flow inequality for d/dt log γ̃;
//   - LL-4.1, LL-F, LL-G: γ̃ is non-decreasing under gradient flow after
//     separation (binary, cross-entropy, multi-homogeneous);
//   - LL-4.2: γ̂ is non-decreasing under GD with a small η (C² nets);
//   - LL-4.3: 𝓛 = Θ(1/(T (log T)^{2−2/L})), ρ = Θ((log T)^{1/L});
//   - LL-K1, LL-K2: the loss-based learning rate reaches log 𝓛 < −2000,
//     and log-domain numerics keep γ̃, ρ and the direction finite.
//
// Cases are teacher–student classification problems (FlowCase, GenFlow:
// a teacher network from cases.GenArch, 4–16 separated samples, a student
// near the teacher; SeparatedCase; RateRunCase). The flows are integrated
// by train's Dormand–Prince flow at cases.FlowTol and re-integrated
// independently by the checks; run lengths grow with the budget (lengths).
// The controls use too-large steps, biases, non-separable data; the fault
// controls the engine faults of package faults (forloss.go rebuilds the
// entries with a user's loss).
package margins

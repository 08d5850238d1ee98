// Package kkt checks the convergence of gradient flow and descent to KKT
// points of the max-margin problem (catalog section C, and LL-C7 of
// section A),
//
//	(P)   min ½‖θ‖²  s.t.  q_n(θ) ≥ 1 for all n,
//
// on L-homogeneous models (LL §4, App. C). At θ̃ = θ/q_min^{1/L} the KKT
// residuals are
//
//	ε = min_{λ ≥ 0} ‖θ̃ − Σ_n λ_n ∇q_n(θ̃)‖   (NNLS),   δ = Σ_n λ_n (q_n(θ̃) − 1),
//
// and Lemma C.8's certificate, exact at a point, with h = −∇𝓛 and
// β = ⟨θ̂, h⟩/‖h‖, is
//
//	‖θ̃ − Σ_n λ_n h̃_n‖² = q_min^{−2/L} ρ² (2 − 2β) ≤ (2/γ̃^{2/L})(1 − β).
//
// The claims:
//
//	LL-4.4  limit directions are KKT points: ε, δ → 0 along training   (LL Thm 4.4, A.8, E.3)
//	LL-C8   the certificate above at random separated θ                (LL Lemma C.8)
//	LL-A9   (ε, δ)-KKT along training: 1 − β → 0                        (LL Thm A.9, E.4)
//	LL-C10  some t* ∈ (t1, t2) has                                       (LL Cor C.10)
//	        β(t*)^{−2} − 1 ≤ (1/L)·Δlog γ̃/Δlog ρ
//	LL-4.5  the limit direction solves the SVM of the kernel            (LL Cor 4.5)
//	        K(x, x′) = ⟨∇Φ_x(θ̄), ∇Φ_x′(θ̄)⟩
//	LL-C7   (P) satisfies MFCQ at every feasible θ (v = θ)              (LL Lemma C.7)
//	LL-I1   the Mexican hat: θ̂ keeps circling, γ̃ monotone              (LL Thm I.1)
//
// Every trajectory check first asks that the recorded steps be gradient
// steps, θ(t+1) = θ(t) − η∇𝓛(θ(t)) to rounding (descentstep.go,
// DescentSteps, StepIdentityUlps): the bounds on β rest on it. LL-lin, the
// linear case of LL-4.4, is checked against the computed limit of GD on
// linear models (package grwclass, SVMDirection).
//
// Files: kkt.go (the residuals), certificate.go (LL-C8, LL-C7),
// trajectory.go (windows of records), descentstep.go, kktconvergence.go
// (LL-4.4, LL-A9: the tail bounds of the windows that decide them),
// ntkalignment.go (LL-4.5), betabound.go (LL-C10), mexicanhat.go (LL-I1).
package kkt

package faults

import (
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// Registry returns every fault, freshly built (no package state), grouped
// by the component it breaks. Each Break says why the claim's check must
// see the bug; `go test ./properties -run TestFaultPower` measures it.
func Registry() []Fault {
	return append([]Fault{
		{
			Name: "preconditioner", Component: "optimizer",
			Effect: "after every step, one coordinate (the largest |∂𝓛/∂θ_k| at the first step) moves 3 more steps: a stray diagonal preconditioner with a 4 there",
			Breaks: []Break{
				{Claim: "LL-lin", Why: "the limit direction is the preconditioned geometry's max-margin direction, 0.4 rad from the SVM: θ − ŵ log T grows like log T instead of settling at the computed offset"},
				{Claim: "ZD-T7", Why: "as LL-lin, for every GRW scheme"},
				{Claim: "XY-P1", Why: "as LL-lin, for every importance weighting"},
				{Claim: "ZD-span", Why: "a step along e₀ leaves span{x_i}"},
				{Claim: "ZD-T1", Why: "the iterates leave span{x_i}, so the limit is another interpolator than θ₀'s projection"},
				{Claim: "ZD-T6lin", Why: "the stationary point of the preconditioned step is not the regularized problem's minimizer"},
				{Claim: "LL-4.4", Why: "each recorded step differs from −η∇𝓛 far beyond rounding (the identity LL Lemma C.9 and (22) rest on), and the deep limits are KKT points of another geometry"},
				{Claim: "LL-A9", Why: "as LL-4.4"},
				{Claim: "LL-C10", Why: "the windows' steps are not −η∇𝓛: Cor C.10's premise fails"},
				{Claim: "LL-4.5", Why: "the recorded GD steps are not −η∇𝓛 (the descent-step identity)"},
				{Claim: "ZD-T8", Why: "the GD half of the agreement: the run's direction leaves its computed limit, as in ZD-T7"},
				{Claim: "LL-4.2", Why: "Thm 4.2 is about gradient descent: the recorded steps are not −η∇𝓛 (the descent-step identity)"},
				{Claim: "ZD-T4/L5", Why: "one coordinate of the linearized run takes 4× steps: the run leaves GD on eq. (11) computed in function space (LinPath error 0.006 … 0.02 against 1e-7)"},
				{Claim: "ZD-F1", Why: "the digits' runs leave span{x_i}: the replayed first steps disagree"},
				{Claim: "ZD-B", Why: "a step along one class's coordinate e_{c,f} leaves span{a_{n,j}} (it moves Σ_c θ_c, which no constraint vector does), and the run leaves GD's flow on the cross-entropy: the multi-class limit moves"},
			},
			optimizer: func(o train.Optimizer) train.Optimizer { return &preconditioned{wrapped{o}, 3, -1} },
		},
		{
			Name: "loss-factor-dropped", Component: "optimizer",
			Effect: "the step is −η·Dir: the factor e^{log 𝓛} is dropped when leaving log domain (normalized GD)",
			Breaks: []Break{
				{Claim: "ZD-T2", Why: "steps of fixed length η never shrink, so the squared risk stalls at a level set by η instead of vanishing"},
				{Claim: "ZD-T1", Why: "the run never settles at the interpolator: it stays above the computed contraction bound"},
				{Claim: "ZD-GDRO", Why: "fixed-length steps keep the group losses oscillating, so Group DRO's weights never settle"},
				{Claim: "ZD-F1", Why: "on the digits too the runs stay above the computed contraction bound"},
			},
			optimizer: func(o train.Optimizer) train.Optimizer { return unscaled{wrapped{o}} },
		},
		{
			Name: "stale-gradient", Component: "optimizer",
			Effect: "every step uses the previous step's gradient direction (an off-by-one in the gradient buffer)",
			Breaks: []Break{
				{Claim: "ZD-T1", Why: "the first steps disagree with GD replayed from the recorded iterates and weights"},
			},
			optimizer: func(o train.Optimizer) train.Optimizer {
				return &stale{wrapped: wrapped{o}}
			},
		},
		{
			Name: "momentum-misindexed", Component: "optimizer",
			Effect: "heavy ball's velocity of coordinate 0 decays with β² instead of β",
			Breaks: []Break{
				{Claim: "ZD-span", Why: "coordinate 0 is filtered differently from the others, so the step leaves span{x_i} (heavy-ball cases)"},
			},
			optimizer: withMisindexedMomentum,
		},
		{
			Name: "weights-ignored", Component: "reweighting",
			Effect: "the objective applies uniform weights whatever the scheme wrote (every GRW runs as ERM)",
			Breaks: []Break{
				{Claim: "ZD-T6lin", Why: "the regularized limit (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀) depends on Q: the run lands on ERM's"},
				{Claim: "ZD-T1", Why: "the limit is weight-free but the first steps are not: GD replayed from the recorded weights disagrees"},
				{Claim: "ZD-PT", Why: "the polynomial tail's limit direction depends on the weights (ZD eq. 19): the importance-weighted path lands on ERM's limit, not on the computed one"},
				{Claim: "ZD-F1", Why: "IW and Group DRO on the digits: GD replayed from the recorded weights disagrees with the runs' first steps"},
				{Claim: "ZD-T7", Why: "the offset of θ − ŵ log T solves q_n η e^{−⟨z_n, w̃⟩} = α_n: the run settles at ERM's offset, not q's; with weights that move (χ², CVaR, schedules A1, A3) each segment's step has coefficients η Σ_t (−ℓ′) on the x_n, uniform-weighted, outside [∫q_n dT·min slope, ∫q_n dT·max slope] of the recorded weights' integral"},
				{Claim: "XY-P1", Why: "as ZD-T7, for importance weights"},
				{Claim: "ZD-T4/L5", Why: "every GRW run is ERM's (the GRW–ERM gap is 0 at every width): the linearized GRW run follows the uniform weights' path, not GD on eq. (11) with the A1 weights computed in function space (LinPath: error ≈ the weights' effect, 0.02 … 0.09, against 1e-7)"},
				{Claim: "ZD-T6", Why: "the regularized linearized run follows the uniform weights' path to their limit (Θ/n + μI)⁻¹(y − f⁰)/n, not the A1 weights' (QΘ + μI)⁻¹Q(y − f⁰) (LinPath)"},
				{Claim: "ZD-T9", Why: "as ZD-T6, on the logistic loss (path error 0.3 … 0.7)"},
				{Claim: "XY-P2", Why: "the finite part's limit θ̃(w) minimizes the w-weighted loss on D_nonsep: the run lands on the uniform weights' minimizer"},
				{Claim: "XY-C1", Why: "the minimizer finds the optimum of the uniformly weighted L_λ, whose ‖∇ log L_λ(·; w)‖∞, recomputed from the data with w, is the weights' effect (≫ 2e-10)"},
				{Claim: "XY-P3", Why: "as XY-C1: the ladder's points are not optima of L_λ(·; w)"},
				{Claim: "ZD-B", Why: "the offset of Θ − Θ̂ log T solves q_n e^{−⟨c, a_{n,j}⟩} = α_{n,j} and GD follows the cross-entropy's flow under q (IW by class, static): the run follows ERM's flow to ERM's offset"},
			},
			weights: ignoreWeights,
		},
		{
			Name: "weights-squared", Component: "reweighting",
			Effect: "the objective applies q_i² (rescaled) instead of q_i",
			Breaks: []Break{
				{Claim: "ZD-T6lin", Why: "the regularized limit depends on Q: the run lands on Q²'s"},
				{Claim: "ZD-T1", Why: "GD replayed from the recorded weights disagrees with the run's first steps"},
				{Claim: "ZD-T7", Why: "the run settles at the offset of q², not q's; with the schedules' moving weights each segment's coefficients leave [∫q_n dT·min slope, ∫q_n dT·max slope] of the recorded weights' integral"},
				{Claim: "XY-P1", Why: "as ZD-T7, for importance weights"},
				{Claim: "XY-C1", Why: "the ladder holds the optima of L_λ(·; w²), not stationary for L_λ(·; w)"},
				{Claim: "XY-P3", Why: "as XY-C1"},
			},
			weights: squareWeights,
		},
		{
			Name: "sample-dropped", Component: "reweighting",
			Effect: "the weight of sample 0 is applied as 0 (an off-by-one in a group index)",
			Breaks: []Break{
				{Claim: "ZD-T2", Why: "sample 0 is never fitted: the risk stalls at its loss"},
				{Claim: "ZD-T1", Why: "the run interpolates the other samples only"},
				{Claim: "ZD-T6lin", Why: "the regularized limit depends on q_0"},
				{Claim: "ZD-T10", Why: "the objective minimized is not f: f(x_T) stays above the rate bound"},
				{Claim: "ZD-GDRO", Why: "a group that is never fitted keeps its loss, and the Group DRO weights keep moving toward it"},
				{Claim: "ZD-F1", Why: "the image dropped is never fitted: ERM's run stays above the computed contraction bound"},
			},
			weights: dropFirst,
		},
		{
			Name: "backward-first-block", Component: "model",
			Effect: "the backward pass returns twice the gradient of the first parameter block",
			Breaks: []Break{
				{Claim: "ENG-grad", Why: "backprop disagrees with the finite differences of the same forward pass"},
				{Claim: "LL-B4", Why: "⟨θ, −∇𝓛⟩ is off by the first block's share, so it is not L·ν"},
				{Claim: "LL-C7", Why: "Gordan's test and the witness ⟨θ̃, ∇q_n⟩ = L·q_n > 0 use the backward pass: the witness identity fails"},
				{Claim: "LL-5.1", Why: "the flow inequality's premise, Euler's identity ⟨θ, ∇𝓛⟩ = L·Σ_n⟨∂ℓ_n/∂s, s_n⟩, fails for the engine's gradient"},
			},
			model: func(m models.Model) models.Model { return wrapModel(m, faultyModel{gradScale: 2}) },
		},
		{
			Name: "backward-mean", Component: "model",
			Effect: "the batched backward pass returns the gradient of the mean over the batch (÷N), single-sample gradients right",
			Breaks: []Break{
				{Claim: "LL-C8", Why: "Lemma C.8 ties the batched gradient ∇𝓛 to the per-sample gradients h_n: the identity is off by N"},
			},
			model: func(m models.Model) models.Model { return wrapModel(m, faultyModel{batchMean: true}) },
		},
		{
			Name: "degree-plus-one", Component: "model",
			Effect: "the model declares homogeneity order L + 1 (and k₁ + 1)",
			Breaks: []Break{
				{Claim: "LL-B3", Why: "the Euler identity ⟨θ, ∇Φ⟩ = L·Φ fails with the declared L"},
				{Claim: "LL-B3m", Why: "the first block's Euler identity fails with the declared k₁"},
				{Claim: "LL-C7", Why: "the MFCQ witness identity ⟨θ̃, ∇q_n⟩ = L·q_n uses the declared L"},
				{Claim: "LL-I1", Why: "γ̃ = g(log 1/𝓛)/ρ^L and the invariant curve's flow use the declared L"},
				{Claim: "LL-4.3", Why: "γ̃ = g(log 1/𝓛)/ρ^{L+1} falls along the flow, which LL Thm 4.1 forbids: the rates' premise is refuted (this replaces the refits with the exponents of L ± 1, which tested arithmetic)"},
			},
			model: func(m models.Model) models.Model { return wrapModel(m, faultyModel{degreeShift: 1}) },
		},
		{
			Name: "fprime-branch", Component: "loss",
			Effect: "the margin loss's f′ is doubled on its q > 0 branch while f is right",
			Breaks: []Break{
				{Claim: "ENG-grad", On: "log 𝓛", Why: "the gradient of log 𝓛 disagrees with its finite differences at separated samples"},
			},
			loss: withBranchFPrime,
		},
		{
			Name: "loss-underflow", Component: "loss",
			Effect: "the loss leaves log domain: ℓ = e^{log ℓ} in float64, floored at the smallest subnormal, so past q ≈ 709–745 every loss reads the same floor and f′ reads 0",
			Breaks: []Break{
				{Claim: "LL-K1", Why: "the loss-based schedule's log 𝓛 cannot fall below about −709 … −745: it stalls short of log 𝓛 ≤ −2000"},
				{Claim: "LL-K2", Why: "log 𝓛 saturates near the float64 floor while the independent per-sample recomputation goes on: the run disagrees with it"},
				{Claim: "LL-A5", On: "far out", Why: "at u ≥ 800 every log ℓ_n reads the floor: log(1/𝓛) ≈ 745 − log N, below f(q_min) − log N by the loss's definition, and off the LogSumExp of the margins' log-losses"},
			},
			loss: withUnderflow,
		},
		{
			Name: "flow-error-underreported", Component: "integrator",
			Effect: "the flow integrator's error estimate is 10⁶ times too small (train.Flow.ErrorScale = 1e-6): its steps are far too long",
			Breaks: []Break{
				{Claim: "LL-4.1", Why: "the re-integration of each step by an independent RK4 companion finds errors far above the integrator's report (median excess > IntegratorErrorFactor)"},
				{Claim: "LL-F", Why: "as LL-4.1, on cross-entropy flows"},
				{Claim: "LL-G", On: "flows", Why: "as LL-4.1, on the multi-homogeneous flows"},
			},
			errorScale: 1e-6,
		},
		{
			Name: "l2-gradient-uncentred", Component: "regularizer",
			Effect: "the L2 regularizer's gradient is μθ instead of μ(θ − θ₀) (its value is right)",
			Breaks: []Break{
				{Claim: "ZD-T6lin", Why: "gradient descent converges to the problem regularized toward 0, not θ₀"},
			},
			regularizer: withUncentredGradient,
		},
	}, ntkFaults()...)
}

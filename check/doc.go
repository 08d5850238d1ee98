// Package check checks a training run recorded outside the engine — by
// PyTorch, NumPy, JAX or another Go engine — against the theorems of the
// catalog, with the same checks verify runs on the engine's own runs
// (package theorems), and reports the same table.
//
// # The trajectory
//
// A run is a Trajectory, read from an NPZ file as numpy.savez writes it
// (ReadNPZ, WriteNPZ; docs/check.md has the format for the person who writes
// it):
//
//	step          (T,) int          recorded step indices, strictly increasing
//	lr            (T,) float64      step size from record t to the next, or
//	time          (T,) float64      the flow time of each record (a flow)
//	reduction     () str            "mean" (default: the loss PyTorch's losses
//	                                average) or "sum"
//	theta/<key>   (T, *shape) f8    each state_dict tensor, in state_dict order
//	X, y          (n, d), (n,)      the data (optional: --data instead);
//	                                images (n, C, H, W) for a Conv2d net
//	input_shape   (3,) int          (C, H, W) when X is (n, C·H·W) images
//	weights       (n,) or (T, n)    GRW weights (optional)
//	weight_sum    (T, n) float64    Σ_t lr_t·q^{(t)} from the previous record
//	                                (row 0 unused; optional, with weights)
//	scheme        () str            "erm", "iw" or "cvar[:α]": the weights'
//	                                GRW scheme, witnessed before ZD-T7
//	                                (schemewitness.go, droweights.go)
//	modules       (k,) str          str(m) of each module (optional)
//	outputs       (n,) or (n, K)    net(X) at the last record (optional)
//	local_error   (T,) float64      an integrator's local error (flows)
//	scalars/…     (S,)              log_loss, norm, lr (q_min) at every
//	                                step beside sparse snapshots (scalars.go)
//
// # The flat θ and the mapping
//
// The engine's networks (package models) keep θ as one vector: the layers in
// order, each a weight W (out × in, row-major) followed by its bias b (out),
// if any. PyTorch's nn.Linear keeps weight as (out_features, in_features),
// row-major, and bias as (out_features,), and an nn.Sequential's state_dict
// lists each Linear's weight then its bias, layer by layer. So the flat θ of
// a record is the concatenation of its theta/<key> tensors in file order,
// each flattened in C order — no transposition, no reordering:
//
//	θ = [vec(W₁), b₁, vec(W₂), b₂, …],   vec row-major,   Φ(x) = W_H σ(… σ(W₁x + b₁) …) + b_H.
//
// MapModel reads the architecture from the tensors (a chain of weights
// (out, in) whose in is the previous out, each optionally followed by its
// bias) and the activation from modules:
//
//	PyTorch module                          engine
//	Linear(in, out, bias=False)             a dense layer, in → out
//	Linear(in, out, bias=True)              the same with "+bias@i" (not homogeneous)
//	ReLU()                                  relu              (degree 1)
//	LeakyReLU(negative_slope=α)             lrelu<α>          (degree 1)
//	ReLUPow(k=K)  (examples/pytorch)        relu<K>, max(x,0)^K (degree K)
//	Square()      (examples/pytorch)        quad, x²          (degree 2)
//	Tanh()                                  tanh              (not homogeneous)
//	Linears with no activation              id: deep linear   (degree 1)
//	Identity(), Flatten()                   nothing
//	Conv2d, MaxPool2d, AvgPool2d            a cnn2d stage (below, "Conv2d")
//	Conv1d, MaxPool1d, AvgPool1d            a cnn stage (conv1d.go)
//
// and refuses, naming the module, normalization layers, dropout and
// anything else.
// The spec is mlp:ACT:W₁-W₂-…[/K][+bias@i…] (linear[/K] for one layer), so
// L = Σ of the layers' degrees (LL (A2)). Without modules the activation
// between Linears is taken to be ReLU, and Mapping.Note says so. When the
// file holds outputs, CompareOutputs runs the mapped model at the last θ and
// refuses a mapping that does not reproduce them to MappingTolerance (1e-12
// relative): the mapping is checked on the user's own network, not only on
// the nine networks of the tests.
//
// # Conv2d
//
// An nn.Sequential of stages Conv2d → activation → [MaxPool2d | AvgPool2d],
// then Flatten, then Linear layers maps to the engine's 2-D CNN (conv.go,
// models.CNN2DConfig, docs/cnn.md): cnn2d:HxWxC:ACT:CONV2,…[:W1-…[:K]], with
// "valid" for padding 0 (any square stride) and "same" for padding="same"
// or (k−1)/2 at stride 1 — PyTorch pads ⌊P/2⌋ before and the rest after, as
// the engine (TensorFlow's rule) does — and +bias@i for a layer with a bias.
// PyTorch is channels first, the engine channels last, so the layouts are
// permuted explicitly (Mapping.Apply, every record and every sample):
//
//	image       x[k·H·W + r·W + c]          → x[(r·W + c)·C + k]
//	conv W      [((o·Cin + c)·K + a)·K + b]  → [o·K·K·Cin + (a·K + b)·Cin + c]
//	1st Linear  column k·H·W + r·W + c      → column (r·W + c)·C + k
//
// (Flatten of (C, H, W) is the last row; biases and later Linears are
// unchanged). The input shape (C, H, W) comes from X saved (n, C, H, W) or
// from input_shape (Trajectory.InputShape). Strides with padding, other
// paddings, dilation, groups, rectangular kernels, non-zero padding modes,
// overlapping, padded or ceil-mode pools are refused naming the module.
// The tests check four PyTorch CNNs (one with an even kernel and "same")
// to 3.3e-16, and that each permutation left out is caught (conv_test.go).
//
// # Reading the run as the theory's dynamics
//
// The engine's loss is 𝓛(θ) = Σ_n ℓ(y_n Φ(θ; x_n)) (LL eq. (2)); a mean
// reduction is 𝓛/n, whose gradient is ∇𝓛/n, so a step lr on it is the step
// η = lr/n on 𝓛. Binary labels 0/1 (BCEWithLogitsLoss's) are read as −1/+1;
// the logistic loss ℓ(q) = log(1 + e^{−q}) is BCEWithLogitsLoss. T = Σ η
// adds lr[t] for every step from record t to the next.
//
// A file declares its step rule (Trajectory.Rule): with lr, gradient descent
// with the recorded step sizes; with time, a gradient flow. The records'
// train.Trajectory carries that declaration and check never rewrites it.
// Every record is re-measured by the engine (train.Measure: log 𝓛, ρ, q_min,
// γ̄, γ̃), and the premise of every gradient-descent theorem of LL, which
// verifies the declared GD, is checked first: at every pair of consecutive records (t, t+1) after separation,
//
//	θ(t+1) = θ(t) − η∇𝓛(θ(t))   to rounding (kkt.DescentSteps, StepIdentityUlps).
//
// A PyTorch run of full-batch torch.optim.SGD in float64 meets it to a few
// hundredths of its rounding bound (the steps are the same sums in another
// order); Adam, momentum, weight decay (the residual is −ηλθ, and the report
// gives λ), mini-batches or a different loss or reduction miss it by 10¹⁰ or
// more. Records should therefore come in pairs of consecutive steps; a run
// recorded sparsely has each gap replayed by the engine instead
// (gapreplay.go: the premise to a rounding bound times the gap's measured
// amplification).
//
// # Weighted runs and cost
//
// Fixed weights w are read on 𝓛/w_min (every weight ≥ 1, where LL's
// lemmas hold with N → Σw; run.go, rescaledWeights). Every computation is
// linear in records × samples × parameters except the KKT solves, O(P·N²)
// per window, and no P×P matrix is formed (numerics.NNLS applies Qᵀ from
// its reflectors); independent records and claims run on GOMAXPROCS
// workers with the same bits (parallel.go).
//
// # The claims
//
// Run checks each catalog entry the run can speak to (claims.go); the
// pointwise ones hold at any θ the run passed through, whatever the
// optimizer:
//
//	LL-B3   Euler identity ⟨θ, ∇Φ⟩ = LΦ          every record          any θ
//	LL-B3m  per-block ⟨w_i, ∇_{w_i}Φ⟩ = k_iΦ     every record          any θ
//	LL-B4   radial identity ⟨θ, −∇𝓛⟩ = Lν         every record          binary margin loss
//	LL-A5   γ̄ − g′ log N/ρ^L ≤ γ̃ ≤ γ̄           every separated record
//	LL-C7   MFCQ of (P)                          every separated record
//	LL-5.1  pointwise flow inequality            every separated record  margin loss
//	LL-4.1  γ̃ non-decreasing after t₀            the run               GD (premise) or a flow with local_error
//	LL-4.2  γ̂ non-decreasing (GD)               the run               GD, exponential loss, C² net
//	LL-4.3  rates of 𝓛 and ρ                     the run               every step recorded (S5)
//	LL-F    γ̃ non-decreasing, cross-entropy      the run               GD or flow
//	LL-4.4  KKT residuals ε, δ → 0 (Cor C.10)    the run               GD (premise), homogeneous, unweighted
//	LL-C8   Lemma C.8 certificate identity       every separated record  unweighted
//	LL-A9   1 − β → 0 (Cor C.10)                 the run               GD (premise), homogeneous, unweighted
//	LL-C10  Cor C.10: β^{−2} − 1 ≤ (1/L)Δlog γ̃/Δlog ρ  the run         GD (premise), homogeneous, unweighted
//	LL-lin  direction → the SVM, L = 1           the run               GD (premise), linear model
//	LL-4.5  θ̂ → the gradient-feature SVM         the run               GD (premise), C² net (S1)
//	ZD-T1   GRW ends at the interpolator θ*      the run               linear model, squared loss, d > n
//	ZD-span θ_t − θ₀ ∈ span{x_i}                 the run               linear model, squared loss, d > n
//	ZD-T7   GRW direction → the SVM              the run               linear model, margin loss, weights
//
// The ZD checks take the records as they are (the descent-step identity is
// checked after separation only, which a regression has no notion of; the
// catalog's control of ZD-T1 and ZD-span is an Adam run, which they report
// violated) and θ₀ is the first record: GD keeps θ_t − θ_s in span{x_i} for
// any s, so θ* is the same from any record. ZD-T7 checks GD's flow under the
// recorded weights itself.
//
// A homogeneity hypothesis that fails (biases, tanh) makes the claim
// assumption-failed with the theorems' reason; for the Euler identity the
// residual is still measured with the bias-free network's L (and the
// per-block one with its block degrees). A failed
// premise makes the gradient-descent claims assumption-failed with its
// reason and the claim's statistic measured anyway (the check run without
// the step identity), so a person sees how far outside the theory the run
// went. A claim that cannot decide on the records given (too few windows,
// sparse records) is inconclusive, never a pass.
//
// LL-4.1 on gradient descent: LL Thm 4.1 is the flow's statement; a GD run
// is checked as steps of a map (margins.MarginMonotone with exact steps,
// only rounding bounded), between records that need not be consecutive: a
// decrease between two records is a decrease at some step in between. LL
// Thm 4.2 (E.2) makes it a theorem of GD for C² nets and the exponential
// loss with a small step; for ReLU nets it is the flow's statement observed
// on its discretization.
package check

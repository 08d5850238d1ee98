// Package engines runs the suite's cases on an engine: ours (Local, which
// is train.Run) or another process that trains — PyTorch, NumPy, JAX, a
// framework under test — speaking a line protocol on its stdin and stdout
// (Process; docs/engines.md has the protocol and an adapter skeleton).
//
// A case (Case) is data: the model spec, X, y and θ₀ in our layout, the
// loss 𝓛 = Σ_n w_n ℓ(Φ(θ; x_n); y_n) summed over the samples, fixed sample
// weights, the step rule (GD θ ← θ − η∇𝓛, or LL App. K.1's loss-based
// schedule η(t) = α(t)/𝓛̄(t−1)), the number of steps and the records.
// The client sends it in the other engine's layout: the model as the
// nn.Sequential it maps to (Sequential, the inverse of check.MapModel:
// docs/check.md's table read from our side), θ₀ as the state_dict tensors
// (a Conv2d or Conv1d net's kernels and first Linear permuted, X channels
// first). The engine answers the recorded θ in check's NPZ format; the
// client reads it with check's reader, maps the modules back with
// check.MapModel (the round trip is the mapping's test: a network that does
// not map back to the case's model is a WrongShape), permutes θ into our
// layout, checks that record 0 is θ₀ bit for bit and that the recorded
// steps are the schedule's, and measures every record with our objective
// (train.Measure): the engine's θ, our measurements — what `check` does
// with a recorded run. So the theorems' checks judge the other engine's
// trajectory exactly as they judge ours.
//
// The link is part of what is tested, and never a verdict: a crash, a
// hang past the per-case timeout, a malformed answer, wrong shapes or a
// refusal is a CaseError naming the case in one line, counted in
// Counts.EngineErrors; the process is restarted for the next case after a
// crash or a timeout, and cancelling the context (Ctrl-C) stops it. A case
// beyond the engine's handshake (Capabilities: losses, rules, convolutions,
// log domain) is ErrUnsupported — not applicable, never a pass.
package engines

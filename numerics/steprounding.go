package numerics

// StepRoundingUlps is the factor, in units of rounding u = 2⁻⁵³, of the
// rounding bound of one explicit gradient step θ ← θ − e^{log η + log 𝓛}·Dir
// recomputed from its records: the product c·Dir_i and the sum θ_i − c·Dir_i
// rounded once each, the recomputation's difference once more, the
// exponent's rounding u(|log η| + 2|log 𝓛|) relative, and a factor 4 for
// fused multiply–adds and the assembly kernels of floats. The checks of two
// families bound a step with it: the descent-step identity of
// theorems/kkt (kkt.StepIdentityUlps, with the full derivation and its
// measured false-alarm rate) and GD's map replayed on linear models
// (theorems/limits, gdstep.go).
const StepRoundingUlps = 4

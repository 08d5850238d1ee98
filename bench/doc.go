// Package bench defines the full-batch gradient-descent workloads on which
// the engine is timed side by side with PyTorch and NumPy (issue "Engine
// speed"), and runs the engine on them.
//
// A workload is a bias-free ReLU network with scalar output
//
//	f(x) = W_H relu(W_{H−1} … relu(W_1 x))      (H = 1: f(x) = W_1 x)
//
// trained by plain gradient descent with a constant step η on the summed
// exponential loss
//
//	𝓛(θ) = Σ_i exp(−y_i f(x_i)),   θ ← θ − η ∇𝓛(θ),
//
// with data x_i ~ N(0, I_d) normalized to unit norm, labels y_i = sign f*(x_i)
// from a random teacher f* of the same architecture, and the initialization
// W_l ~ N(0, 1/fan_in). Every step computes the full loss, the full gradient
// and updates all weights.
//
// A Problem (data, labels, θ₀, η) is exported as JSON (WriteJSON), so the
// peers in this folder (torch_gd.py, numpy_gd.py, run by ./compare) start
// from the same bits as the engine. The Python files are not part of the Go
// build.
package bench

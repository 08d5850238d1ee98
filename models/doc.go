// Package models holds networks Φ(θ; x) on flat parameter vectors θ ∈ ℝ^P,
// with batched forward passes over a dataset and exact backpropagation.
//
// Every model knows its homogeneity order symbolically, from its architecture
// (never fitted from outputs). A model is L-homogeneous when
//
//	Φ(cθ; x) = c^L Φ(θ; x)  for all c > 0,
//
// and then Euler's identity ⟨θ, ∇_θΦ⟩ = L·Φ holds wherever Φ is
// differentiable (LL Thm B.2, B.3). The degree is derived by composing the
// degrees of the layers, counted from the first layer: a bias-free dense or
// convolutional layer adds 1 to the degree of its input, an activation of
// degree k multiplies it by k, max and average pooling keep it, so a bias-free
// L-layer ReLU MLP has degree L and an activation of degree k composes as
// L_{h+1} = 1 + k·L_h (L_1 = 1).
//
// Degrees are tracked per parameter block (one block per layer with
// parameters), which gives the multi-homogeneity of LL §4.4 and App. G:
// scaling block i by c scales Φ by c^{k_i}, so ⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ and
// L = Σ_i k_i. A bias term adds a summand of a different degree (unless its
// layer sees the raw input), and tanh or softplus are not homogeneous at all:
// such models report Degree().Homogeneous == false with the reason. They exist
// as negative controls.
//
// Layouts: a batch of n inputs is an n×In row-major slice; outputs are n×Out.
// Convolutional layers see each sample as positions × channels, channels last
// (a plain input of dimension d is d positions of one channel).
package models

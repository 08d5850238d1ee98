// Package experiment reproduces Lyu and Li's experiment on real images (LL
// App. J, Table 1 and Fig. 1): a CNN without bias trained by mini-batch SGD
// with the loss-based learning rate, its normalized margin read at the first
// epochs where the training loss falls below fixed thresholds.
//
// # The normalized margin of a multi-homogeneous network
//
// LL §4.4 (and App. J.1) treat a network whose output is homogeneous of
// degree k_i in each layer's parameters w_i separately,
//
//	Φ(…, c·w_i, …; x) = c^{k_i} Φ(…, w_i, …; x)  for c > 0,
//
// and define its normalized margin as the smallest margin over the product
// of the layers' norms,
//
//	γ̄(θ) = q_min(θ) / Π_i ‖w_i‖₂^{k_i},   q_min = min_n (s_{y_n} − max_{j≠y_n} s_j)(x_n),
//
// which is invariant under every rescaling of one layer and, by LL's
// Theorem 4.4 extended to multi-homogeneous models, non-decreasing along
// gradient flow once the data are fitted. For LL's CNN without bias every
// k_i = 1 and there are L = 4 layers (two convolutions, two dense layers).
// The first layer's bias is counted as part of that layer's weight: the
// input does not depend on θ, so Φ stays homogeneous of degree 1 in the
// pair (W_1, b_1). The spec
//
//	cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1
//
// is therefore LL's "CNN without bias", and the blocks and degrees are the
// model's own (models.Model.Blocks, Degree().Blocks). The product is taken
// in log domain, log γ̄ = log |q_min| − Σ_i k_i log ‖w_i‖, so that it
// neither overflows nor underflows while ‖θ‖ grows like log(1/𝓛).
//
// # Table 1
//
// LL report five models (App. J.2, Table 1): the first epochs whose training
// loss is below 10⁻¹⁰, 10⁻¹⁵, 10⁻²⁰ and 10⁻¹²⁰, and the final epoch (10 000
// for LL, at 𝓛 ≈ 10^{−881.51}), with the loss, the normalized margin and
// the train and test accuracy, the margin rising from 5.65e-5 to 1.18e-3.
// Rows picks these rows from a curve of evaluations; the runner evaluates
// at every epoch that first crosses a threshold, so a row's epoch is the
// first epoch below, not the first evaluation below. Fig. 1 compares the
// loss-based schedule with a constant rate (0.01): the loss-based run
// reaches a far smaller loss and a larger margin in the same epochs.
//
// Downsample averages the images over square blocks (28×28 → 14×14 or
// 7×7): a smaller first convolution, the same network otherwise, which is
// how a Table 1 to 1e-800 fits in minutes of CPU (docs/cnn.md, "A Table 1
// two cores finish").
//
// The training itself is train.SGD (batch 100, LL App. K.1's per-epoch
// loss-based schedule, log domain); Run adds the evaluations, the curve and
// the state a checkpoint needs to resume a run on the same bits.
package experiment

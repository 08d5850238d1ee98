// Package numerics holds the numerical building blocks the engine and the
// checks share, each independent of training:
//
// Log-domain arithmetic (logdomain.go). Losses far below 1e-308 are
// ordinary here, so sums of exponentials are carried as logarithms:
//
//	LogSumExp(x) = m + log1p(Σ_{i≠k} e^{x_i − m}),  m = x_k = max_i x_i
//	LogAddExp(a, b) = log(e^a + e^b),  Log1pExp(x) = log(1 + e^x)
//	LogExpm1(x) = log(e^x − 1),  LogLog1pExp(x) = log log(1 + e^x)
//
// each with documented special cases (as Go's math does), and Exp and Log
// that stay correct on subnormals.
//
// Max-margin problems (svm.go, nnls.go, polydirection.go). The hard-margin
// SVM without intercept,
//
//	minimize ½‖w‖²  s.t.  y_n⟨w, x_n⟩ ≥ 1,
//
// linear, kernel (K(x_i, x_j) given) and multi-class (ZD App. B, eq. 20),
// solved through its dual as a non-negative least-squares problem
// (Lawson–Hanson NNLS); the limit direction of a polynomially tailed loss
// under weights q (ZD eq. 19, App. C).
//
// Interpolation (interpolation.go). The min-norm interpolator nearest θ₀,
//
//	θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀)   (ZD Thm 1),
//
// the L2-regularized weighted limit θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀)
// (ZD Thm 6), and projections on span{x_i}, with typed errors for rank
// deficiency (RankDeficientError).
//
// Separable and non-separable parts (nonsep.go, logistic.go). The split of
// a dataset into the part a linear classifier separates and the rest, with
// certificates (XY Prop. 2), the minimizer of the weighted loss on the
// non-separable part, and Newton's method for the regularized logistic
// loss (ZD Thm 9's linear reference).
//
// Fits and geometry (fit.go, geometry.go). Least-squares slopes and
// log-log lines with the slope's standard error (the rate fits of LL Thm
// 4.3 and of section F's width sweeps),
//
//	log y = a + b·log x,  SE(b)² = Σ r_i²/((n − 2)·Σ(log x_i − x̄)²),
//
// the angle between directions in the form that keeps small angles exact,
// ∠(u, v) = 2·asin(‖û − v̂‖/2), and the Kullback–Leibler divergence of
// normalized weights, KL(p‖q) = Σ p̄_i log(p̄_i/q̄_i) (XY Prop. 1).
//
// Box-restricted Gaussians (boxgauss.go): masses, density ratios and χ²
// divergences of Gaussians restricted to boxes, for XY Thm 1's weights.
package numerics

// Package regression holds the entries of catalog section D: generalized
// reweighting (GRW) for overparameterized linear regression (ZD §4.1,
// §4.3, App. D.1–D.2, D.4, Fig. 1).
//
//   - ZD-T1: every GRW reaches the ERM interpolator;
//   - ZD-span: θ(t) − θ₀ stays in span{x_i};
//   - ZD-T2: Assumption 1 and a small η ⇒ the training risk → 0;
//   - ZD-T6lin: L2-regularized GRW: the gap to ERM is O(√ε);
//   - ZD-P17: the eigenvalues of HQ lie in [min q λ_min, max q λ_max];
//   - ZD-T10: f(x_T) ≤ f* + ‖x₀ − x*‖²/(ηT) on convex problems;
//   - ZD-F1: ERM, IW and Group DRO on six digits reach one point (Fig. 1);
//   - ZD-GDRO: Group DRO's weights converge (Assumption 1).
//
// Cases are RegressionCase (GenRegression: N unit rows in D > N
// dimensions, a start θ₀, K groups, a scheme from cases' GRW schemes and
// GD, momentum or Adam; weighttap.go records the weights a run used),
// ConvexCase and SpectrumCase, RegularizedCase and DigitPair (the digits
// of fixtures). The controls use schemes that break Assumption 1
// (vanishing weights), Adam, a ridge term; the fault controls plant wrong
// weights and optimizers. cmd/fig1 prints Fig1's table.
package regression

// Package kkt holds the entries of catalog section C: convergence to KKT
// points of the max-margin problem (LL §4.2, App. C), the SVM for linear
// models and in the gradient-feature space, and the Mexican hat.
//
//   - LL-4.4: limit directions are KKT points of (P): the residuals (ε, δ)
//     of θ̃ = θ/q_min^{1/L} go to 0;
//   - LL-A9: (ε, δ)-KKT along training: 1 − β → 0;
//   - LL-C10: the bound on β between two times from γ̃ and ρ growth;
//   - LL-C8: the KKT certificate ‖θ̃ − Σλh̃‖² = q^{−2/L}ρ²(2 − 2β);
//   - LL-C7: (P) satisfies MFCQ at every feasible θ (catalog section A);
//   - LL-lin: a linear model's direction tends to the hard-margin SVM;
//   - LL-4.5: the limit direction is the SVM of the gradient-feature
//     kernel;
//   - LL-I1: the Mexican hat: the direction keeps circling, γ̃ monotone.
//
// Cases are KKTCase (GenKKT: a linear, deep linear, two-layer ReLU or x²
// network on teacher data from cases.DataCase, exponential or logistic
// loss) and the points PointKKTCase and HatPoint. Every trajectory a claim
// judges comes from one place (entries.go): stepRun (GD along StepPlan:
// LL-4.4, LL-A9, LL-4.5), planRun (GD along Plan: LL-lin, LL-4.5's
// control, the figure) and flowRun (the flows), each built once per case
// and budget in the runner's cache "kktRuns", and dense (LL-C10's densely
// recorded runs, which no other claim reads and which are not kept).
// LL-4.4 and LL-A9 differ only in their check and are one literal
// (trajectoryEntry). The controls move along a fixed direction, add
// biases, change the tail; the fault controls plant a preconditioner and
// wrong backward passes.
package kkt

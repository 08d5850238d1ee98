// Package ntk holds the entries of catalog section F: wide networks in the
// NTK regime (ZD §4.2, §4.3, §5.2, App. D.3, D.4, D.6, E).
//
//   - ZD-L3: the NTK at initialization concentrates as the width → ∞;
//   - ZD-T4/L5: |f_GRW − f_ERM| = O(d̃^{−1/4}) (a log–log slope over the
//     widths);
//   - ZD-T6: the regularized GRW gap is O(d̃^{−1/4} + √ε);
//   - ZD-T9: regularized logistic GRW agrees in sign with f_MM.
//
// Every case is a width sweep (Entry.Sweep: KernelSweepCase,
// GapSweepCase, RegSweepCase, SignSweepCase): many training runs at
// growing widths and seeds, the quick budget with small widths and few
// seeds, the long budget the full sweeps of docs/ntk.md. A sweep's jobs
// can be kept in the runner's sweep store; its results are cached
// (gapRuns, kernelRuns, regRuns, signRuns) for the entries' figures.
// cmd/ntkreport prints docs/ntk.md's tables from the same sweeps.
package ntk

// Package classification holds the entries of catalog section E:
// generalized reweighting and importance weighting for classification
// (ZD §5, §6.1, App. B–D.5; XY §2–§5, App. A).
//
//   - ZD-T7: every GRW direction → the hard-margin SVM (logistic);
//   - ZD-T8: the regularization path and GD's direction agree;
//   - ZD-PT: with a polynomial tail the limit direction depends on the
//     weights;
//   - ZD-B: the multi-class direction → the multi-class max margin;
//   - XY-P1: every importance weighting w → the SVM direction at rate
//     1/log t; XY-P2: on non-separable data the finite part depends on w,
//     the rest does not;
//   - XY-C1, XY-P3: under weak regularization ‖θ(t)(w)‖ → ∞ and the
//     optima's γ̄ → γ* as λ → 0;
//   - XY-T1: the importance-weighted margin generalization bound;
//   - XY-S5: learned weights concentrate (a conjecture: counted, not
//     asserted).
//
// Cases are linear classification problems: ClassCase (GenClass:
// independent unit inputs, a loss, a GRW scheme from package cases),
// MultiCase, NonSepCase, WeakRegCase and ShiftCase. The runs are GD on a
// linear model recorded at steps growing by 1.5× (GRWRun), cached under
// "classRuns" so that ZD-T7 and ZD-T8 read the same runs; the checks
// decide by computed limits (the residual θ(t) − ŵ log T against its limit
// under the weights). The controls use polynomial tails and wrong
// weights; the fault controls the engine faults of package faults.
// TableCase and AngleTable make the table of docs/grwclass.md
// (`implicitbias grwclass`).
package classification

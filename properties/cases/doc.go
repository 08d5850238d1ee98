// Package cases builds the generated cases that several claim families
// share: random architectures of the homogeneous families (ArchCase,
// GenArch: linear, deep linear, MLP, 1-D and 2-D CNNs, with the
// non-homogeneous and bias variants that the controls use), teacher data
// with a margin (DataCase), objectives over every loss (LossCase), the
// generalized-reweighting schemes of ZD §3 (schemes.go: ERM, importance
// weights, Group DRO, χ²- and CVaR-DRO, the random schedules of ZD's
// Assumptions 1 and 3), the pairwise polynomial loss of ZD-B's control
// (multipoly.go; the binary controls' tail is losses.HalfPolyTail), and the
// recorders that train a case
// and keep the windows the trajectory checks read (trajectory.go).
//
// A case is a small struct of integers, floats and a seed; Build turns it
// into a model, data and parameters. The cases carry the name of a planted
// engine fault (package faults) where a family's fault controls need it.
// The families (properties/homogeneity … properties/ntk) add their own
// case types next to their entries.
package cases

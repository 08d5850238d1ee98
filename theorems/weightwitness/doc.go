// Package weightwitness recomputes a GRW run's weights q^{(t)} at its
// records from the definition of the scheme the case asked for (issue 32),
// so that the claims that read recorded weights — ZD-T7, ZD-T8, ZD-B,
// XY-P1, XY-S5 (section E) and ZD-GDRO (section D) — never take them from
// the component they check. A mismatch beyond the exp∘log round trip,
//
//	|q_rec − q_def| ≤ 4ε(1 + |log q|)·q,
//
// means the run is not the GRW run the case asked for (violated). Stateless
// schemes (ERM, importance weighting, static, χ², CVaR, the schedules) are
// checked at every record; Group DRO and the learned weighting are replayed
// from θ₀ through the records of consecutive steps.
package weightwitness

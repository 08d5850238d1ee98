package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// stepCoefficients decomposes GD's step between two records on linearly
// independent z_n: θ_b − θ_a = Σ_n C_n z_n, where GD makes
// C_n = η Σ_t q_n^{(t)}(−ℓ′(u_n(t))) over the steps between them. C_n is a
// q_n-weighted sum of the slopes along the segment, so it lies in
// [m_n·min slope, m_n·max slope] with m_n = Σ_t η q_n^{(t)} the weights'
// integral over the segment (ΔT·q_n for fixed weights q, ΔT = η·steps)
// and the extremes over the margins u_n(t) the steps saw. Those margins
// need not lie between their values at the two records: with weights
// that move (χ²-DRO sets some q_n to 0 for a while) a sample's margin can
// dip and rise between records (check/roundtrip_test.go's χ² run: 296
// (segment, sample) pairs after log T = 7, Every 20). GD bounds them all
// the same (slopeRange): every step adds η q_m^{(t)}(−ℓ′) ≥ 0 to each
// partial coefficient, so C_m(t) ∈ [0, C_m] at every step t between the
// records, and u_n(t) − u_n(a) = Σ_m C_m(t)⟨z_m, z_n⟩ lies in
// [Σ_m C_m·min(0, G_mn), Σ_m C_m·max(0, G_mn)]; the slope −ℓ′ of a convex
// loss is nonincreasing, so its range over that interval is its values at
// the interval's ends. Without the integral only C_n ≥ 0 and
// Σ_n C_n/max slope ≤ ΔT·Q ≤ Σ_n C_n/min slope (Σ_n q_n = Q at every
// step) hold, whatever the weights: GD's cone.
type stepCoefficients struct {
	z          *mat.Dense
	g          *mat.SymDense // the Gram matrix G_mn = ⟨z_m, z_n⟩
	gram       mat.Cholesky
	sigmaMin   float64 // smallest singular value of the rows z_n
	cond       float64 // condition number of the Gram matrix
	rhs, coefs *mat.VecDense
}

// coefCondLimit is the Gram matrix's largest condition number for which
// the coefficients are solved (beyond it the z_n count as dependent: the
// solve would lose more than 10 of 16 digits).
const coefCondLimit = 1e10

// slopeRelTol is the relative accuracy granted to the slopes −ℓ′(u_n) the
// check computes against those the engine used: both come from the same
// margins in float64 (the engine in log domain), ~|u|·ε ≤ 10⁻¹⁴ for
// |u| ≤ 50. It matters for a single step between records, whose C_n is
// exactly ΔT·q_n·slope at the first record, an end of its interval.
const slopeRelTol = 1e-12

func newStepCoefficients(z *mat.Dense, independent bool) *stepCoefficients {
	if !independent {
		return nil
	}
	n, _ := z.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, z)
	var es mat.EigenSym
	if !es.Factorize(g, false) {
		return nil
	}
	ev := es.Values(nil)
	lo, hi := floats.Min(ev), floats.Max(ev)
	if !(lo > hi/coefCondLimit) {
		return nil
	}
	c := &stepCoefficients{z: z, g: g, sigmaMin: math.Sqrt(lo), cond: hi / lo, rhs: mat.NewVecDense(n, nil), coefs: mat.NewVecDense(n, nil)}
	if !c.gram.Factorize(g) {
		return nil
	}
	return c
}

// solve returns the coefficients of b − a and their slack: the run's
// rounding (round, in θ) carried through the solve (1/σ_min) plus the
// solve's own (64·ε·cond·max|C|).
func (c *stepCoefficients) solve(a, b []float64, round float64) ([]float64, float64, bool) {
	n, _ := c.z.Dims()
	dth := append([]float64(nil), b...)
	floats.Sub(dth, a)
	for i := 0; i < n; i++ {
		c.rhs.SetVec(i, floats.Dot(c.z.RawRowView(i), dth))
	}
	if err := c.gram.SolveVecTo(c.coefs, c.rhs); err != nil {
		return nil, 0, false
	}
	cs := c.coefs.RawVector().Data
	return cs, round/c.sigmaMin + 64*0x1p-52*c.cond*math.Max(floats.Max(cs), -floats.Min(cs)), true
}

// slopeRange returns, for every n, the least and the largest slope
// −ℓ′(u_n(t)) GD can have met between the records a and b, whose
// coefficients are cs ± slack: the margins' range from the partial
// coefficients C_m(t) ∈ [0, C_m⁺ + slack] (see stepCoefficients), widened
// by round·‖z_n‖ for the rounding of θ(t) itself, and the slope, taken as
// nonincreasing (a convex loss), at its ends, widened by slopeRelTol. A
// correct engine's slopes always lie inside; the interval contains the
// slopes at both records, so it is never narrower than theirs.
func (c *stepCoefficients) slopeRange(a, cs []float64, slack, round float64, slope func(float64) float64) (lo, hi []float64) {
	n := len(cs)
	lo, hi = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		zi := c.z.RawRowView(i)
		u := floats.Dot(zi, a)
		widen := round * floats.Norm(zi, 2)
		down, up := -widen, widen
		for m, v := range cs {
			reach := (math.Max(v, 0) + slack) * c.g.At(m, i)
			down += math.Min(reach, 0)
			up += math.Max(reach, 0)
		}
		lo[i] = slope(u+up) * (1 - slopeRelTol)
		hi[i] = slope(u+down) * (1 + slopeRelTol)
	}
	return lo, hi
}

// weighted returns max_n |C_n − mid_n|/(half-width_n + slack) for the
// coefficients cs ± slack of the segment from θ_a = a (solve) and the
// weights' masses m_n = ∫ q_n dT over the segment (ΔT·q_n for fixed
// weights q; the recorded integral, train.WeightSum, for weights that move):
// ≤ 1 when every coefficient lies in its interval [m_n·min slope,
// m_n·max slope], the slopes' extremes over the margins GD can have met
// between the records (slopeRange).
func (c *stepCoefficients) weighted(a, cs []float64, slack float64, mass []float64, slope func(float64) float64, round float64) float64 {
	sMin, sMax := c.slopeRange(a, cs, slack, round, slope)
	worst := math.Inf(-1)
	for i, v := range cs {
		lo, hi := mass[i]*sMin[i], mass[i]*sMax[i]
		worst = math.Max(worst, math.Abs(v-(lo+hi)/2)/((hi-lo)/2+slack))
	}
	return worst
}

// cone returns, for the coefficients cs ± slack of the segment from θ_a =
// a (solve), the largest of −C_n/slack (C_n ≥ 0) and of the two sides of
// Σ_n C_n/max slope ≤ ΔT·Q ≤ Σ_n C_n/min slope as ratios, the slopes'
// extremes over the margins GD can have met between the records
// (slopeRange): ≤ 1 when the step lies in GD's cone for some weights with
// Σ_n q_n = Q.
func (c *stepCoefficients) cone(a, cs []float64, slack, dT, total float64, slope func(float64) float64, round float64) float64 {
	sMins, sMaxs := c.slopeRange(a, cs, slack, round, slope)
	worst := math.Inf(-1)
	var lo, hi, slackSum float64
	for i, v := range cs {
		worst = math.Max(worst, -v/slack)
		lo += v / sMaxs[i]
		hi += v / sMins[i]
		slackSum += slack / sMins[i]
	}
	mass := dT * total
	worst = math.Max(worst, (lo-slackSum)/mass)
	return math.Max(worst, mass/(hi+slackSum))
}

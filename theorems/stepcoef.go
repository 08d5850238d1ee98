package theorems

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// stepCoefficients decomposes GD's step between two records on linearly
// independent z_n: θ_b − θ_a = Σ_n C_n z_n, where GD makes
// C_n = η Σ_t q_n^{(t)}(−ℓ′(u_n(t))) over the steps between them. With the
// slope −ℓ′(u_n) monotone between the records (the margins grow), C_n lies
// in [ΔT·q_n·min slope, ΔT·q_n·max slope] for fixed weights q (ΔT =
// η·steps, the slopes at the two records), and in [m_n·min slope,
// m_n·max slope] for weights that move, m_n = Σ_t η q_n^{(t)} their
// integral over the segment (C_n is a q_n-weighted sum of slopes between
// the two). Without that integral only C_n ≥ 0 and
// Σ_n C_n/max slope ≤ ΔT·Q ≤ Σ_n C_n/min slope (Σ_n q_n = Q at every
// step) hold, whatever the weights: GD's cone.
type stepCoefficients struct {
	z          *mat.Dense
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
	c := &stepCoefficients{z: z, sigmaMin: math.Sqrt(lo), cond: hi / lo, rhs: mat.NewVecDense(n, nil), coefs: mat.NewVecDense(n, nil)}
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

// weighted returns max_n |C_n − mid_n|/(half-width_n + slack) for the
// weights' masses m_n = ∫ q_n dT over the segment (ΔT·q_n for fixed
// weights q; the recorded integral, train.WeightSum, for weights that move):
// ≤ 1 when every coefficient lies in its interval [m_n·min slope,
// m_n·max slope].
func (c *stepCoefficients) weighted(a, b []float64, mass, slopeA, slopeB []float64, round float64) float64 {
	cs, slack, ok := c.solve(a, b, round)
	if !ok {
		return math.NaN()
	}
	worst := math.Inf(-1)
	for i, v := range cs {
		lo := mass[i] * math.Min(slopeA[i], slopeB[i]) * (1 - slopeRelTol)
		hi := mass[i] * math.Max(slopeA[i], slopeB[i]) * (1 + slopeRelTol)
		worst = math.Max(worst, math.Abs(v-(lo+hi)/2)/((hi-lo)/2+slack))
	}
	return worst
}

// cone returns the largest of −C_n/slack (C_n ≥ 0) and of the two sides of
// Σ_n C_n/max slope ≤ ΔT·Q ≤ Σ_n C_n/min slope as ratios: ≤ 1 when the
// step lies in GD's cone for some weights with Σ_n q_n = Q.
func (c *stepCoefficients) cone(a, b []float64, dT, total float64, slopeA, slopeB []float64, round float64) float64 {
	cs, slack, ok := c.solve(a, b, round)
	if !ok {
		return math.NaN()
	}
	worst := math.Inf(-1)
	var lo, hi, slackSum float64
	for i, v := range cs {
		worst = math.Max(worst, -v/slack)
		sMin := math.Min(slopeA[i], slopeB[i]) * (1 - slopeRelTol)
		sMax := math.Max(slopeA[i], slopeB[i]) * (1 + slopeRelTol)
		lo += v / sMax
		hi += v / sMin
		slackSum += slack / sMin
	}
	mass := dT * total
	worst = math.Max(worst, (lo-slackSum)/mass)
	return math.Max(worst, mass/(hi+slackSum))
}

package limits

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The pull off the support vectors' span over one segment between records
// (LinearLimit's part 2). GD's step from record a to record b is
// Σ_n C_n z_n with C_n = η Σ_t q_n^{(t)} s(u_n(t)) ≥ 0 (s = −ℓ′, the
// step's weights q^{(t)}), so its part on span{z_n} ∩ V_S^⊥ is
// Σ_{n∉S} C_n P_off z_n (P_off z_n = 0 on S) and
//
//	‖P_off(θ_b − θ_a)‖ ≤ Σ_{n∉S} C_n‖P_off z_n‖ ≤ Σ_{n∉S} m_n·max_t s(u_n(t))·‖P_off z_n‖,
//
// m_n = Σ_t η q_n^{(t)} = ∫q_n dT the weights' mass over the segment. The
// maximum is over the margins the steps met, which need not lie between
// the records' (a sample's margin dips while the weights sit elsewhere:
// χ²-DRO, check/roundtrip_test.go's run); s is nonincreasing (a convex
// loss), so it is s at the least margin GD can reach in the segment: for
// independent z_n from the solved coefficients (stepCoefficients.
// slopeRange), else from marginFloor. This is GD's own sum, not a Riemann
// sum of a flow: no step's worth is added per segment, and no
// interpolation of the pulls between records is assumed.

// offSupportPull returns Σ_{n∉S} mass_n·slopeMax_n·zOff_n: the bound of one
// segment's drift off V_S on span{z_n} (see above).
func offSupportPull(g *linGeometry, mass, slopeMax []float64) float64 {
	var sum float64
	for i, on := range g.onMargin {
		if !on {
			sum += mass[i] * slopeMax[i] * g.zOff[i]
		}
	}
	return sum
}

// marginFloorIter is the most fixed-point iterations marginFloor makes;
// marginFloorReach the farthest (in margin) below its value at the earlier
// record it lets a floor go before it gives up: the slopes there are
// e^{50} times those at the record, no bound worth the name.
const (
	marginFloorIter  = 200
	marginFloorReach = 50
)

// marginFloor returns, for rows z_n with Gram matrix gram (dependent or
// not), a floor L_n under every margin u_n(t) of GD between two records,
// given the margins u0 at the earlier record, the weights' masses m over
// the segment and the rounding of θ (round, in θ): the slopes at the
// floors then bound every slope GD met. ok is false when no floor within
// marginFloorReach exists.
//
// Derivation. Any L with L_n ≤ u0_n − round‖z_n‖ − Σ_{m≠n} m_m s(L_m)
// max(0, −G_mn) is a floor, by induction over the steps: if every margin
// stayed ≥ L before step t, each partial coefficient C_m(t) =
// Σ_{τ<t} η q_m^{(τ)} s(u_m(τ)) ≤ m_m s(L_m) (s nonincreasing), and
// u_n(t) − u0_n = Σ_m C_m(t)G_mn ≥ −Σ_{m≠n} m_m s(L_m) max(0, −G_mn)
// (G_nn > 0), less the rounding of θ(t). The map F(L) = u0 − round‖z‖ −
// Σ m s(L) max(0, −G) is nondecreasing in L and F(L) ≤ L⁰ = u0 − round‖z‖
// for every L, so L^{k+1} = F(L^k) from L⁰ decreases to F's greatest fixed
// point; the floor returned is the last iterate less a margin of 10⁻⁹
// for which F(L) ≥ L is checked.
//
// The floor is rigorous but crude: it charges every coefficient its mass
// at the slope of the floor, while GD's slopes fall as the margins grow.
// Between the records of the quick runs (1.5× apart in T) the masses at
// the records' slopes are the coefficients themselves, O(1)–O(10), and the
// iteration runs off (LL-lin's dependent cases at seed 1: no floor on any
// segment). LinearLimit's part 2 is then shown where the flow comparison
// covers it and undecided where it would decide, which is only where the
// flow comparison could not run (itself undecided): a correct run's
// verdict does not change.
func marginFloor(gram mat.Symmetric, u0, mass []float64, round float64, slope func(float64) float64) ([]float64, bool) {
	n := len(u0)
	top := make([]float64, n)
	for i := range top {
		top[i] = u0[i] - round*math.Sqrt(gram.At(i, i))
	}
	next := func(l []float64) []float64 {
		out := append([]float64(nil), top...)
		for m := 0; m < n; m++ {
			pull := mass[m] * slope(l[m])
			for i := 0; i < n; i++ {
				if g := gram.At(m, i); i != m && g < 0 {
					out[i] += pull * g
				}
			}
		}
		return out
	}
	l := append([]float64(nil), top...)
	for range marginFloorIter {
		nl := next(l)
		for i := range nl {
			if !(nl[i] >= top[i]-marginFloorReach) {
				return nil, false
			}
		}
		settled := floats.EqualApprox(nl, l, 1e-12)
		l = nl
		if settled {
			break
		}
	}
	for i := range l {
		l[i] -= 1e-9 * math.Max(1, math.Abs(l[i]))
	}
	f := next(l)
	for i := range l {
		if !(f[i] >= l[i]) {
			return nil, false
		}
	}
	return l, true
}

// pullIntegral bounds ∫ Σ_n p_n(s) ds from record j to record j + 1 of
// positive pulls p_n known at the records (s the records' log T): per
// sample Δs·max(p_n(s_j), p_n(s_{j+1}))·e^{κΔs²/8}, κ the larger
// |(log p_n)″| at the two records (three-point differences with their
// neighbours). A function whose log has curvature ≤ κ on the interval
// exceeds its larger endpoint by at most that factor inside it (the
// chord's deviation is ≤ κΔs²/8); the pulls decay smoothly, like
// T^{−(m_n − 1)}, so the endpoints nearly always bound them already.
func pullIntegral(s []float64, p [][]float64, j int) float64 {
	ds := s[j+1] - s[j]
	curv := func(i, k int) float64 {
		if k <= 0 || k+1 >= len(s) || !(p[k-1][i] > 0) || !(p[k][i] > 0) || !(p[k+1][i] > 0) {
			return 0
		}
		h1, h2 := s[k]-s[k-1], s[k+1]-s[k]
		y0, y1, y2 := math.Log(p[k-1][i]), math.Log(p[k][i]), math.Log(p[k+1][i])
		return math.Abs(2 * ((y2-y1)/h2 - (y1-y0)/h1) / (h1 + h2))
	}
	var sum float64
	for i := range p[j] {
		hi := math.Max(p[j][i], p[j+1][i])
		if !(hi > 0) {
			continue
		}
		kappa := math.Max(curv(i, j), curv(i, j+1))
		sum += ds * hi * math.Exp(kappa*ds*ds/8)
	}
	return sum
}

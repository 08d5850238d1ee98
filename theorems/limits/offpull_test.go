package limits

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestOffSupportPullMarginDip: a segment between two records on which the
// pull off the support vectors' span exceeds what the records' margins
// show (LinearLimit's part 2 before limitparts.go's pull, which took the pull at the
// records, interpolated, plus one step's worth). z_1, z_2 lie on the
// margin of w = (1, 1.6, 3), z_3 off it (⟨w, z_3⟩ = 2.04) with
// ⟨z_2, z_3⟩ = −0.6. The weights move as χ²-DRO's do: 300 steps on z_2
// alone, which pulls u_3 from 5 down to 2.65, then 300 on z_3 alone, which
// pulls it back up at the slopes of the dip. The records at T_a = 2ΔT and
// T_b = 3ΔT (the recorders' 1.5×) see u_3 = 5 and 5.39: the old budget
// 1.67 against the exact drift 2.02. The new one bounds the slope over the
// margins GD can reach (slopeRange): it holds the exact run. Where the
// recorded weights' integral gives z_3 no mass (CVaR and χ² weigh only
// the smallest margins), the bound is rounding alone, and an engine that
// stepped with uniform weights while the records kept q (the fault
// weights-ignored) breaks it.
func TestOffSupportPullMarginDip(t *testing.T) {
	z := mat.NewDense(3, 3, []float64{
		1, 0, 0,
		-0.6, 1, 0,
		0, -0.6, 1,
	})
	g := newLinGeometry(z, []float64{1, 1.6, 3})
	require.Equal(t, []bool{true, true, false}, g.onMargin)
	tail := tailOf(lossNamed("exp"))
	const eta, steps = 0.5, 300
	var ua mat.VecDense
	require.NoError(t, ua.SolveVec(z, mat.NewVecDense(3, []float64{2, 0, 5})))
	a := ua.RawVector().Data
	segment := func(fault func(th, v []float64)) []float64 {
		mid := linearGDSteps(z, []float64{0, 1, 0}, a, eta, steps, fault)
		return linearGDSteps(z, []float64{0, 0, 1}, mid, eta, steps, fault)
	}
	u3 := func(th []float64) float64 { return floats.Dot(z.RawRowView(2), th) }
	mass := []float64{0, eta * steps, eta * steps} // ∫q dT
	coef := newStepCoefficients(z, true)
	require.NotNil(t, coef)
	drift := func(b []float64) float64 {
		dth := append([]float64(nil), b...)
		floats.Sub(dth, a)
		return floats.Norm(g.offSupport(dth), 2)
	}
	bound := func(b []float64) float64 {
		round := roundingBudget(2*steps, a, b, 3)
		cs, slack, ok := coef.solve(a, b, round)
		require.True(t, ok)
		_, hi := coef.slopeRange(a, cs, slack, round, tail.pull)
		return offSupportPull(g, mass, hi) + round
	}

	b := segment(nil)
	mid := linearGDSteps(z, []float64{0, 1, 0}, a, eta, steps, nil)
	require.Less(t, u3(mid), math.Min(u3(a), u3(b))-2, "u_3 dips between the records")
	dT := eta * 2 * steps
	s := []float64{math.Log(2 * dT), math.Log(3 * dT)}
	atRecords := [][]float64{{0, 0, 2 * dT * tail.pull(u3(a)) * g.zOff[2]}, {0, 0, 3 * dT * tail.pull(u3(b)) * g.zOff[2]}}
	old := pullIntegral(s, atRecords, 0) + eta*math.Max(tail.pull(u3(a)), tail.pull(u3(b)))*g.zOff[2]
	assert.Greater(t, drift(b), old, "the records' pulls would call this correct run violated")
	assert.LessOrEqual(t, drift(b), bound(b), "exact GD")

	// No mass on z_3: 300 steps on z_2, then 300 on z_1 and z_2 alike.
	mass = []float64{eta * steps / 2, eta * 3 * steps / 2, 0}
	onSupport := func(q2 []float64) []float64 {
		return linearGDSteps(z, q2, linearGDSteps(z, []float64{0, 1, 0}, a, eta, steps, nil), eta, steps, nil)
	}
	assert.LessOrEqual(t, drift(onSupport([]float64{0.5, 0.5, 0})), bound(onSupport([]float64{0.5, 0.5, 0})), "exact GD, no mass off the margin")
	ignored := linearGDSteps(z, []float64{1. / 3, 1. / 3, 1. / 3}, a, eta, 2*steps, nil)
	assert.Greater(t, drift(ignored), 10*bound(ignored), "weights ignored")
}

// TestMarginFloor: on dependent rows (5 in 2 dimensions), GD segments
// under weights that jump at every step stay above the floor marginFloor
// returns, at every step; the floor exists for segments whose steps move
// the margins by O(1), and a segment whose pull is far beyond the margins'
// scale has none.
func TestMarginFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const n, d, eta = 5, 2, 0.5
	z := mat.NewDense(n, d, nil)
	for i := range n {
		angle := -1.2 + 2.4*float64(i)/(n-1)
		z.SetRow(i, []float64{math.Cos(angle), math.Sin(angle)})
	}
	gram := mat.NewSymDense(n, nil)
	gram.SymOuterK(1, z)
	tail := tailOf(lossNamed("exp"))
	margins := func(th []float64) []float64 {
		u := make([]float64, n)
		for i := range u {
			u[i] = floats.Dot(z.RawRowView(i), th)
		}
		return u
	}
	theta := []float64{5, 0}
	for seg := range 20 {
		steps := 1 + rng.IntN(20)
		u0 := margins(theta)
		lowest := append([]float64(nil), u0...)
		mass := make([]float64, n)
		th := theta
		for range steps {
			q := make([]float64, n)
			q[rng.IntN(n)] = 1 // one sample at a time: the margins of the others dip
			floats.AddScaled(mass, eta, q)
			th = linearGDSteps(z, q, th, eta, 1, nil)
			for i, u := range margins(th) {
				lowest[i] = math.Min(lowest[i], u)
			}
		}
		floor, ok := marginFloor(gram, u0, mass, roundingBudget(float64(steps), theta, th, n), tail.pull)
		require.True(t, ok, "segment %d: %d steps from margins %v", seg, steps, u0)
		for i := range floor {
			assert.LessOrEqual(t, floor[i], lowest[i], "segment %d sample %d", seg, i)
		}
		theta = th
	}
	_, ok := marginFloor(gram, margins([]float64{0.1, 0}), []float64{100, 100, 100, 100, 100}, 0, tail.pull)
	assert.False(t, ok, "a pull far beyond the margins' scale")
}

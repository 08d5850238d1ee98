package margins

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestFlowCompanionExactPath: on the decoupled flow 𝓛 = e^{−θ₁} + e^{−θ₂}
// (e^{θ_i(t)} = e^{θ_i(0)} + t) the companion re-integrates a step from
// θ(t₁) to the level of θ(t₂) onto θ(t₂); a point moved off the path by
// ε (orthogonally to Dir) is found at distance ε, and one moved along the
// path (along Dir) at distance ≪ ε: the companion measures the distance to
// the path, whatever the step's clock.
func TestFlowCompanionExactPath(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Exponential{}), []float64{1, 0, 0, 1}, []float64{1, 1})
	theta0 := []float64{0.5, -1}
	at := func(tt float64) []float64 {
		return []float64{math.Log(math.Exp(theta0[0]) + tt), math.Log(math.Exp(theta0[1]) + tt)}
	}
	eval := func(th []float64) (float64, []float64) {
		ev, err := obj.Evaluate(th, true)
		require.NoError(t, err)
		return ev.LogObjective, append([]float64(nil), ev.Dir...)
	}
	c := newFlowCompanion(obj, 2)
	// A step far too long for the companion (𝓛 falls tenfold): at the cap
	// of substeps its uncertainty δ still covers the discrepancy to the
	// exact point, so the bar dev + δ is honest.
	from, far := at(2), at(30)
	lam0, dir0 := eval(from)
	lamFar, _ := eval(far)
	sc, err := c.step(from, far, dir0, lam0, lamFar, 1e-13)
	require.NoError(t, err)
	assert.Equal(t, companionMaxSubsteps, sc.substeps)
	assert.Less(t, sc.dev, sc.unc, "%+v", sc)

	to := at(2.5)
	lam1, dir1 := eval(to)
	sc, err = c.step(from, to, dir0, lam0, lam1, 1e-13)
	require.NoError(t, err)
	assert.Less(t, sc.dev, 1e-12, "%+v", sc)
	assert.Less(t, sc.unc, 1e-10, "%+v", sc) // the 3rd-order estimate, conservative

	const eps = 1e-7
	n := floats.Norm(dir1, 2)
	off := []float64{to[0] - eps*dir1[1]/n, to[1] + eps*dir1[0]/n} // ⟂ Dir
	lamOff, _ := eval(off)
	sc, err = c.step(from, off, dir0, lam0, lamOff, 1e-13)
	require.NoError(t, err)
	// Refining stops once the discrepancy is certain (dev − δ > 2·target):
	// ε is within the companion's uncertainty of dev.
	assert.InDelta(t, eps, sc.dev, sc.unc+1e-3*eps, "%+v", sc)
	assert.Less(t, sc.unc, 0.5*eps, "%+v", sc)
	along := []float64{to[0] - eps*dir1[0]/n, to[1] - eps*dir1[1]/n} // further along the path
	lamAlong, _ := eval(along)
	sc, err = c.step(from, along, dir0, lam0, lamAlong, 1e-13)
	require.NoError(t, err)
	assert.Less(t, sc.dev, 1e-3*eps, "%+v", sc)
	assert.Equal(t, 0.0, sc.excess(1e-20), "a discrepancy within δ + rounding is no excess")

	// A stationary recorded point has no field: an error, not a NaN bar.
	_, err = c.step(from, to, []float64{0, 0}, lam0, lam1, 1e-13)
	assert.ErrorContains(t, err, "undefined")
}

// TestMarginMonotoneIntegratorFault: the check's error bar does not come
// from the integrator. The flow of TestMarginMonotoneOnAFlow holds; the
// same flow integrated with ErrorScale = 1e-6 (train.Flow's fault hook), and
// the correct records with their LocalError divided by 10⁶, are violated as
// an integrator that under-reports its error; the correct records with
// LocalError multiplied by 10⁶ (an over-reporting integrator) still hold,
// since the bar is the re-integrated discrepancy. Gradient-descent records
// (ExactSteps) are not re-integrated.
func TestMarginMonotoneIntegratorFault(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Logistic{}), []float64{1, 0.2, -0.3, 1, 0.8, 0.9}, []float64{1, 1, 1})
	run := func(scale float64) []train.Record {
		fl, err := train.NewFlow(1e-10)
		require.NoError(t, err)
		fl.PlantFault(&enginefault.Flow{ErrorScale: scale})
		tr, err := train.Run(obj, fl, []float64{0.1, -0.2}, train.Config{Steps: 2000, StopLogLoss: -20, KeepTheta: true})
		require.NoError(t, err)
		return tr.Records
	}
	clean := run(0)
	v := MarginMonotone(TrajectoryCase{Obj: obj, Records: clean})
	require.Equal(t, theorems.Holds, v.Status, v.String())

	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: run(1e-6)})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "under-reports")

	scaled := func(f float64) []train.Record {
		rs := append([]train.Record(nil), clean...)
		for i := range rs {
			rs[i].LocalError *= f
		}
		return rs
	}
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: scaled(1e-6)})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "under-reports")
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: scaled(1e6)})
	assert.Equal(t, theorems.Holds, v.Status, v.String())

	// The flow's steps as exact maps: nothing to re-integrate, no verdict
	// on the integrator, and the flow still holds (its steps increase γ̃
	// far above rounding).
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: scaled(0), ExactSteps: true})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	assert.NotContains(t, v.Detail, "independent step error")
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/losses"
)

// flowOnExactProblem integrates the decoupled flow of TestFlowExactSolution
// (e^{θ_i(t)} = e^{θ_i(0)} + t) with the given error scale and returns the
// trajectory, the largest error of θ against the exact solution at the
// recorded flow times, and the reported local errors summed.
func flowOnExactProblem(t *testing.T, scale float64) (tr *Trajectory, trueErr, reported float64) {
	t.Helper()
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}}
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	fl, err := NewFlow(1e-10)
	require.NoError(t, err)
	fl.PlantFault(&enginefault.Flow{ErrorScale: scale})
	theta0 := []float64{0.5, -1}
	tr, err = Run(obj, fl, append([]float64(nil), theta0...), Config{Steps: 400, StopLogLoss: -40, KeepTheta: true})
	require.NoError(t, err)
	for _, r := range tr.Records[1:] {
		reported += r.LocalError
		var e2 float64
		for i, v := range r.Theta {
			want := r.LogT + math.Log1p(math.Exp(theta0[i]-r.LogT))
			e2 += (v - want) * (v - want)
		}
		trueErr = math.Max(trueErr, math.Sqrt(e2))
	}
	return tr, trueErr, reported
}

// TestFlowErrorScaleFault: the fault hook. ErrorScale 0 and 1 are the same
// integrator bit for bit; ErrorScale = 1e-6 takes far longer steps whose
// true error, against the exact solution, is orders of magnitude above the
// (scaled) error it reports, which is what the verification suite's
// negative controls rely on. A scale that is not positive and finite is an
// error, not a silent integrator.
func TestFlowErrorScaleFault(t *testing.T) {
	clean, cleanErr, cleanRep := flowOnExactProblem(t, 0)
	one, _, _ := flowOnExactProblem(t, 1)
	require.Equal(t, len(clean.Records), len(one.Records))
	for i := range clean.Records {
		assert.Equal(t, clean.Records[i].Theta, one.Records[i].Theta, "record %d", i)
		assert.Equal(t, clean.Records[i].LocalError, one.Records[i].LocalError, "record %d", i)
	}
	faulty, faultyErr, faultyRep := flowOnExactProblem(t, 1e-6)
	t.Logf("clean: %d steps, true error %.3g, reported %.3g; faulty: %d steps, true error %.3g, reported %.3g",
		clean.Steps, cleanErr, cleanRep, faulty.Steps, faultyErr, faultyRep)
	assert.Less(t, faulty.Steps, clean.Steps/4, "steps ≈ (10⁶)^{1/5} ≈ 16 times longer")
	assert.Less(t, cleanErr, 10*cleanRep, "the clean integrator's error is within its reports")
	assert.Greater(t, faultyErr, 1e3*faultyRep, "the faulty integrator under-reports its error")
	assert.Greater(t, faultyErr, 1e3*cleanErr, "and its path is far from the flow")

	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		obj, _ := NewObjective(mustLinear(t, 1), losses.NewBinary(losses.Exponential{}),
			&dataset.Dataset{N: 1, D: 1, X: []float64{1}, Y: []float64{1}})
		fl, _ := NewFlow(0)
		fl.PlantFault(&enginefault.Flow{ErrorScale: bad})
		_, err := Run(obj, fl, []float64{0.1}, Config{Steps: 3})
		assert.ErrorContains(t, err, "error scale", "ErrorScale %v", bad)
	}
}

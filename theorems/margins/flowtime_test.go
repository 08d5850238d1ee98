package margins

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestFlowTimePremise: the flow of TestMarginMonotoneOnAFlow (at Tol 1e-8,
// so that the faulted flow, whose controller shrinks its steps, separates
// within the run) holds with its recorded times; integrated with the
// tableau fault
// (enginefault.MisplacedB1: the path kept, the clock wrong) it is violated
// by the flow premise, and so are the correct records with every time
// increment stretched by 1% (the path exact, the times not).
func TestFlowTimePremise(t *testing.T) {
	const tol = 1e-8
	obj := linearObjective(t, losses.NewBinary(losses.Logistic{}), []float64{1, 0.2, -0.3, 1, 0.8, 0.9}, []float64{1, 1, 1})
	run := func(h *enginefault.Flow) []train.Record {
		fl, err := train.NewFlow(tol)
		require.NoError(t, err)
		fl.PlantFault(h)
		tr, err := train.Run(obj, fl, []float64{0.1, -0.2}, train.Config{Steps: 20000, StopLogLoss: -20, KeepTheta: true})
		require.NoError(t, err)
		return tr.Records
	}
	clean := run(nil)
	v := MarginMonotone(TrajectoryCase{Obj: obj, Records: clean, Tol: tol})
	t.Log(v.String())
	require.Equal(t, theorems.Holds, v.Status, v.String())
	assert.Contains(t, v.Detail, "flow times")

	faulted := run(&enginefault.Flow{B: enginefault.MisplacedB1()})
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: faulted, Tol: tol})
	t.Log(v.String())
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "flow times")
	// Without a declared tolerance the premise has no bound to judge by:
	// the times are not witnessed, and the check says so.
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: faulted})
	assert.NotEqual(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "flow times: not witnessed (no declared tolerance)")

	stretched := append([]train.Record(nil), clean...)
	for i := range stretched {
		stretched[i].LogEta += math.Log(1.01)
	}
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: stretched, Tol: tol})
	t.Log(v.String())
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "flow times")
}

// TestFlowTimeWitnessClosedForm: the witness against the closed-form flow
// time of the exponential loss on one sample (𝓛 = e^{−u}, u = y⟨θ, x⟩:
// du/dt = ‖x‖²e^{−u}, so e^{u(t)} = e^{u(0)} + ‖x‖²t, and θ moves along
// y·x). From u = 0.1 to u = 1.1 (‖x‖² = 2) the gap is
// Δt = (e^{1.1} − e^{0.1})/2; a record that says so is within rounding of
// the witness, one that says 1.001 times as much is off by log 1.001, both
// to the witness's own uncertainty.
func TestFlowTimeWitnessClosedForm(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Exponential{}), []float64{1, -1}, []float64{1})
	w := newFlowTimeWitness(obj, 2)
	pointAt := func(theta []float64) level {
		l, err := w.levelAt(theta)
		require.NoError(t, err)
		return l
	}
	a := train.Record{Step: 0, LogT: math.Inf(-1), Theta: []float64{0.2, 0.1}}
	thetaB := []float64{0.7, -0.4}
	dt := (math.Exp(1.1) - math.Exp(0.1)) / 2
	for _, c := range []struct {
		name  string
		scale float64
		want  float64
	}{
		{"exact", 1, 0},
		{"0.1% slow clock", 1.001, math.Log(1.001)},
	} {
		b := train.Record{Step: 1, LogT: math.Log(c.scale * dt), LogEta: math.Log(c.scale * dt), Theta: thetaB}
		g, err := w.gap(a, b, pointAt(a.Theta), pointAt(thetaB), math.Log(math.Exp(0.1)), 1e-9)
		require.NoError(t, err, c.name)
		// The witness's error is within the uncertainty it adds to the
		// bound (≤ flowTimeResolution of the tolerance's allowance).
		assert.InDelta(t, math.Log(dt), g.logDt, flowTimeResolution*g.allowed, c.name)
		assert.InDelta(t, c.want, g.mismatch, flowTimeResolution*g.allowed, c.name)
		assert.Less(t, g.allowed, 1e-6, c.name)
		t.Logf("%s: log Δt* − log Δt = %.3g, mismatch %.3g, allowed %.3g (n = %d)", c.name, g.logDt-math.Log(dt), g.mismatch, g.allowed, g.steps)
	}
	// A gap along which F does not fall is not the witness's to judge.
	_, err := w.gap(a, a, pointAt(a.Theta), pointAt(a.Theta), 0, 1e-9)
	assert.ErrorIs(t, err, errNoDescent)
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// TestLossBasedSchedule: on separable data the schedule drives log 𝓛 far
// below the float64 range, every accepted step decreases the loss, and the
// step sizes follow LL App. K.1: log α = log η + log 𝓛 starts at log 0.1 and
// moves by +log r_u after a success and −k·log r_d for k rollbacks.
func TestLossBasedSchedule(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	lb, err := NewLossBased(0)
	require.NoError(t, err)
	tr, err := Run(obj, lb, []float64{0, 0}, Config{Steps: 20000, StopLogLoss: -5000})
	require.NoError(t, err)
	last := tr.Final()
	assert.LessOrEqual(t, last.LogLoss, -5000.0)
	assert.Less(t, tr.Steps, 20000)
	assert.Equal(t, tr.Steps, lb.Accepted)
	assert.False(t, math.IsInf(last.SmoothedMargin, 0) || math.IsNaN(last.SmoothedMargin))
	// Exp loss, L = 1 (LL Lemma A.5): γ̄ − log N/ρ ≤ γ̃ ≤ γ̄.
	assert.LessOrEqual(t, last.SmoothedMargin, last.NormalizedMargin)
	assert.GreaterOrEqual(t, last.SmoothedMargin, last.NormalizedMargin-math.Log(3)/last.Rho)
	logAlpha := math.Log(0.1)
	for i := 1; i < len(tr.Records); i++ {
		prev, r := tr.Records[i-1], tr.Records[i]
		require.Less(t, r.LogLoss, prev.LogLoss, "step %d", r.Step)
		// The step from prev used α with log α = log η + log 𝓛(prev).
		used := r.LogEta + prev.LogLoss
		k := (logAlpha - used) / (math.Ln2 / 10)
		assert.InDelta(t, math.Round(k), k, 1e-6, "step %d: α moved by a non-integer number of rollbacks", r.Step)
		assert.GreaterOrEqual(t, math.Round(k), 0.0)
		logAlpha = used + math.Ln2/5
	}
	assert.Greater(t, lb.Rejected, 0, "the line search must have rolled back sometimes")
}

// TestLossBasedStalls: on a regression problem with an exact fit the
// schedule reaches the minimum and stops with ErrStalled, which Run turns
// into a normal end.
func TestLossBasedStalls(t *testing.T) {
	d := &dataset.Dataset{N: 3, D: 2, X: []float64{1, 0, 0, 1, 1, 1}, Y: []float64{0.5, -2, -1.5}}
	obj, _ := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	lb, _ := NewLossBased(0.1)
	tr, err := Run(obj, lb, []float64{0, 0}, Config{Steps: 100000, Every: 1000})
	require.NoError(t, err)
	assert.True(t, tr.Stalled)
	assert.Less(t, tr.Steps, 100000)
	assert.Equal(t, tr.Steps, tr.Final().Step, "the stalled state is recorded")
	assert.InDeltaSlice(t, []float64{0.5, -2}, tr.Theta, 1e-7)
	for _, a := range []float64{-1, math.Inf(1), math.NaN()} {
		_, err := NewLossBased(a)
		assert.ErrorContains(t, err, "α(0)")
	}
}

func BenchmarkLossBasedStep(b *testing.B) {
	obj, theta := benchObjective(b, "mlp:relu:2x64", 200, 20)
	lb, _ := NewLossBased(0)
	ev, _ := obj.Evaluate(theta, true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lb.Step(obj, theta, ev); err != nil {
			b.Fatal(err)
		}
		ev, _ = obj.Evaluate(theta, true)
	}
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// TestFinalRecordGradNorm: every record's log ‖∇𝓛‖ is the gradient norm at
// that record's θ, the last one included (it was the previous step's:
// the last evaluation skipped the gradient), with and without a GRW scheme.
// The reference is a fresh objective evaluated at the recorded θ (and the
// recorded weights).
func TestFinalRecordGradNorm(t *testing.T) {
	for _, w := range []Weighting{nil, &Static{W: []float64{1, 3, 0.5}}} {
		obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
		require.NoError(t, err)
		gd, err := NewGD(0.5)
		require.NoError(t, err)
		tr, err := Run(obj, gd, []float64{0.2, -0.1}, Config{Steps: 7, Every: 3, KeepTheta: true, Weighting: w, KeepWeights: true})
		require.NoError(t, err)
		require.Len(t, tr.Records, 4) // steps 0, 3, 6, 7
		for _, r := range tr.Records {
			ref, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
			require.NoError(t, err)
			if w != nil {
				require.NoError(t, ref.SetWeights(r.Weights))
			}
			ev, err := ref.Evaluate(r.Theta, true)
			require.NoError(t, err)
			assert.InDelta(t, ev.LogGradNorm, r.LogGradNorm, 1e-14, "%v step %d", w, r.Step)
			assert.InDelta(t, ev.LogLoss, r.LogLoss, 1e-14, "%v step %d", w, r.Step)
		}
	}
}

// stallAfter is a test optimizer: n GD steps of size η, then ErrStalled
// (what loss-based GD or the flow return at a stationary point). Its trial
// evaluation at a moved θ overwrites the objective's evaluation, as theirs do.
type stallAfter struct {
	n   int
	eta float64
}

func (*stallAfter) Rule() StepRule { return StepRule{} }

func (s *stallAfter) Step(obj *Objective, theta []float64, ev *Eval) (float64, error) {
	if s.n == 0 {
		trial := append([]float64(nil), theta...)
		trial[0] += 1
		if _, err := obj.Evaluate(trial, true); err != nil {
			return 0, err
		}
		return 0, ErrStalled
	}
	s.n--
	g := math.Exp(ev.LogObjective)
	for i, d := range ev.Dir {
		theta[i] -= s.eta * g * d
	}
	return math.Log(s.eta), nil
}

// TestRunStallUnrecorded: a stall at a step that Every does not record ends
// the run normally with that state measured again and recorded (Run's
// contract), the final θ in Trajectory.Theta.
func TestRunStallUnrecorded(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
	require.NoError(t, err)
	theta := []float64{0.2, -0.1}
	tr, err := Run(obj, &stallAfter{n: 3, eta: 0.5}, theta, Config{Steps: 10, Every: 100})
	require.NoError(t, err)
	assert.True(t, tr.Stalled)
	assert.Equal(t, 3, tr.Steps)
	require.Len(t, tr.Records, 2)
	assert.Equal(t, 3, tr.Final().Step)
	assert.Equal(t, theta, tr.Theta)
	ref, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
	require.NoError(t, err)
	ev, err := ref.Evaluate(theta, true)
	require.NoError(t, err)
	assert.Equal(t, ev.LogLoss, tr.Final().LogLoss)
	assert.Equal(t, ev.LogGradNorm, tr.Final().LogGradNorm)
	// T = 3η.
	assert.InDelta(t, math.Log(1.5), tr.Final().LogT, 1e-15)
}

// TestRecordStart: the record of step 0 has log T = log η = −Inf (no step
// led there: Record's doc).
func TestRecordStart(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	gd, err := NewGD(0.1)
	require.NoError(t, err)
	tr, err := Run(obj, gd, []float64{0, 0}, Config{Steps: 2})
	require.NoError(t, err)
	assert.Equal(t, math.Inf(-1), tr.Records[0].LogT)
	assert.Equal(t, math.Inf(-1), tr.Records[0].LogEta)
	assert.Equal(t, math.Log(0.1), tr.Records[1].LogEta)
}

// TestSeparatedThreshold: Separated is 𝓛 < ℓ(b_f), strict (LL (B4)). One
// sample at θ = 0 has q = 0 = b_f and 𝓛 = ℓ(0) exactly (log 𝓛 = 0 for the
// exponential loss): not separated; any θ with q > 0 is.
func TestSeparatedThreshold(t *testing.T) {
	d := &dataset.Dataset{N: 1, D: 2, X: []float64{1, 2}, Y: []float64{1}}
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	for _, tc := range []struct {
		theta []float64
		sep   bool
	}{{[]float64{0, 0}, false}, {[]float64{1e-3, 0}, true}, {[]float64{-1e-3, 0}, false}} {
		ev, err := obj.Evaluate(tc.theta, false)
		require.NoError(t, err)
		assert.Equal(t, tc.sep, Measure(obj, tc.theta, ev, 0, 0).Separated, "θ = %v", tc.theta)
	}
}

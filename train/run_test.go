package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

func TestRunLinearSeparable(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	gd, err := NewGD(0.1)
	require.NoError(t, err)
	theta := []float64{0, 0}
	tr, err := Run(obj, gd, theta, Config{Steps: 1000, Every: 100})
	require.NoError(t, err)
	assert.Equal(t, 1000, tr.Steps)
	assert.Len(t, tr.Records, 11)
	first, last := tr.Records[0], tr.Final()
	assert.Equal(t, math.Inf(-1), first.LogT)
	// T = Σ η = 1000·0.1 = 100.
	assert.InDelta(t, math.Log(100), last.LogT, 1e-12)
	assert.Less(t, last.LogLoss, first.LogLoss)
	assert.True(t, last.Separated)
	assert.Equal(t, 1.0, tr.Degree)
	// Exp loss, L = 1 (LL Lemma A.5): γ̄ − log N/ρ ≤ γ̃ ≤ γ̄.
	assert.LessOrEqual(t, last.SmoothedMargin, last.NormalizedMargin)
	assert.GreaterOrEqual(t, last.SmoothedMargin, last.NormalizedMargin-math.Log(3)/last.Rho)
	assert.Equal(t, theta, tr.Theta)
}

func TestRunStopLogLoss(t *testing.T) {
	obj, _ := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	gd, _ := NewGD(0.5)
	tr, err := Run(obj, gd, []float64{0, 0}, Config{Steps: 100000, StopLogLoss: -3})
	require.NoError(t, err)
	assert.Less(t, tr.Steps, 100000)
	assert.LessOrEqual(t, tr.Final().LogLoss, -3.0)
}

func TestRunErrors(t *testing.T) {
	obj, _ := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	gd, _ := NewGD(0.1)
	_, err := Run(obj, gd, []float64{0, 0}, Config{Steps: -1})
	assert.ErrorContains(t, err, "steps must be ≥ 0")
	_, err = Run(obj, gd, []float64{0}, Config{Steps: 1})
	assert.ErrorContains(t, err, "θ has 1 entries")
	_, err = Run(obj, gd, []float64{math.NaN(), 0}, Config{Steps: 1})
	assert.ErrorContains(t, err, "θ[0] is NaN")
	for _, lr := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		_, err := NewGD(lr)
		assert.ErrorContains(t, err, "learning rate")
	}
}

// TestRunDivergence: a huge step on the squared loss diverges; Run stops
// with an error that names the step instead of continuing on NaN.
func TestRunDivergence(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, -1}}
	obj, _ := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	gd, _ := NewGD(1e200)
	tr, err := Run(obj, gd, []float64{0.3, 0.3}, Config{Steps: 100})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNonFinite)
	assert.Regexp(t, `^step \d+: `, err.Error())
	assert.NotNil(t, tr)
}

func TestRegularizers(t *testing.T) {
	theta := []float64{3, 4}
	p := NormPower{Lambda: 2, R: 3}
	assert.InDelta(t, 2*125, p.Value(theta), 1e-12)
	g := make([]float64, 2)
	p.AddGrad(g, 1, theta)
	// ∇ λ‖θ‖^r = λ r ‖θ‖^{r−2} θ = 2·3·5·θ.
	assert.InDeltaSlice(t, []float64{90, 120}, g, 1e-12)
	g = []float64{0, 0}
	p.AddGrad(g, 1, []float64{0, 0})
	assert.Equal(t, []float64{0, 0}, g)
	l2 := L2{Mu: 2}
	assert.InDelta(t, 25, l2.Value(theta), 1e-12)
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// TestEvaluateExactFit: at an exact fit of the squared loss every log-loss
// is −Inf, so 𝓛 = 0 and ∇𝓛 = 0: Evaluate reports log 𝓛 = log ‖∇𝓛‖ = −Inf
// and a zero direction, not an error or NaN.
func TestEvaluateExactFit(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{2, -3}}
	obj, err := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	require.NoError(t, err)
	ev, err := obj.Evaluate([]float64{2, -3}, true)
	require.NoError(t, err)
	assert.Equal(t, math.Inf(-1), ev.LogLoss)
	assert.Equal(t, math.Inf(-1), ev.LogObjective)
	assert.Equal(t, math.Inf(-1), ev.LogGradNorm)
	assert.Equal(t, []float64{0, 0}, ev.Dir)
}

// TestEvaluateRegularizerAtCentre: with R(θ) = (μ/2)‖θ − θ₀‖² at θ = θ₀,
// R = 0 and ∇R = 0, so the objective and its gradient are the data term's,
// even where 𝓛 underflows (log 𝓛 ≈ −800): the log domain keeps them, and
// the zero regularizer gradient must not enter as e^{800}·0.
func TestEvaluateRegularizerAtCentre(t *testing.T) {
	d := &dataset.Dataset{N: 1, D: 2, X: []float64{1, 0}, Y: []float64{1}}
	theta := []float64{800, 5}
	plain, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	want, err := plain.Evaluate(theta, true)
	require.NoError(t, err)
	wantDir := append([]float64(nil), want.Dir...)
	reg, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	reg.Reg = L2{Mu: 0.5, Theta0: []float64{800, 5}}
	ev, err := reg.Evaluate(theta, true)
	require.NoError(t, err)
	assert.Equal(t, -800.0, ev.LogLoss)
	assert.Equal(t, want.LogObjective, ev.LogObjective)
	assert.Equal(t, want.LogGradNorm, ev.LogGradNorm)
	assert.Equal(t, wantDir, ev.Dir)
}

// TestNorm2Range: norm2 is ‖x‖₂ also where Σx² over- or underflows float64
// (its doc); the references are exact: √2·2^600 and √(3²+4²)·2^−600.
func TestNorm2Range(t *testing.T) {
	assert.Equal(t, math.Sqrt2*0x1p600, norm2([]float64{0x1p600, 0x1p600}))
	assert.Equal(t, 5*0x1p-600, norm2([]float64{3 * 0x1p-600, 4 * 0x1p-600}))
	assert.Equal(t, 5.0, norm2([]float64{3, 4}))
}

// TestGammaHatAtT0: γ̂ is defined for 𝓛 ≤ 𝓛(t₀), so at t₀ itself
// (u = s₀); above it the error names both losses.
func TestGammaHatAtT0(t *testing.T) {
	g, err := NewGDMargin(-4, 2)
	require.NoError(t, err)
	lg, _, err := g.LogGammaHat(-4, 2)
	require.NoError(t, err)
	// H = h for s₀ ≥ 3: I(s₀) = −s₀(1/s₀ + 1/(2L s₀²)) = −1 − 1/16 (LL (19)).
	assert.InDelta(t, math.Log(4)-1-1.0/16-2*math.Log(2), lg, 1e-15)
	_, _, err = g.LogGammaHat(-3.5, 2)
	assert.ErrorContains(t, err, "log 𝓛 = -3.5 > log 𝓛(t₀) = -4")
}

// TestCVaRLargeN: the CVaR weights for n = 40 distinct losses in scrambled
// order (enough for sort.Sort to leave insertion sort) are 1/(αn) on the
// ⌊αn⌋ largest losses, the remainder on the next one, 0 elsewhere.
func TestCVaRLargeN(t *testing.T) {
	const n = 40
	X := make([]float64, n)
	Y := make([]float64, n)
	ll := make([]float64, n)
	for i := range ll {
		X[i], Y[i] = 1, 1
		ll[i] = -float64((i*17)%n) / 10 // a permutation of 0, −0.1, …, −3.9
	}
	d := &dataset.Dataset{N: n, D: 1, X: X, Y: Y}
	w := &CVaRDRO{Alpha: 0.3}
	require.NoError(t, w.Start(d))
	q := make([]float64, n)
	require.NoError(t, w.Update(0, ll, q))
	// αn = 12 exactly: the 12 largest losses (ranks 0…11) get 1/12.
	for i := range q {
		want := 0.0
		if (i*17)%n < 12 {
			want = 1.0 / 12
		}
		assert.InDelta(t, want, q[i], 1e-15, "sample %d (rank %d)", i, (i*17)%n)
	}
}

// TestEvaluateZeroLoss: a margin loss that is exactly 0 past a margin (the
// squared hinge, written as a formula) makes 𝓛 = 0 once every sample is past
// it: log 𝓛 = log ‖∇𝓛‖ = −Inf and a zero direction, not NaN.
func TestEvaluateZeroLoss(t *testing.T) {
	l, err := losses.ByName("expr:if q < 1 then (1-q)^2 else 0")
	require.NoError(t, err)
	obj, err := NewObjective(mustLinear(t, 2), l, linearData())
	require.NoError(t, err)
	// linearData: x = (1,0), (0,1), (1,1) with y = +1, −1, +1; θ = (3, −3)
	// gives margins 3, 3, 0 — not all past 1 — and θ = (5, −2) gives 5, 2, 3.
	ev, err := obj.Evaluate([]float64{5, -2}, true)
	require.NoError(t, err)
	assert.Equal(t, math.Inf(-1), ev.LogLoss)
	assert.Equal(t, math.Inf(-1), ev.LogGradNorm)
	assert.Equal(t, []float64{0, 0}, ev.Dir)
	ev, err = obj.Evaluate([]float64{3, -3}, true)
	require.NoError(t, err)
	assert.Greater(t, ev.LogLoss, math.Inf(-1))
}

// TestLossBasedStallAtMinimum: at the minimizer of a strictly convex
// objective (squared loss on x = 1, y = 2 plus ½θ²: θ* = 1, F = 1, ∇F = 0
// exactly) no trial step decreases F, so loss-based GD stalls after exactly
// lossBasedMaxRetries = 400 divisions of α by r_d = 2^{1/10} (LL App. K.1),
// θ unchanged.
func TestLossBasedStallAtMinimum(t *testing.T) {
	d := &dataset.Dataset{N: 1, D: 1, X: []float64{1}, Y: []float64{2}}
	obj, err := NewObjective(mustLinear(t, 1), losses.Squared{}, d)
	require.NoError(t, err)
	obj.Reg = L2{Mu: 1}
	lb, err := NewLossBased(0)
	require.NoError(t, err)
	tr, err := Run(obj, lb, []float64{1}, Config{Steps: 5})
	require.NoError(t, err)
	assert.True(t, tr.Stalled)
	assert.Equal(t, []float64{1}, tr.Theta)
	assert.Equal(t, 400, lb.Rejected)
	assert.InDelta(t, math.Log(0.1)-400*math.Ln2/10, lb.LogAlpha, 1e-12)
}

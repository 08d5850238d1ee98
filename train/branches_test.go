package train

// Tests of documented behaviour at branches the other tests do not reach
// (found by mutation testing, scripts/mutation).

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// TestWeightingStartValidates: a scheme built as a struct literal (not by
// its constructor) is validated by Start: ν, ρ must be > 0 and α ∈ (0, 1].
func TestWeightingStartValidates(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 1, X: []float64{1, -1}, Y: []float64{1, -1}}
	for _, w := range []Weighting{&GroupDRO{Nu: 0}, &ChiSquareDRO{Rho: 0}, &CVaRDRO{Alpha: 0}, &CVaRDRO{Alpha: 1.5}} {
		assert.Error(t, w.Start(d), "%T %+v", w, w)
	}
	for _, w := range []Weighting{&GroupDRO{Nu: 1e-3}, &ChiSquareDRO{Rho: 1e-3}, &CVaRDRO{Alpha: 1}} {
		assert.NoError(t, w.Start(d), "%T %+v", w, w)
	}
}

// TestCVaRTies: the worst-case weights order equal losses by index (a total
// order, so the weights are deterministic): with four equal losses and
// α = 1/2 the top αn = 2 samples are the first two, weighted 1/(αn) = 1/2.
func TestCVaRTies(t *testing.T) {
	d := &dataset.Dataset{N: 4, D: 1, X: []float64{1, 2, 3, 4}, Y: []float64{1, 1, 1, 1}}
	w := &CVaRDRO{Alpha: 0.5}
	require.NoError(t, w.Start(d))
	q := make([]float64, 4)
	require.NoError(t, w.Update(0, []float64{-1, -1, -1, -1}, q))
	assert.Equal(t, []float64{0.5, 0.5, 0, 0}, q)
	// Ties below a strictly larger loss: sample 3 first, then 0.
	require.NoError(t, w.Update(0, []float64{-2, -2, -2, -1}, q))
	assert.Equal(t, []float64{0.5, 0, 0, 0.5}, q)
}

// TestDROLogDomain: the χ² and CVaR weights depend only on the loss ratios
// ℓ_i/max ℓ, so log-losses shifted by −800 (losses ≈ e^{−800}, far below
// the float64 range, ordinary in this engine) give the same weights — to
// the rounding of the shift: v − 800 moves each log-loss by up to half an
// ulp of 800 (5.7e-14), and the weights change by O(1) times that: 1e-12.
func TestDROLogDomain(t *testing.T) {
	d := &dataset.Dataset{N: 4, D: 1, X: []float64{1, 2, 3, 4}, Y: []float64{1, 1, 1, 1}}
	ll := []float64{-0.5, -1, -3, -0.2}
	shifted := make([]float64, len(ll))
	for i, v := range ll {
		shifted[i] = v - 800
	}
	for _, w := range []Weighting{&ChiSquareDRO{Rho: 0.3}, &CVaRDRO{Alpha: 0.6}} {
		require.NoError(t, w.Start(d))
		q1, q2 := make([]float64, 4), make([]float64, 4)
		require.NoError(t, w.Update(0, ll, q1))
		require.NoError(t, w.Update(0, shifted, q2))
		for i := range q1 {
			assert.InDelta(t, q1[i], q2[i], 1e-12, "%T q[%d]", w, i)
		}
		// A NaN log-loss is named by its (1-based) sample.
		err := w.Update(0, []float64{-1, math.NaN(), -1, -1}, q1)
		assert.ErrorContains(t, err, "log-loss of sample 2 is NaN")
	}
}

// TestNormalizeWeightsZero: zero weights are allowed (≥ 0), a negative one
// is named by its 1-based index.
func TestNormalizeWeightsZero(t *testing.T) {
	q, err := NormalizeWeights([]float64{0, 3, 1})
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0.75, 0.25}, q)
	_, err = NormalizeWeights([]float64{1, -1})
	assert.ErrorContains(t, err, "weight 2 is -1")
}

// TestLossBasedExactFit: at 𝓛 + R = 0 (the squared loss at an exact fit,
// log 𝓛 = −Inf) there is nothing to decrease: the schedule stalls at once,
// without trying (and rejecting) step sizes.
func TestLossBasedExactFit(t *testing.T) {
	d := &dataset.Dataset{N: 1, D: 2, X: []float64{1, 2}, Y: []float64{5}}
	obj, err := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	require.NoError(t, err)
	lb, err := NewLossBased(0)
	require.NoError(t, err)
	tr, err := Run(obj, lb, []float64{1, 2}, Config{Steps: 10})
	require.NoError(t, err)
	assert.True(t, tr.Stalled)
	assert.Equal(t, 0, lb.Rejected)
}

// TestSmoothedMarginNotSeparated: log γ̃ is NaN when g(log 1/𝓛) ≤ 0; for the
// exponential loss g(u) = u, so log 𝓛 = 0 (𝓛 = 1) gives g = 0: NaN, not
// log 0 = −Inf.
func TestSmoothedMarginNotSeparated(t *testing.T) {
	m := losses.Exponential{}
	assert.True(t, math.IsNaN(LogSmoothedMargin(m, 0, 2, 1)))
	assert.InDelta(t, math.Log(3)-math.Log(2), LogSmoothedMargin(m, -3, 2, 1), 1e-15)
	blocks := []models.Block{{Name: "w", Offset: 0, Len: 2}}
	theta := []float64{3, 4}
	assert.True(t, math.IsNaN(LogBlockSmoothedMargin(m, 0, theta, blocks, []float64{1})))
	assert.InDelta(t, math.Log(3)-math.Log(5), LogBlockSmoothedMargin(m, -3, theta, blocks, []float64{1}), 1e-15)
}

// TestMomentumRecurrence: heavy ball on ½‖θ − y‖²-type objectives follows
// v ← βv − η∇𝓛, θ ← θ + v, with the velocity kept between steps. For the
// squared loss with X = I, ∇𝓛 = θ − y, so the iterates are computed here by
// the recurrence itself (exact to a few roundings: 1e-15).
func TestMomentumRecurrence(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, -2}}
	obj, err := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	require.NoError(t, err)
	const eta, beta = 0.1, 0.5
	m, err := NewMomentum(eta, beta)
	require.NoError(t, err)
	theta := []float64{0.5, 0.25}
	tr, err := Run(obj, m, theta, Config{Steps: 3})
	require.NoError(t, err)
	want := []float64{0.5, 0.25}
	v := []float64{0, 0}
	for step := 0; step < 3; step++ {
		for i := range want {
			v[i] = beta*v[i] - eta*(want[i]-d.Y[i])
			want[i] += v[i]
		}
	}
	assert.InDeltaSlice(t, want, tr.Theta, 1e-15)
	// Parameters: η > 0; β in (0, 1) (0 means the default).
	for _, tc := range [][2]float64{{0, 0.5}, {0.1, 1}, {0.1, -0.5}} {
		_, err := NewMomentum(tc[0], tc[1])
		assert.Error(t, err, "η = %g, β = %g", tc[0], tc[1])
	}
}

// TestScheduleWeights: a schedule's weights may be 0 (≥ 0) but not all 0;
// a bad one is named by its 1-based index; the schedule by its kind.
func TestScheduleWeights(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 1, X: []float64{1, 2}, Y: []float64{1, 1}}
	q := make([]float64, 2)
	s := &Schedule{Kind: ScheduleA3, At: func(_ int, q []float64) { q[0], q[1] = 0, 2 }}
	require.NoError(t, s.Start(d))
	require.NoError(t, s.Update(0, nil, q))
	assert.Equal(t, []float64{0, 1}, q)
	assert.Equal(t, Scheme{Kind: ScheduleA3}, s.Scheme())
	assert.Equal(t, "schedule-A3", s.Scheme().String())
	assert.Equal(t, Scheme{Kind: ScheduleScheme}, (&Schedule{}).Scheme())
	zero := &Schedule{At: func(_ int, q []float64) { q[0], q[1] = 0, 0 }}
	assert.ErrorContains(t, zero.Update(0, nil, q), "weights sum to 0")
	neg := &Schedule{At: func(_ int, q []float64) { q[0], q[1] = 1, -1 }}
	assert.ErrorContains(t, neg.Update(0, nil, q), "weight 2 is -1")
}

// TestAdamRecurrence: Adam (Kingma & Ba 2015, Algorithm 1) computed here by
// its recurrence on the squared loss with X = I (∇𝓛 = θ − y), three steps
// with non-default β₁, β₂ and an ε large enough to matter: the engine's
// iterates must agree to a few roundings (1e-14).
func TestAdamRecurrence(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, -2}}
	obj, err := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	require.NoError(t, err)
	const eta, b1, b2, eps = 0.1, 0.8, 0.9, 0.05
	a, err := NewAdam(eta, b1, b2, eps)
	require.NoError(t, err)
	tr, err := Run(obj, a, []float64{0.5, 0.25}, Config{Steps: 3})
	require.NoError(t, err)
	want := []float64{0.5, 0.25}
	m, v := []float64{0, 0}, []float64{0, 0}
	for step := 1; step <= 3; step++ {
		for i := range want {
			g := want[i] - d.Y[i]
			m[i] = b1*m[i] + (1-b1)*g
			v[i] = b2*v[i] + (1-b2)*g*g
			mh := m[i] / (1 - math.Pow(b1, float64(step)))
			vh := v[i] / (1 - math.Pow(b2, float64(step)))
			want[i] -= eta * mh / (math.Sqrt(vh) + eps)
		}
	}
	assert.InDeltaSlice(t, want, tr.Theta, 1e-14)
	// Parameters: η > 0, β₁, β₂ in (0, 1), ε > 0 (0: the defaults).
	for _, p := range [][4]float64{{0, 0, 0, 0}, {0.1, 1, 0, 0}, {0.1, 0, 1, 0}, {0.1, -0.5, 0, 0}, {0.1, 0, 0, -1}} {
		_, err := NewAdam(p[0], p[1], p[2], p[3])
		assert.Error(t, err, "%v", p)
	}
}

// TestCrossEntropyObjectiveGradient: for a K-output model the objective's
// gradient direction is ∂ log 𝓛/∂θ (∇𝓛 = e^{log 𝓛}·Dir), checked here by
// central differences of log 𝓛 (step 1e-6: truncation ~1e-12, rounding
// ~ε/1e-6 = 2e-10 of the scale, so 1e-7 relative), for K = 2 (the smallest
// multi-class model) and K = 3.
func TestCrossEntropyObjectiveGradient(t *testing.T) {
	d := &dataset.Dataset{N: 3, D: 2, X: []float64{1, 0.5, -0.3, 2, 0.7, -1}, Y: []float64{0, 1, 1}}
	for _, k := range []int{2, 3} {
		m, err := models.NewLinear(2, k)
		require.NoError(t, err)
		obj, err := NewObjective(m, losses.CrossEntropy{}, d)
		require.NoError(t, err)
		theta := make([]float64, m.NumParams())
		for i := range theta {
			theta[i] = 0.3*float64(i%5) - 0.4
		}
		ev, err := obj.Evaluate(theta, true)
		require.NoError(t, err)
		dir := append([]float64(nil), ev.Dir...)
		const h = 1e-6
		for i := range theta {
			tp := append([]float64(nil), theta...)
			tp[i] += h
			ep, err := obj.Evaluate(tp, false)
			require.NoError(t, err)
			lp := ep.LogObjective
			tp[i] -= 2 * h
			em, err := obj.Evaluate(tp, false)
			require.NoError(t, err)
			fd := (lp - em.LogObjective) / (2 * h)
			assert.InDelta(t, fd, dir[i], 1e-7*(1+math.Abs(fd)), "K = %d, θ[%d]", k, i)
		}
	}
}

// TestObjectiveEdgeCases: at an exact fit (squared loss, log 𝓛 = −Inf)
// the gradient norm is 0 (log −Inf) and the direction 0, not NaN; a
// negative weight is named by its 1-based index; a non-finite output names
// its sample.
func TestObjectiveEdgeCases(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 1, X: []float64{1, 2}, Y: []float64{3, 6}}
	obj, err := NewObjective(mustLinear(t, 1), losses.Squared{}, d)
	require.NoError(t, err)
	ev, err := obj.Evaluate([]float64{3}, true)
	require.NoError(t, err)
	assert.Equal(t, math.Inf(-1), ev.LogObjective)
	assert.Equal(t, math.Inf(-1), ev.LogGradNorm)
	assert.Equal(t, []float64{0}, ev.Dir)
	_, err = obj.Reweight([]float64{1, -2}, true)
	assert.ErrorContains(t, err, "weight 2 is -2")
	pm := poisoned{mustLinear(t, 1), 0}
	obj2, err := NewObjective(pm, losses.Squared{}, d)
	require.NoError(t, err)
	_, err = obj2.Evaluate([]float64{1}, false)
	assert.ErrorContains(t, err, "model output of sample 1 is NaN")
}

// TestRunRecords: the first record has log T = −Inf (no time has passed);
// a run with a weighting returns its final weights (summing to 1) and keeps
// them per record only with KeepWeights.
func TestRunRecords(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, -1}}
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	gd, err := NewGD(0.1)
	require.NoError(t, err)
	tr, err := Run(obj, gd, []float64{0.1, 0.2}, Config{Steps: 3, Weighting: &ERM{}})
	require.NoError(t, err)
	assert.Equal(t, math.Inf(-1), tr.Records[0].LogT)
	require.Len(t, tr.Weights, 2)
	assert.InDelta(t, 1, tr.Weights[0]+tr.Weights[1], 1e-15)
	assert.Nil(t, tr.Records[1].Weights)
	tr, err = Run(obj, gd, []float64{0.1, 0.2}, Config{Steps: 3, Weighting: &ERM{}, KeepWeights: true})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 0.5}, tr.Records[2].Weights)
	tr, err = Run(obj, gd, []float64{0.1, 0.2}, Config{Steps: 3, KeepWeights: true})
	require.NoError(t, err)
	assert.Nil(t, tr.Records[2].Weights, "no weighting, no weights")
	assert.Nil(t, tr.Weights)
}

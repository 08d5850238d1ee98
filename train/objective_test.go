package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

func linearData() *dataset.Dataset {
	return &dataset.Dataset{N: 3, D: 2, X: []float64{1, 0, 0, 1, 1, 1}, Y: []float64{1, -1, 1}}
}

func mustLinear(t testing.TB, d int) models.Model {
	m, err := models.NewLinear(d, 1)
	require.NoError(t, err)
	return m
}

// TestEvaluateLinearExp compares the log-domain objective with the sum
// computed directly where it does not underflow.
func TestEvaluateLinearExp(t *testing.T) {
	d := linearData()
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	theta := []float64{0.3, -0.7}
	ev, err := obj.Evaluate(theta, true)
	require.NoError(t, err)
	// q = y⟨θ,x⟩ = (0.3, 0.7, −0.4).
	q := []float64{0.3, 0.7, -0.4}
	var sum float64
	grad := make([]float64, 2)
	for n, qn := range q {
		sum += math.Exp(-qn)
		// ∇ e^{−q} = −e^{−q} y x.
		floats.AddScaled(grad, -math.Exp(-qn)*d.Y[n], d.Row(n))
	}
	assert.InDelta(t, math.Log(sum), ev.LogLoss, 1e-15)
	assert.Equal(t, ev.LogLoss, ev.LogObjective)
	assert.InDelta(t, -0.4, ev.QMin, 1e-15)
	assert.InDeltaSlice(t, q, ev.Margins, 1e-15)
	for i := range grad {
		assert.InDelta(t, grad[i], math.Exp(ev.LogObjective)*ev.Dir[i], 1e-14)
	}
	assert.InDelta(t, math.Log(floats.Norm(grad, 2)), ev.LogGradNorm, 1e-14)
}

// TestEvaluateHugeMargins: at margins of 1e4 the loss is e^{−1e4}, far below
// the smallest double; log 𝓛 and the gradient direction must stay exact.
func TestEvaluateHugeMargins(t *testing.T) {
	d := linearData()
	for _, l := range []losses.Margin{losses.Exponential{}, losses.Logistic{}} {
		obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(l), d)
		require.NoError(t, err)
		theta := []float64{1e4, -1e4}
		// q = (1e4, 1e4, 0): the third sample dominates. Use a separating θ.
		theta = []float64{2e4, -1e4}
		ev, err := obj.Evaluate(theta, true)
		require.NoError(t, err)
		// q = (2e4, 1e4, 1e4): 𝓛 ≈ 2e^{−1e4} (for both losses, ℓ(q) ≈ e^{−q}).
		assert.True(t, scalar.EqualWithinRel(ev.LogLoss, math.Log(2)-1e4, 1e-14), "%s: log 𝓛 = %v", l.Name(), ev.LogLoss)
		// Direction: −(x₂ y₂ + x₃ y₃)/2 = −((0,−1) + (1,1))/2 = (−0.5, 0).
		assert.InDeltaSlice(t, []float64{-0.5, 0}, ev.Dir, 1e-12, l.Name())
		assert.False(t, math.IsInf(ev.LogGradNorm, 0) || math.IsNaN(ev.LogGradNorm))
	}
}

func TestEvaluateWeightsAndRegularizer(t *testing.T) {
	d := linearData()
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), d)
	require.NoError(t, err)
	theta := []float64{0.2, 0.1}
	w := []float64{0.5, 0, 2}
	require.NoError(t, obj.SetWeights(w))
	obj.Reg = L2{Mu: 0.3, Theta0: []float64{1, 1}}
	ev, err := obj.Evaluate(theta, true)
	require.NoError(t, err)
	var sum float64
	grad := make([]float64, 2)
	for n := 0; n < d.N; n++ {
		q := d.Y[n] * floats.Dot(theta, d.Row(n))
		sum += w[n] * math.Log1p(math.Exp(-q))
		floats.AddScaled(grad, -w[n]*d.Y[n]/(1+math.Exp(q)), d.Row(n))
	}
	reg := 0.5 * 0.3 * (0.8*0.8 + 0.9*0.9)
	grad[0] += 0.3 * (0.2 - 1)
	grad[1] += 0.3 * (0.1 - 1)
	assert.InDelta(t, math.Log(sum), ev.LogLoss, 1e-15)
	assert.InDelta(t, math.Log(sum+reg), ev.LogObjective, 1e-15)
	for i := range grad {
		assert.InDelta(t, grad[i], math.Exp(ev.LogObjective)*ev.Dir[i], 1e-15)
	}

	assert.ErrorContains(t, obj.SetWeights([]float64{1, 2}), "2 weights for 3 samples")
	assert.ErrorContains(t, obj.SetWeights([]float64{1, -1, 1}), "weight 2 is -1")
	assert.ErrorContains(t, obj.SetWeights([]float64{1, math.NaN(), 1}), "weight 2 is NaN")
}

func TestEvaluateSquaredExactFit(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{0.5, -2}}
	obj, err := NewObjective(mustLinear(t, 2), losses.Squared{}, d)
	require.NoError(t, err)
	ev, err := obj.Evaluate([]float64{0.5, -2}, true)
	require.NoError(t, err)
	assert.Equal(t, math.Inf(-1), ev.LogLoss)
	assert.Equal(t, []float64{0, 0}, ev.Dir)
	assert.Nil(t, ev.Margins)
	assert.True(t, math.IsNaN(ev.QMin))
}

func TestEvaluateCrossEntropy(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{0, 2}}
	m, err := models.NewLinear(2, 3)
	require.NoError(t, err)
	obj, err := NewObjective(m, losses.CrossEntropy{}, d)
	require.NoError(t, err)
	// Θ rows are the classes' weights: scores of x₁ are Θ[:,0], of x₂ Θ[:,1].
	theta := []float64{3, 0, 1, 1, 0, 4}
	ev, err := obj.Evaluate(theta, false)
	require.NoError(t, err)
	// Sample 1 scores (3, 1, 0), class 0: q = 2; sample 2 scores (0, 1, 4), class 2: q = 3.
	assert.InDeltaSlice(t, []float64{2, 3}, ev.Margins, 1e-15)
	want := math.Log(math.Log(1+math.Exp(-2)+math.Exp(-3)) + math.Log(1+math.Exp(-4)+math.Exp(-3)))
	assert.InDelta(t, want, ev.LogLoss, 1e-14)
}

func TestNewObjectiveErrors(t *testing.T) {
	d := linearData()
	m3, _ := models.NewLinear(2, 3)
	m1, _ := models.NewLinear(3, 1)
	for _, tc := range []struct {
		name string
		m    models.Model
		l    losses.Loss
		d    *dataset.Dataset
		want string
	}{
		{"input dim", m1, losses.NewBinary(losses.Exponential{}), d, "takes 3 inputs, data have 2"},
		{"binary needs one output", m3, losses.NewBinary(losses.Exponential{}), d, "needs one output"},
		{"ce needs K outputs", mustLinear(t, 2), losses.CrossEntropy{}, d, "≥ 2 outputs"},
		{"ce labels", m3, losses.CrossEntropy{}, d, "has label -1"},
		{"binary labels", mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), &dataset.Dataset{N: 1, D: 2, X: []float64{1, 2}, Y: []float64{3}}, "label 3"},
		{"empty", mustLinear(t, 2), losses.Squared{}, &dataset.Dataset{D: 2}, "no samples"},
		{"nil loss", mustLinear(t, 2), nil, d, "needs a model and a loss"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewObjective(tc.m, tc.l, tc.d)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestEvaluateCache(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), linearData())
	require.NoError(t, err)
	theta := []float64{1, 2}
	a, _ := obj.Evaluate(theta, false)
	la := a.LogLoss
	b, _ := obj.Evaluate(theta, true) // gradient not cached yet: recomputed
	assert.Equal(t, la, b.LogLoss)
	assert.NotZero(t, floats.Norm(b.Dir, 2))
	theta[0] = 3
	c, _ := obj.Evaluate(theta, false)
	assert.NotEqual(t, la, c.LogLoss, "a changed θ must not hit the cache")
}

// TestRunLentCache: under GD, Run keys the objective's cache on its own θ
// (no copy per step). The cache must never serve a θ that changed: after
// the run (θ changed by the caller) and, while Run's θ is lent, for another
// slice evaluated and then changed; at the final θ it still hits.
func TestRunLentCache(t *testing.T) {
	obj, theta := benchObjective(t, "mlp:relu:8", 20, 3)
	fresh := func(th []float64) float64 {
		o, err := NewObjective(obj.Model, obj.Loss, obj.Data)
		require.NoError(t, err)
		ev, err := o.Evaluate(th, true)
		require.NoError(t, err)
		return ev.LogLoss
	}
	gd, err := NewGD(0.01)
	require.NoError(t, err)
	tr, err := Run(obj, gd, theta, Config{Steps: 20, Every: 5})
	require.NoError(t, err)
	ev, err := obj.Evaluate(theta, true)
	require.NoError(t, err)
	assert.Equal(t, tr.Final().LogLoss, ev.LogLoss)
	theta[0] += 0.25
	ev, err = obj.Evaluate(theta, true)
	require.NoError(t, err)
	assert.Equal(t, fresh(theta), ev.LogLoss, "a θ changed after the run must not hit the cache")

	obj.runθ = theta // as Run lends it
	defer obj.endLending()
	other := append([]float64(nil), theta...)
	other[1] += 0.5
	_, err = obj.Evaluate(other, false)
	require.NoError(t, err)
	other[1] -= 1 // not Run's θ: copied, so a change is seen
	ev, err = obj.Evaluate(other, false)
	require.NoError(t, err)
	assert.Equal(t, fresh(other), ev.LogLoss, "another slice changed after its evaluation must not hit the cache")

	// Run's θ, then another θ (an Observe callback's), then Run's θ again:
	// the cache holds the other θ's evaluation, so Run's must be computed
	// afresh, not read under the key Run lent before.
	_, err = obj.Evaluate(theta, false)
	require.NoError(t, err)
	_, err = obj.Evaluate(other, false)
	require.NoError(t, err)
	ev, err = obj.Evaluate(theta, false)
	require.NoError(t, err)
	assert.Equal(t, fresh(theta), ev.LogLoss, "Run's θ after another θ's evaluation must not hit the cache")
	_, err = obj.Evaluate(other, false)
	require.NoError(t, err)
	obj.endLending()
	ev, err = obj.Evaluate(theta, false)
	require.NoError(t, err)
	assert.Equal(t, fresh(theta), ev.LogLoss, "the key kept at the end of lending must be the last evaluation's")
}

// TestEvaluateNoAllocs: the engine's inner loop does not allocate.
func TestEvaluateNoAllocs(t *testing.T) {
	obj, theta := benchObjective(t, "mlp:relu:2x64", 200, 20)
	allocs := testing.AllocsPerRun(20, func() {
		theta[0] += 1e-9 // defeat the cache
		if _, err := obj.Evaluate(theta, true); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

func benchObjective(t testing.TB, spec string, n, d int) (*Objective, []float64) {
	r := rand.New(rand.NewPCG(1, 1))
	data := &dataset.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := range data.X {
		data.X[i] = r.NormFloat64()
	}
	for i := range data.Y {
		data.Y[i] = float64(2*r.IntN(2) - 1)
	}
	m, err := models.Parse(spec, d)
	require.NoError(t, err)
	obj, err := NewObjective(m, losses.NewBinary(losses.Exponential{}), data)
	require.NoError(t, err)
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	return obj, theta
}

var sinkEval *Eval

// BenchmarkEvaluate is one full-batch loss and gradient evaluation (the
// issue's two sizes).
func BenchmarkEvaluate(b *testing.B) {
	for _, c := range []struct {
		name, spec string
		n, d       int
	}{
		{"mlp-relu-2x64-n200-d20", "mlp:relu:2x64", 200, 20},
		{"mlp-relu-4x128-n1000-d50", "mlp:relu:4x128", 1000, 50},
	} {
		b.Run(c.name, func(b *testing.B) {
			obj, theta := benchObjective(b, c.spec, c.n, c.d)
			b.ReportAllocs()
			for b.Loop() {
				theta[0] += 1e-12
				sinkEval, _ = obj.Evaluate(theta, true)
			}
		})
	}
}

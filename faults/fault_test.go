package faults_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// TestRegistry: names are unique and every fault says what it breaks. The
// claims each fault must break are declared by the entries
// (properties/suite's TestEntryFaults).
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range faults.Registry() {
		assert.False(t, seen[f.Name], "fault %s registered twice", f.Name)
		seen[f.Name] = true
		assert.NotEmpty(t, f.Component, f.Name)
		assert.NotEmpty(t, f.Effect, f.Name)
	}
	_, err := faults.Lookup("no-such-fault")
	assert.Error(t, err)
	none, err := faults.Lookup("")
	require.NoError(t, err)
	assert.True(t, none.None())
}

// problem is a two-sample separable problem for the engine-level tests.
func problem(t *testing.T) (*train.Objective, []float64) {
	t.Helper()
	m, err := models.NewLinear(2, 1)
	require.NoError(t, err)
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0.5, -0.2, 1}, Y: []float64{1, 1}}
	obj, err := train.NewObjective(m, losses.NewBinary(losses.Exponential{}), d)
	require.NoError(t, err)
	return obj, []float64{0.1, -0.3}
}

// TestFaultsChangeTheEngine: every fault makes some engine computation
// differ from the correct one (a fault that changes nothing would make
// its controls vacuous), and the zero Fault changes none.
func TestFaultsChangeTheEngine(t *testing.T) {
	run := func(f faults.Fault, scheme train.Weighting) []float64 {
		obj, theta := problem(t)
		m, l := f.Model(obj.Model), f.Loss(obj.Loss)
		obj, err := train.NewObjective(m, l, obj.Data)
		require.NoError(t, err)
		f.Objective(obj)
		var opt train.Optimizer
		opt, err = train.NewGD(0.1)
		require.NoError(t, err)
		tr, err := train.Run(obj, f.Optimizer(opt), theta, train.Config{Steps: 5, Weighting: scheme})
		require.NoError(t, err)
		return append(tr.Theta, tr.Final().LogLoss, float64(obj.Model.Degree().Order))
	}
	static := func() train.Weighting { return &train.Static{W: []float64{0.9, 0.1}} }
	clean := run(faults.Fault{}, static())
	for _, f := range faults.Registry() {
		switch f.Name {
		case "momentum-misindexed", "flow-error-underreported", "tableau-b1-misplaced", "l2-gradient-uncentred", "ntk-scale":
			continue // heavy ball, the flow, an L2 regularizer, the NTK network: TestFaultsOnTheirComponent
		}
		got := run(f, static())
		assert.NotEqual(t, clean, got, "fault %s changed nothing on GD with static weights", f.Name)
	}
	assert.Equal(t, clean, run(faults.Fault{}, static()))
}

// TestFaultsOnTheirComponent covers the faults that act on one kind of
// component only.
func TestFaultsOnTheirComponent(t *testing.T) {
	obj, theta := problem(t)
	step := func(o train.Optimizer, obj *train.Objective) []float64 {
		th := append([]float64(nil), theta...)
		tr, err := train.Run(obj, o, th, train.Config{Steps: 5})
		require.NoError(t, err)
		return tr.Theta
	}
	hb, err := train.NewMomentum(0.1, 0.9)
	require.NoError(t, err)
	hb2, _ := train.NewMomentum(0.1, 0.9)
	f, _ := faults.Lookup("momentum-misindexed")
	assert.NotEqual(t, step(hb, obj), step(f.Optimizer(hb2), obj))

	flows := func(f faults.Fault) []float64 {
		fl, err := train.NewFlow(1e-8)
		require.NoError(t, err)
		return step(f.Optimizer(fl), obj)
	}
	clean := flows(faults.Fault{})
	for _, name := range []string{"flow-error-underreported", "tableau-b1-misplaced"} {
		f, _ = faults.Lookup(name)
		assert.NotEqual(t, clean, flows(f), name)
	}

	obj.Reg = train.L2{Mu: 0.5, Theta0: []float64{1, 1}}
	right := step(train.Optimizer(mustGD(t)), obj)
	f, _ = faults.Lookup("l2-gradient-uncentred")
	f.Objective(obj)
	assert.NotEqual(t, right, step(mustGD(t), obj))
}

func mustGD(t *testing.T) *train.GD {
	gd, err := train.NewGD(0.1)
	require.NoError(t, err)
	return gd
}

// TestLossUnderflowFloors: the out-of-log-domain loss stops falling near
// q ≈ 709–745 (float64's range; f′ reads 0 past it), where the right loss
// keeps going, and it is never −Inf.
func TestLossUnderflowFloors(t *testing.T) {
	f, _ := faults.Lookup("loss-underflow")
	l := f.Loss(losses.NewBinary(losses.Exponential{}))
	assert.Equal(t, -10.0, l.LogLoss([]float64{10}, 1))
	far := l.LogLoss([]float64{1e6}, 1)
	assert.False(t, math.IsInf(far, 0))
	assert.Greater(t, far, -746.0)
	assert.Equal(t, far, l.LogLoss([]float64{800}, 1))
}

func ExampleLookup() {
	f, _ := faults.Lookup("weights-ignored")
	fmt.Println(f.Component, f.None())
	// Output: reweighting false
}

// TestMissingZeroGradAccumulates: each step of the faulty GD is −η times
// the sum of every gradient since the start, replayed here from the
// objective's own gradients (∇𝓛 = e^{log 𝓛}·Dir); the first step is GD's.
// Heavy ball is left alone.
func TestMissingZeroGradAccumulates(t *testing.T) {
	f, err := faults.Lookup("missing-zero-grad")
	require.NoError(t, err)
	obj, theta := problem(t)
	const eta, steps = 0.1, 6
	tr, err := train.Run(obj, f.Optimizer(mustGD(t)), append([]float64(nil), theta...), train.Config{Steps: steps, KeepTheta: true})
	require.NoError(t, err)
	require.Len(t, tr.Records, steps+1)
	sum := make([]float64, len(theta))
	for i := 0; i < steps; i++ {
		th := tr.Records[i].Theta
		ev, err := obj.Evaluate(th, true)
		require.NoError(t, err)
		for k, d := range ev.Dir {
			sum[k] += math.Exp(ev.LogObjective) * d
		}
		for k := range th {
			assert.InDelta(t, th[k]-eta*sum[k], tr.Records[i+1].Theta[k], 1e-14, "step %d, θ_%d", i, k)
		}
	}
	gd, err := train.Run(obj, mustGD(t), append([]float64(nil), theta...), train.Config{Steps: 1})
	require.NoError(t, err)
	assert.Equal(t, gd.Theta, tr.Records[1].Theta, "the first step is GD's, bit for bit")

	// A run continued through several Runs (train.RunWindows) keeps
	// accumulating: Reset does not clear the buffer.
	opt := f.Optimizer(mustGD(t))
	th := append([]float64(nil), theta...)
	for range 2 {
		_, err = train.Run(obj, opt, th, train.Config{Steps: steps / 2})
		require.NoError(t, err)
	}
	assert.Equal(t, tr.Theta, th, "two runs of %d steps are one of %d", steps/2, steps)

	hb, err := train.NewMomentum(0.1, 0.9)
	require.NoError(t, err)
	assert.Same(t, train.Optimizer(hb), f.Optimizer(hb), "heavy ball is not GD: left alone")
}

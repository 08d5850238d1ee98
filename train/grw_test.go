package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

func regressionData(r *rand.Rand, n, d int) *dataset.Dataset {
	ds := &dataset.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := range ds.X {
		ds.X[i] = r.NormFloat64()
	}
	for i := range ds.Y {
		ds.Y[i] = r.NormFloat64()
	}
	return ds
}

func onSimplex(t *testing.T, q []float64) {
	t.Helper()
	for _, v := range q {
		assert.GreaterOrEqual(t, v, 0.0)
	}
	assert.InDelta(t, 1, floats.Sum(q), 1e-14)
}

func logs(l []float64) []float64 {
	out := make([]float64, len(l))
	for i, v := range l {
		out[i] = math.Log(v)
	}
	return out
}

func TestStaticSchemes(t *testing.T) {
	d := &dataset.Dataset{N: 5, D: 1, X: make([]float64, 5), Y: []float64{1, 1, 1, -1, 1}}
	q := make([]float64, 5)
	erm := &ERM{}
	require.NoError(t, erm.Start(d))
	require.NoError(t, erm.Update(0, nil, q))
	assert.Equal(t, []float64{0.2, 0.2, 0.2, 0.2, 0.2}, q)
	// IW with label groups: y = −1 is group 0 (1 sample), y = 1 group 1
	// (4 samples): q = 1/(2·1) and 1/(2·4).
	iw := &ImportanceWeighting{}
	require.NoError(t, iw.Start(d))
	require.NoError(t, iw.Update(0, nil, q))
	assert.Equal(t, []float64{0.125, 0.125, 0.125, 0.5, 0.125}, q)
	// Explicit groups override labels.
	iw = &ImportanceWeighting{Groups: []int{7, 7, 3, 3, 3}}
	require.NoError(t, iw.Start(d))
	require.NoError(t, iw.Update(0, nil, q))
	assert.InDeltaSlice(t, []float64{0.25, 0.25, 1.0 / 6, 1.0 / 6, 1.0 / 6}, q, 1e-15)
	// The data's group column.
	d.Groups = []int{0, 1, 1, 1, 1}
	iw = &ImportanceWeighting{}
	require.NoError(t, iw.Start(d))
	require.NoError(t, iw.Update(0, nil, q))
	assert.InDeltaSlice(t, []float64{0.5, 0.125, 0.125, 0.125, 0.125}, q, 1e-15)
	st := &Static{W: []float64{1, 2, 3, 4, 10}}
	require.NoError(t, st.Start(d))
	require.NoError(t, st.Update(0, nil, q))
	assert.InDeltaSlice(t, []float64{0.05, 0.1, 0.15, 0.2, 0.5}, q, 1e-15)
	for _, bad := range [][]float64{{1, 2}, {1, -1, 1, 1, 1}, {0, 0, 0, 0, 0}, {1, math.NaN(), 1, 1, 1}, {1, math.Inf(1), 1, 1, 1}} {
		assert.Error(t, (&Static{W: bad}).Start(d), "%v", bad)
	}
	assert.Error(t, (&ImportanceWeighting{Groups: []int{1}}).Start(d))
}

// TestGroupDRO follows eq. 4 by hand for two steps.
func TestGroupDRO(t *testing.T) {
	d := &dataset.Dataset{N: 3, D: 1, X: make([]float64, 3), Y: []float64{1, 1, -1}}
	w, err := NewGroupDRO(0.5, nil)
	require.NoError(t, err)
	require.NoError(t, w.Start(d))
	// Groups: y = −1 → 0 = {2}, y = 1 → 1 = {0, 1}.
	l := []float64{0.2, 0.4, 1.0}
	q := make([]float64, 3)
	g := []float64{0.5, 0.5}
	for step := 0; step < 2; step++ {
		require.NoError(t, w.Update(step, logs(l), q))
		r := []float64{1.0, 0.3}
		g[0] *= math.Exp(0.5 * r[0])
		g[1] *= math.Exp(0.5 * r[1])
		s := g[0] + g[1]
		g[0], g[1] = g[0]/s, g[1]/s
		assert.InDeltaSlice(t, []float64{g[1] / 2, g[1] / 2, g[0]}, q, 1e-15)
		onSimplex(t, q)
	}
	gw := make([]float64, 2)
	w.GroupWeights(gw)
	assert.InDeltaSlice(t, g, gw, 1e-15)
	// Zero losses leave the weights where they are.
	before := append([]float64(nil), q...)
	require.NoError(t, w.Update(2, []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}, q))
	assert.InDeltaSlice(t, before, q, 1e-15)
	_, err = NewGroupDRO(0, nil)
	assert.Error(t, err)
}

// chi2Bisect solves R(η) = 1 + 2ρ by bisection on the monotone R, an
// independent route to the χ²-DRO weights.
func chi2Bisect(l []float64, rho float64) []float64 {
	n := float64(len(l))
	top := floats.Max(l)
	ratio := func(eta float64) float64 {
		var s1, s2 float64
		for _, v := range l {
			p := max(v-eta, 0)
			s1 += p
			s2 += p * p
		}
		return n * s2 / (s1 * s1)
	}
	lo, hi := floats.Min(l)-1e6*(top+1), top
	for i := 0; i < 300; i++ {
		mid := (lo + hi) / 2
		if ratio(mid) < 1+2*rho {
			lo = mid
		} else {
			hi = mid
		}
	}
	q := make([]float64, len(l))
	for i, v := range l {
		q[i] = max(v-lo, 0)
	}
	normalize(q)
	return q
}

func chi2Div(q []float64) float64 {
	n := float64(len(q))
	var s float64
	for _, v := range q {
		s += (n*v - 1) * (n*v - 1)
	}
	return s / (2 * n)
}

func TestChiSquareDRO(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(12)
		rho := math.Pow(10, -2+3*r.Float64())
		l := make([]float64, n)
		for i := range l {
			l[i] = math.Exp(3 * r.NormFloat64())
			if r.IntN(4) == 0 && i > 0 {
				l[i] = l[r.IntN(i)] // ties
			}
		}
		w, err := NewChiSquareDRO(rho)
		require.NoError(t, err)
		require.NoError(t, w.Start(&dataset.Dataset{N: n}))
		q := make([]float64, n)
		require.NoError(t, w.Update(0, logs(l), q))
		onSimplex(t, q)
		div := chi2Div(q)
		assert.LessOrEqual(t, div, rho*(1+1e-9)+1e-12, "n=%d ρ=%g", n, rho)
		c := 0
		for _, v := range l {
			if v == floats.Max(l) {
				c++
			}
		}
		if float64(n)/float64(c) > 1+2*rho {
			// The constraint binds, and bisection finds the same weights.
			assert.InDelta(t, rho, div, 1e-9*rho, "n=%d ρ=%g", n, rho)
			assert.InDeltaSlice(t, chi2Bisect(l, rho), q, 1e-9, "n=%d ρ=%g l=%v", n, rho, l)
		}
		// No feasible point does better: random points of the ball.
		val := floats.Dot(q, l)
		for k := 0; k < 50; k++ {
			p := make([]float64, n)
			for i := range p {
				p[i] = r.Float64()
			}
			normalize(p)
			// Shrink toward uniform until inside the ball.
			for chi2Div(p) > rho {
				for i := range p {
					p[i] = 0.5*p[i] + 0.5/float64(n)
				}
			}
			assert.LessOrEqual(t, floats.Dot(p, l), val*(1+1e-12))
		}
	}
	w, _ := NewChiSquareDRO(1)
	require.NoError(t, w.Start(&dataset.Dataset{N: 2}))
	q := make([]float64, 2)
	require.NoError(t, w.Update(0, []float64{math.Inf(-1), math.Inf(-1)}, q))
	assert.Equal(t, []float64{0.5, 0.5}, q)
	assert.Error(t, w.Update(0, []float64{math.NaN(), 0}, q))
	_, err := NewChiSquareDRO(-1)
	assert.Error(t, err)
}

func TestCVaRDRO(t *testing.T) {
	w, err := NewCVaRDRO(0.4)
	require.NoError(t, err)
	require.NoError(t, w.Start(&dataset.Dataset{N: 5}))
	q := make([]float64, 5)
	// αn = 2: weight 1/2 on the two largest losses.
	require.NoError(t, w.Update(0, logs([]float64{1, 5, 2, 4, 3}), q))
	assert.InDeltaSlice(t, []float64{0, 0.5, 0, 0.5, 0}, q, 1e-15)
	w, _ = NewCVaRDRO(0.5) // αn = 2.5: 0.4, 0.4, 0.2.
	require.NoError(t, w.Start(&dataset.Dataset{N: 5}))
	require.NoError(t, w.Update(0, logs([]float64{1, 5, 2, 4, 3}), q))
	assert.InDeltaSlice(t, []float64{0, 0.4, 0, 0.4, 0.2}, q, 1e-15)
	w, _ = NewCVaRDRO(1)
	require.NoError(t, w.Start(&dataset.Dataset{N: 5}))
	require.NoError(t, w.Update(0, logs([]float64{1, 5, 2, 4, 3}), q))
	assert.InDeltaSlice(t, []float64{0.2, 0.2, 0.2, 0.2, 0.2}, q, 1e-15)
	for _, a := range []float64{0, -1, 1.5, math.NaN()} {
		_, err := NewCVaRDRO(a)
		assert.Error(t, err)
	}
}

func TestParseWeighting(t *testing.T) {
	for spec, name := range map[string]string{"erm": "erm", "iw": "iw", "gdro": "gdro", "gdro:0.5": "gdro", "chi2:2": "chi2", "cvar:0.3": "cvar", "cvar": "cvar", "chi2": "chi2"} {
		w, err := ParseWeighting(spec, nil)
		require.NoError(t, err, spec)
		assert.Equal(t, name, w.Scheme().String())
	}
	g, _ := ParseWeighting("gdro:0.5", nil)
	assert.Equal(t, 0.5, g.(*GroupDRO).Nu)
	for _, bad := range []string{"dro", "gdro:x", "gdro:-1", "cvar:2", "chi2:0", "erm:1", "gdro:NaN"} {
		_, err := ParseWeighting(bad, nil)
		assert.Error(t, err, bad)
	}
}

// TestReweight: reweighting an evaluation equals evaluating with the new
// weights, bit for bit on the loss and to rounding on the gradient.
func TestReweight(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	d := regressionData(r, 6, 4)
	obj, err := NewObjective(mustLinear(t, 4), losses.Squared{}, d)
	require.NoError(t, err)
	obj.Reg = L2{Mu: 0.3, Theta0: []float64{1, 0, 0, 1}}
	theta := []float64{0.3, -0.2, 0.5, 0.1}
	_, err = obj.Reweight(make([]float64, 6), true)
	assert.ErrorIs(t, err, ErrNoEvaluation)
	_, err = obj.Evaluate(theta, false)
	require.NoError(t, err)
	w := []float64{0.1, 0.3, 0, 0.2, 0.15, 0.25}
	ev, err := obj.Reweight(w, true)
	require.NoError(t, err)
	got := *ev
	gotDir := append([]float64(nil), ev.Dir...)

	ref, err := NewObjective(mustLinear(t, 4), losses.Squared{}, d)
	require.NoError(t, err)
	ref.Reg = obj.Reg
	require.NoError(t, ref.SetWeights(w))
	want, err := ref.Evaluate(theta, true)
	require.NoError(t, err)
	assert.InDelta(t, want.LogLoss, got.LogLoss, 1e-15)
	assert.InDelta(t, want.LogObjective, got.LogObjective, 1e-15)
	assert.InDeltaSlice(t, want.Dir, gotDir, 1e-15)
	// The cache now holds the reweighted gradient.
	again, err := obj.Evaluate(theta, true)
	require.NoError(t, err)
	assert.Equal(t, gotDir, again.Dir)
	_, err = obj.Reweight([]float64{1}, false)
	assert.Error(t, err)
	_, err = obj.Reweight([]float64{1, 1, 1, -1, 1, 1}, false)
	assert.Error(t, err)
}

// TestRunWithWeighting: GD with a static scheme through Run equals GD on
// the objective with those weights set, and the records keep the weights.
func TestRunWithWeighting(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	d := regressionData(r, 5, 8)
	w := []float64{0.1, 0.2, 0.3, 0.15, 0.25}
	objA, _ := NewObjective(mustLinear(t, 8), losses.Squared{}, d)
	objB, _ := NewObjective(mustLinear(t, 8), losses.Squared{}, d)
	require.NoError(t, objB.SetWeights(w))
	gd, _ := NewGD(0.2)
	thA, thB := make([]float64, 8), make([]float64, 8)
	trA, err := Run(objA, gd, thA, Config{Steps: 50, Every: 10, Weighting: &Static{W: w}, KeepWeights: true})
	require.NoError(t, err)
	_, err = Run(objB, gd, thB, Config{Steps: 50})
	require.NoError(t, err)
	assert.InDeltaSlice(t, thB, thA, 1e-14)
	assert.Equal(t, Scheme{Kind: StaticScheme}, trA.Scheme)
	assert.True(t, trA.Scheme.Fixed())
	assert.InDeltaSlice(t, w, trA.Weights, 1e-15)
	assert.Len(t, trA.Records, 6)
	assert.InDeltaSlice(t, w, trA.Records[3].Weights, 1e-15)
	// A scheme that fails to start stops the run before any step.
	_, err = Run(objA, gd, thA, Config{Steps: 5, Weighting: &Static{W: []float64{1}}})
	assert.Error(t, err)
}

// TestMomentumAndAdam: momentum with β → 0 is GD; both reduce a quadratic;
// a second run starts from a reset state.
func TestMomentumAndAdam(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	d := regressionData(r, 4, 10)
	obj, _ := NewObjective(mustLinear(t, 10), losses.Squared{}, d)
	for _, name := range []string{"momentum", "adam"} {
		opt, err := NewOptimizer(name, OptimizerOptions{LR: 0.01})
		require.NoError(t, err)
		th := make([]float64, 10)
		tr, err := Run(obj, opt, th, Config{Steps: 3000, Every: 3000})
		require.NoError(t, err)
		assert.Less(t, tr.Final().LogLoss, tr.Records[0].LogLoss-5, name)
		th2 := make([]float64, 10)
		_, err = Run(obj, opt, th2, Config{Steps: 3000, Every: 3000})
		require.NoError(t, err)
		assert.Equal(t, th, th2, "%s: a rerun must start from a reset state", name)
	}
	for _, bad := range []OptimizerOptions{{LR: 0}, {LR: 1, Momentum: 1}, {LR: 1, Beta1: 1}, {LR: 1, Epsilon: -1}} {
		_, err1 := NewOptimizer("momentum", bad)
		_, err2 := NewOptimizer("adam", bad)
		assert.True(t, err1 != nil || err2 != nil, "%+v", bad)
	}
}

func grwBenchObjective(b *testing.B) (*Objective, []float64) {
	r := rand.New(rand.NewPCG(4, 9))
	d := regressionData(r, 10, 100)
	obj, err := NewObjective(mustLinear(b, 100), losses.Squared{}, d)
	if err != nil {
		b.Fatal(err)
	}
	return obj, make([]float64, 100)
}

func benchStep(b *testing.B, opt Optimizer, w Weighting) {
	obj, th := grwBenchObjective(b)
	q := make([]float64, obj.Data.N)
	if w != nil {
		if err := w.Start(obj.Data); err != nil {
			b.Fatal(err)
		}
	}
	if r, ok := opt.(Resetter); ok {
		r.Reset(len(th))
	}
	b.ReportAllocs()
	t := 0
	for b.Loop() {
		ev, err := obj.Evaluate(th, w == nil)
		if err == nil && w != nil {
			ev, err = reweightStep(obj, w, t, q, true)
		}
		if err != nil {
			b.Fatal(err)
		}
		if _, err := opt.Step(obj, th, ev); err != nil {
			b.Fatal(err)
		}
		t++
	}
}

// Benchmarks of one training step (evaluation, weights, optimizer): none
// allocates.
func BenchmarkStepMomentum(b *testing.B) {
	m, _ := NewMomentum(1e-3, 0.5)
	benchStep(b, m, nil)
}

func BenchmarkStepAdam(b *testing.B) {
	a, _ := NewAdam(1e-3, 0, 0, 0)
	benchStep(b, a, nil)
}

func BenchmarkStepGroupDRO(b *testing.B) {
	g, _ := NewGroupDRO(0.1, []int{0, 0, 1, 1, 1, 2, 2, 2, 2, 2})
	gd, _ := NewGD(1e-3)
	benchStep(b, gd, g)
}

func BenchmarkStepChiSquare(b *testing.B) {
	c, _ := NewChiSquareDRO(1)
	gd, _ := NewGD(1e-3)
	benchStep(b, gd, c)
}

func BenchmarkStepCVaR(b *testing.B) {
	c, _ := NewCVaRDRO(0.3)
	gd, _ := NewGD(1e-3)
	benchStep(b, gd, c)
}

package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/internal/linalg"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// blobs returns n samples per class of k well-separated Gaussian blobs in
// d dimensions: class c has mean 4·e_c (e_c the c-th unit vector) and unit
// variance per coordinate, so it is separable with high probability for
// the sizes used here (the means are 4√2 apart).
func blobs(seed uint64, k, n, d int) *dataset.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	ds := &dataset.Dataset{N: k * n, D: d}
	for i := 0; i < k*n; i++ {
		c := i % k
		for j := 0; j < d; j++ {
			v := r.NormFloat64()
			if j == c {
				v += 4
			}
			ds.X = append(ds.X, v)
		}
		ds.Y = append(ds.Y, float64(c))
	}
	return ds
}

func newSGDTest(t *testing.T, spec string, d *dataset.Dataset, cfg SGDConfig) (*SGD, []float64) {
	t.Helper()
	m, err := models.Parse(spec, d.D)
	require.NoError(t, err)
	s, err := NewSGD(m, losses.CrossEntropy{}, d, cfg)
	require.NoError(t, err)
	theta := make([]float64, m.NumParams())
	m.Init(rand.New(rand.NewPCG(cfg.Seed, 1)), theta)
	return s, theta
}

// TestSGDFits: on three separable blobs both schedules fit the training
// set. The limit is computed, not a ratio: for cross-entropy ℓ_n < log 2
// implies q_n > 0 (ℓ = log(1 + Σ_{j≠y} e^{−(s_y−s_j)}) < log 2 needs every
// e^{−(s_y−s_j)} < 1), so a mean loss below log(2)/N classifies every
// sample; the test asks for that and checks the accuracy agrees. Every
// loss-based epoch that stands has a strictly lower loss (the schedule's
// acceptance rule), and the loss-based run, whose loss falls exponentially
// (LL App. K.1) where the constant rate's falls like 1/t, ends below the
// constant rate's run from the same θ and batches.
func TestSGDFits(t *testing.T) {
	d := blobs(1, 3, 20, 4)
	limit := math.Log(math.Ln2 / float64(d.N))
	final := map[bool]float64{}
	for _, tc := range []struct {
		name string
		cfg  SGDConfig
	}{
		{"constant", SGDConfig{Batch: 10, Seed: 3, LR: 0.1}},
		{"loss-based", SGDConfig{Batch: 10, Seed: 3, LossBased: true}},
	} {
		s, theta := newSGDTest(t, "mlp:relu:2x16/3", d, tc.cfg)
		start, err := s.Evaluate(theta, d)
		require.NoError(t, err)
		prev := start.LogLoss
		for e := 0; e < 60; e++ {
			st, err := s.Epoch(theta)
			require.NoError(t, err, tc.name)
			assert.Equal(t, e+1, st.Epoch)
			assert.Equal(t, 6, st.Steps)
			if tc.cfg.LossBased {
				assert.Less(t, st.LogLoss, prev, "%s: epoch %d", tc.name, st.Epoch)
				assert.False(t, math.IsNaN(st.LogAlpha))
			} else {
				assert.True(t, math.IsNaN(st.LogAlpha))
			}
			prev = st.LogLoss
		}
		end, err := s.Evaluate(theta, d)
		require.NoError(t, err)
		assert.Equal(t, prev, end.LogLoss, "%s: the epoch reports the loss Evaluate finds", tc.name)
		assert.Less(t, end.LogLoss, limit, "%s: log 𝓛̄ = %v from %v", tc.name, end.LogLoss, start.LogLoss)
		assert.Equal(t, d.N, end.Correct, tc.name)
		assert.Greater(t, end.QMin, 0.0, tc.name)
		final[tc.cfg.LossBased] = end.LogLoss
	}
	assert.Less(t, final[true], final[false], "loss-based log 𝓛̄ %v, constant %v", final[true], final[false])
}

// TestSGDRollback: a huge α(0) makes the first epoch overshoot; it is
// rolled back and retried with α/r_d until the loss decreases. The result
// must be exactly that of a run started with the α that stood: the
// rollback restores θ bit for bit (and the retry reuses the permutation).
func TestSGDRollback(t *testing.T) {
	d := blobs(2, 3, 10, 4)
	cfg := SGDConfig{Batch: 10, Seed: 5, LR: 1e3, LossBased: true}
	a, thetaA := newSGDTest(t, "mlp:relu:2x8/3", d, cfg)
	theta0 := append([]float64(nil), thetaA...)
	st, err := a.Epoch(thetaA)
	require.NoError(t, err)
	require.Positive(t, st.Retries, "α(0) = 1000 should overshoot: the test would not see a rollback")
	assert.Equal(t, st.Retries, a.Rejected)
	want := math.Log(1e3)
	for range st.Retries {
		want -= lossBasedLogDn
	}
	assert.Equal(t, want, st.LogAlpha, "α shrinks by r_d per rollback")
	assert.Equal(t, st.LogAlpha+LossBasedLogUp, a.LogAlpha, "and grows by r_u after the success")

	b, thetaB := newSGDTest(t, "mlp:relu:2x8/3", d, cfg)
	require.Equal(t, theta0, thetaB)
	b.LogAlpha = st.LogAlpha
	stB, err := b.Epoch(thetaB)
	require.NoError(t, err)
	assert.Zero(t, stB.Retries)
	assert.Equal(t, st.LogLoss, stB.LogLoss)
	for i := range thetaA {
		require.Equal(t, math.Float64bits(thetaB[i]), math.Float64bits(thetaA[i]), "θ[%d]", i)
	}
}

// TestSGDStalls: where no step can lower the loss (all inputs 0, so a
// bias-free network outputs 0 and 𝓛̄ = log 3 whatever θ), every run of the
// epoch is rolled back: after sgdMaxRetries the epoch reports ErrStalled
// and θ is the starting θ bit for bit.
func TestSGDStalls(t *testing.T) {
	d := &dataset.Dataset{N: 3, D: 2, X: make([]float64, 6), Y: []float64{0, 1, 2}}
	s, theta := newSGDTest(t, "mlp:relu:2x4/3", d, SGDConfig{Batch: 2, Seed: 1, LossBased: true})
	theta0 := append([]float64(nil), theta...)
	st, err := s.Epoch(theta)
	require.ErrorIs(t, err, ErrStalled)
	assert.Equal(t, sgdMaxRetries, st.Retries)
	assert.Equal(t, sgdMaxRetries, s.Rejected)
	assert.Equal(t, theta0, theta)
}

// TestSGDZeroLoss: an exact fit (squared loss 0, log 𝓛̄ = −∞) leaves the
// loss-based schedule nothing to decrease: ErrStalled at once, θ as it was.
func TestSGDZeroLoss(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 1, X: []float64{0, 0}, Y: []float64{0, 0}}
	m, err := models.Parse("linear", 1)
	require.NoError(t, err)
	s, err := NewSGD(m, losses.Squared{}, d, SGDConfig{Batch: 1, LossBased: true})
	require.NoError(t, err)
	theta := []float64{0.5}
	st, err := s.Epoch(theta)
	require.ErrorIs(t, err, ErrStalled)
	assert.Zero(t, st.Retries)
	assert.Equal(t, []float64{0.5}, theta)
	sum, err := s.Evaluate(theta, d)
	require.NoError(t, err)
	assert.True(t, math.IsInf(sum.LogLoss, -1))
	assert.True(t, math.IsNaN(sum.QMin), "no margin for regression")
}

// TestSGDDeterministic: the same seed gives the same bits, with one
// thread and with several (a 2-D CNN whose products split across threads:
// linalg.ParallelProducts rises), and another seed another run.
func TestSGDDeterministic(t *testing.T) {
	// 12×12 images, class c brighter in rows 4c … 4c+3: learnable.
	r := rand.New(rand.NewPCG(9, 9))
	d := &dataset.Dataset{N: 60, D: 144}
	for i := 0; i < d.N; i++ {
		for j := 0; j < d.D; j++ {
			v := 0.5 * r.Float64()
			if j/12/4 == i%3 {
				v += 0.5
			}
			d.X = append(d.X, v)
		}
		d.Y = append(d.Y, float64(i%3))
	}
	const spec = "cnn2d:12x12x1:relu:32c3-max2:16:3+bias@1"
	run := func(procs int, seed uint64) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		s, theta := newSGDTest(t, spec, d, SGDConfig{Batch: 30, Seed: seed, LossBased: true})
		for e := 0; e < 2; e++ {
			_, err := s.Epoch(theta)
			require.NoError(t, err)
		}
		return theta
	}
	one := run(1, 1)
	before := linalg.ParallelProducts()
	four := run(4, 1)
	require.Greater(t, linalg.ParallelProducts(), before, "no product split: the test would be vacuous")
	for i := range one {
		require.Equal(t, math.Float64bits(one[i]), math.Float64bits(four[i]), "θ[%d]", i)
	}
	assert.NotEqual(t, one, run(1, 2), "another seed, another shuffle")
}

// TestSGDShuffle: each epoch visits every sample once, in a new order.
func TestSGDShuffle(t *testing.T) {
	d := blobs(3, 2, 10, 3)
	s, theta := newSGDTest(t, "mlp:relu:2x4/2", d, SGDConfig{Batch: 7, Seed: 4, LR: 0.1})
	var orders [][]int
	for e := 0; e < 3; e++ {
		st, err := s.Epoch(theta)
		require.NoError(t, err)
		assert.Equal(t, 3, st.Steps, "20 samples in batches of 7: 7, 7, 6")
		seen := make([]bool, d.N)
		for _, i := range s.perm {
			require.False(t, seen[i], "sample %d twice", i)
			seen[i] = true
		}
		orders = append(orders, append([]int(nil), s.perm...))
	}
	assert.NotEqual(t, orders[0], orders[1])
	assert.NotEqual(t, orders[1], orders[2])
}

// TestSGDNoAllocs: an epoch (batches, steps, the evaluation) does not
// allocate once the SGD is made.
func TestSGDNoAllocs(t *testing.T) {
	d := blobs(4, 3, 10, 4)
	s, theta := newSGDTest(t, "mlp:relu:2x8/3", d, SGDConfig{Batch: 8, Seed: 1, LossBased: true})
	_, err := s.Epoch(theta)
	require.NoError(t, err)
	if a := testing.AllocsPerRun(5, func() { _, _ = s.Epoch(theta) }); a != 0 {
		t.Errorf("an epoch allocates %v times", a)
	}
}

func TestSGDErrors(t *testing.T) {
	d := blobs(5, 3, 4, 4)
	m, err := models.Parse("mlp:relu:2x4/3", 4)
	require.NoError(t, err)
	m5, err := models.Parse("mlp:relu:2x4/3", 5)
	require.NoError(t, err)
	m1, err := models.Parse("mlp:relu:2x4", 4)
	require.NoError(t, err)
	ce := losses.CrossEntropy{}
	for _, tc := range []struct {
		name string
		m    models.Model
		l    losses.Loss
		d    *dataset.Dataset
		cfg  SGDConfig
		want string
	}{
		{"batch", m, ce, d, SGDConfig{Batch: 0, LR: 0.1}, "batch size must be ≥ 1"},
		{"lr", m, ce, d, SGDConfig{Batch: 4}, "learning rate must be a finite number > 0"},
		{"alpha", m, ce, d, SGDConfig{Batch: 4, LR: math.Inf(1), LossBased: true}, "α(0) must be a finite number > 0"},
		{"features", m5, ce, d, SGDConfig{Batch: 4, LR: 0.1}, "takes 5 inputs, data have 4 features"},
		{"outputs", m1, ce, d, SGDConfig{Batch: 4, LR: 0.1}, "needs ≥ 2 outputs"},
		{"labels", m, ce, &dataset.Dataset{N: 1, D: 4, X: make([]float64, 4), Y: []float64{3}}, SGDConfig{Batch: 4, LR: 0.1}, "3-class losses need labels 0…2"},
		{"nil", nil, ce, d, SGDConfig{Batch: 4, LR: 0.1}, "needs a model"},
	} {
		_, err := NewSGD(tc.m, tc.l, tc.d, tc.cfg)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}

	s, theta := newSGDTest(t, "mlp:relu:2x4/3", d, SGDConfig{Batch: 4, Seed: 1, LR: 0.1})
	_, err = s.Epoch(theta[1:])
	assert.ErrorContains(t, err, "θ has")
	theta[0] = math.NaN()
	_, err = s.Epoch(theta)
	assert.True(t, errors.Is(err, ErrNonFinite), "NaN θ: %v", err)
	_, err = s.Evaluate(theta, &dataset.Dataset{N: 1, D: 3, X: make([]float64, 3), Y: []float64{0}})
	assert.ErrorContains(t, err, "data have 3 features")
}

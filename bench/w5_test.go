package bench

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/models"
)

// TestW5Step: one engine step of W5 (train.Objective with weights 1/N and
// train.GD) is θ₁ = θ₀ − η·(1/N) Σ_i ∇_θ ℓ(Φ(x_i); y_i), computed here
// without the log domain: ∂ℓ/∂s_j = softmax_j(s) − [j = y] with plain
// exponentials (the scores are O(1) at θ₀), then the model's backward pass
// (checked against finite differences in package models). The two differ
// only in rounding: 1e-12 relative to the largest update leaves a factor
// ~1000 over the ulps of these sums, and a step size off by 1e-6, or a sum
// where the mean belongs, is far outside it.
func TestW5Step(t *testing.T) {
	w, err := Lookup("w5")
	require.NoError(t, err)
	p, err := w.Generate(1)
	require.NoError(t, err)
	r, err := NewRunner(p)
	require.NoError(t, err)
	require.NoError(t, r.Steps(1))

	m, err := models.Parse(w.Spec(), w.D)
	require.NoError(t, err)
	ws := m.NewWorkspace(w.N)
	s := m.Forward(ws, p.Theta0, p.X, w.N)
	g := make([]float64, len(s))
	k := m.Out()
	for i := 0; i < w.N; i++ {
		row := s[i*k : (i+1)*k]
		var z float64
		for _, v := range row {
			z += math.Exp(v)
		}
		for j, v := range row {
			g[i*k+j] = math.Exp(v) / z / float64(w.N)
		}
		g[i*k+int(p.Y[i])] -= 1 / float64(w.N)
	}
	grad := make([]float64, m.NumParams())
	m.Backward(ws, p.Theta0, g, grad)
	var scale float64
	for _, v := range grad {
		scale = math.Max(scale, math.Abs(p.LR*v))
	}
	require.Positive(t, scale)
	for name, eta := range map[string]float64{"η": p.LR, "η(1+1e-6)": p.LR * (1 + 1e-6)} {
		var worst float64
		for j, v := range grad {
			worst = math.Max(worst, math.Abs(p.Theta0[j]-eta*v-r.Theta[j]))
		}
		if name == "η" {
			assert.LessOrEqual(t, worst/scale, 1e-12, "engine and hand step differ by %.1e of the largest update", worst/scale)
		} else {
			assert.Greater(t, worst/scale, 1e-12, "negative control %s: %.1e", name, worst/scale)
		}
	}
	// A step allocates nothing (on the same runner: W5's setup is the
	// expensive part).
	assert.Zero(t, testing.AllocsPerRun(1, func() { _ = r.Steps(1) }), "allocations per step")
}

// TestW5Problem: the problem's shape, data and FLOP count. (Its JSON form
// is WriteJSON's, tested on W1–W4: 3.2 M parameters take seconds to encode.)
func TestW5Problem(t *testing.T) {
	w, err := Lookup("W5")
	require.NoError(t, err)
	assert.True(t, w.CNN)
	assert.Equal(t, "cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1", w.Spec())
	assert.Nil(t, w.Dims())
	// 2·100·(2·627 200 + 3·(3 612 672 + 3 211 264 + 10 240)) multiply-adds.
	assert.Equal(t, 2*100*(2*627200+3*(3612672+3211264+10240.0)), w.FLOPs())
	assert.InDelta(t, 4.35e9, w.FLOPs(), 0.01e9)
	p, err := w.Generate(2)
	require.NoError(t, err)
	require.NoError(t, p.check())
	for i, v := range p.X {
		require.Equal(t, math.Round(v*255), v*255, "pixel %d is not k/255", i)
	}
	bad := *p
	bad.Y = append([]float64(nil), p.Y...)
	bad.Y[0] = 10
	assert.ErrorContains(t, bad.check(), "10-class losses need labels 0…9")
}

package models_test

// Edges of the spec grammar and the activations that the other tests do not
// reach (found by mutation testing, scripts/mutation).

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/models"
)

// TestSpecBounds: the smallest and largest values the grammar admits build,
// the next ones out do not.
func TestSpecBounds(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
		ok   bool
	}{
		{"linear", 1, true},           // In ≥ 1
		{"mlp:relu:2x1", 1, true},     // width ≥ 1
		{"mlp:lrelu0.5:2x3", 2, true}, // slope in (0, 1)
		{"mlp:lrelu0:2x3", 2, false},
		{"mlp:lrelu1:2x3", 2, false},
		{"mlp:relu1:2x3", 2, true}, // power in [1, 8]
		{"mlp:relu8:2x3", 2, true},
		{"mlp:relu9:2x3", 2, false},
		{"cnn:relu:2c2-max3", 4, true}, // pool size = remaining length (4 − 2 + 1 = 3)
		{"cnn:relu:2c2-max4", 4, false},
		{"cnn:relu:2c2-avg1", 4, true}, // pool size ≥ 1
		{"cnn:relu:2c4", 4, true},      // kernel = length
		{"cnn:relu:2c5", 4, false},
		{"cnn:relu:2c2:1", 4, true}, // dense width ≥ 1
		{"cnn:relu:2c2:3+bias@3", 4, true},
		{"cnn:relu:2c2:3+bias@4", 4, false},
		{"mlp:relu:2x3+bias@2", 2, true},
		{"mlp:relu:2x3+bias@3", 2, false},
	} {
		m, err := models.Parse(tc.spec, tc.in)
		if tc.ok {
			if assert.NoError(t, err, tc.spec) {
				assert.Equal(t, tc.in, m.In(), tc.spec)
			}
		} else {
			assert.Error(t, err, tc.spec)
		}
	}
}

// TestKinkConvention: at z = 0 every piecewise activation takes the left
// piece, value and derivative (ReLU's σ′ = [z > 0]): leaky ReLU has
// σ′(0) = α, ReLU¹ σ′(0) = 0. Checked through the gradient of a one-layer
// network at an input where the pre-activation is exactly 0.
func TestKinkConvention(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		slope float64 // σ′(0)
	}{{"mlp:lrelu0.25:2x1", 0.25}, {"mlp:relu1:2x1", 0}, {"mlp:relu:2x1", 0}} {
		m, err := models.Parse(tc.spec, 1)
		require.NoError(t, err)
		// Φ(θ; x) = v·σ(w·x) with θ = (w, v): at x = 0 the pre-activation
		// is 0 and ∂Φ/∂w = v·σ′(0)·x = 0, ∂Φ/∂v = σ(0) = 0; at x = 1 with
		// w = 0 it is 0 too and ∂Φ/∂w = v·σ′(0).
		theta := []float64{0, 2}
		ws := m.NewWorkspace(1)
		out := m.Forward(ws, theta, []float64{1}, 1)
		assert.Equal(t, 0.0, out[0], tc.spec)
		grad := make([]float64, 2)
		m.Backward(ws, theta, []float64{1}, grad)
		assert.Equal(t, 2*tc.slope, grad[0], "%s: ∂Φ/∂w = v·σ′(0)", tc.spec)
	}
}

// TestPatternDistinguishesUnits: the activation pattern records each unit
// on its own: two states of a width-16 ReLU layer that differ only in
// which unit is active (0 or 8: the same bit of different bytes) have
// different patterns.
func TestPatternDistinguishesUnits(t *testing.T) {
	m, err := models.Parse("mlp:relu:2x16", 1)
	require.NoError(t, err)
	var k models.Kinked = m
	require.True(t, m.Kinked())
	pattern := func(unit int) []byte {
		theta := make([]float64, m.NumParams())
		theta[unit] = 1 // first layer: w_unit = 1, the others 0
		ws := m.NewWorkspace(1)
		m.Forward(ws, theta, []float64{1}, 1)
		return k.Pattern(ws, nil)
	}
	assert.NotEqual(t, pattern(0), pattern(8))
	assert.Equal(t, pattern(3), pattern(3))
}

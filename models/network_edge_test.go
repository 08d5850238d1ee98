package models

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNewNetworkLimits: newNetwork rejects a layer without outputs, and a
// network over maxParams parameters (counted over all layers) or with a
// layer of more than maxParams units; exactly maxParams of either builds.
// The layers are descriptions (no weights are allocated), so the limits are
// cheap to probe.
func TestNewNetworkLimits(t *testing.T) {
	half := 1 << 13 // a 2^13 × 2^13 dense layer has 2^26 = maxParams/2 weights
	for _, tc := range []struct {
		name   string
		layers []layer
		err    string
	}{
		{"no outputs", []layer{&dense{in: 2, out: 0}}, "has no outputs"},
		{"no outputs, second layer (named by its 1-based number)", []layer{&dense{in: 2, out: 3}, &dense{in: 3, out: 0}}, "layer 2 ("},
		{"two halves: exactly maxParams", []layer{&dense{in: half, out: half}, &dense{in: half, out: half}}, ""},
		{"three halves: over, though each layer is under", []layer{&dense{in: half, out: half}, &dense{in: half, out: half}, &dense{in: half, out: half}}, "more than"},
		{"maxParams units", []layer{&dense{in: 1, out: maxParams}}, ""},
		{"maxParams+1 units", []layer{&actLayer{act: ActReLU, dim: maxParams + 1}}, "more than"},
	} {
		net, err := newNetwork(tc.name, tc.layers)
		if tc.err == "" {
			if assert.NoError(t, err, tc.name) {
				assert.LessOrEqual(t, net.NumParams(), maxParams, tc.name)
			}
			continue
		}
		assert.ErrorContains(t, err, tc.err, tc.name)
	}
}

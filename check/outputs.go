package check

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/models"
)

// MappingTolerance bounds ‖Φ_engine − Φ_run‖∞/‖Φ_run‖∞ for the outputs a run
// recorded at its last θ (the demand on the mapping, 1e-12). Where
// it comes from: both sides compute the same sums of products in different
// orders; a forward pass of H layers whose widest sum has W terms rounds
// each output by at most about 2·H·W·u times the sum of the magnitudes of
// its terms (u = 2⁻⁵³), 2.8e-14 for the digits nets (H = 2, W = 64), so a
// correct mapping stays two orders of magnitude inside the bound unless the
// outputs cancel to far below their terms. False-alarm rate on a correct
// mapping: 0 on the committed PyTorch runs (worst 1e-15, check_test.go).
// Catches: any layout error — a transposed weight, tensors in the wrong
// order, a wrong activation or slope, a missing bias — which changes the
// outputs at O(1) relative.
const MappingTolerance = 1e-12

// outputsBlock is how many samples CompareOutputs runs at a time.
const outputsBlock = 64

// CompareOutputs runs the model at the last record's θ on the file's X and
// returns the relative difference from the recorded outputs, or an error
// when they differ by more than MappingTolerance (or have another shape).
func CompareOutputs(t *Trajectory, model models.Model) (float64, error) {
	if t.Outputs == nil || t.X == nil {
		return math.NaN(), nil
	}
	if t.D != model.In() {
		return 0, fmt.Errorf("outputs were recorded on the file's X (%d features), the model %s takes %d inputs", t.D, model, model.In())
	}
	if len(t.Outputs) != t.N*model.Out() {
		return 0, fmt.Errorf("outputs has %d values, the model %s gives %d for %d samples", len(t.Outputs), model, t.N*model.Out(), t.N)
	}
	// In blocks of outputsBlock samples: a workspace for all N is as large
	// as the objective's (1.5 GB for LL's CNN on 1 000 images: measured 0.7
	// GB more peak memory for check on it), and the outputs of a sample do
	// not depend on the others.
	b := min(t.N, outputsBlock)
	ws := model.NewWorkspace(b)
	th := t.Theta[len(t.Theta)-1]
	var diff, size float64
	for lo := 0; lo < t.N; lo += b {
		n := min(b, t.N-lo)
		got := model.Forward(ws, th, t.X[lo*t.D:(lo+n)*t.D], n)
		for i, want := range t.Outputs[lo*model.Out() : (lo+n)*model.Out()] {
			diff = math.Max(diff, math.Abs(got[i]-want))
			size = math.Max(size, math.Abs(want))
		}
	}
	rel := diff / size
	if size == 0 {
		rel = diff
	}
	if !(rel <= MappingTolerance) {
		return rel, fmt.Errorf("the mapped model %s does not reproduce the run's outputs: max |Φ − outputs| is %.3g of max |outputs| (bound %g); the layout, order or activation differ (see docs/check.md, or pass the model spec)", model, rel, MappingTolerance)
	}
	return rel, nil
}

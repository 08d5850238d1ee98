package check

import (
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// TestEngineReplaysPyTorchRun starts the engine from the first record of
// the committed PyTorch GD run (as train --init does) and runs its gradient
// descent, η = lr/n on the summed loss, to every recorded step: θ must stay
// within ReplayBound of PyTorch's, relative to ‖θ‖. Where the bound comes
// from: each step of the two implementations rounds differently by a few u
// of ‖θ‖ (the same sums in other orders; u = 2⁻⁵³), so 20000 steps that did
// not contract their differences would add at most about 20000·8u ≈ 2e-11;
// ReplayBound = 1e-10 leaves a factor 5 for the run's transversal growth.
// Measured: 3.0e-16 at step 20000 (the differences do not accumulate). False
// alarms: none (a committed file, a deterministic engine). Catches: a
// mapping, loss, reduction or backward pass that differs from PyTorch's —
// any of them moves θ by O(η‖∇𝓛‖) at the first step, ~1e-2 relative.
func TestEngineReplaysPyTorchRun(t *testing.T) {
	const ReplayBound = 1e-10
	tr, err := ReadFile("testdata/pytorch/digits_gd.npz")
	if err != nil {
		t.Fatal(err)
	}
	m, err := MapModel(tr)
	if err != nil {
		t.Fatal(err)
	}
	model, err := models.Parse(m.Spec, m.In)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := LossFor("", 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := Data(tr, loss)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := train.NewObjective(model, loss, data)
	if err != nil {
		t.Fatal(err)
	}
	gd, err := train.NewOptimizer("gd", train.OptimizerOptions{LR: tr.LR[0] / float64(data.N)})
	if err != nil {
		t.Fatal(err)
	}
	theta := append([]float64(nil), tr.Theta[0]...)
	diff := make([]float64, len(theta))
	worst, done := 0.0, tr.Steps[0]
	for i, s := range tr.Steps[1:] {
		if _, err := train.Run(obj, gd, theta, train.Config{Steps: s - done, Every: s - done}); err != nil {
			t.Fatal(err)
		}
		done = s
		floats.SubTo(diff, theta, tr.Theta[i+1])
		rel := floats.Norm(diff, 2) / floats.Norm(tr.Theta[i+1], 2)
		if !(rel <= ReplayBound) {
			t.Fatalf("step %d: the engine's θ is %.3g (relative) from PyTorch's", s, rel)
		}
		worst = max(worst, rel)
	}
	t.Logf("the engine follows PyTorch's %d steps to %.2g relative", done, worst)
}

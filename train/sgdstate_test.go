package train

import (
	"math"
	"testing"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// TestSGDRestoreErrors: Restore refuses an SGD that has already run, and a
// state that cannot be a loss-based run's; a good state is taken whole.
// (Resuming on the same bits is tested in package experiment,
// TestResumeBitIdentical.)
func TestSGDRestoreErrors(t *testing.T) {
	d := blobs(1, 3, 4, 4)
	m, err := models.Parse("mlp:relu:2x4/3", d.D)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() *SGD {
		s, err := NewSGD(m, losses.CrossEntropy{}, d, SGDConfig{Batch: 4, Seed: 1, LossBased: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	theta := make([]float64, m.NumParams())
	for i := range theta {
		theta[i] = 0.1 * float64(i%7-3)
	}
	ran := fresh()
	if _, err := ran.Epoch(theta); err != nil {
		t.Fatal(err)
	}
	if err := ran.Restore(SGDState{Epoch: 3, LogAlpha: -1}); err == nil {
		t.Error("Restore on an SGD that has run: no error")
	}
	for _, st := range []SGDState{{Epoch: -1, LogAlpha: -1}, {Epoch: 1, LogAlpha: math.NaN()}, {Epoch: 1, LogAlpha: math.Inf(1)}} {
		if err := fresh().Restore(st); err == nil {
			t.Errorf("Restore(%+v): no error", st)
		}
	}
	s := fresh()
	want := SGDState{Epoch: 5, LogAlpha: -1.5, LogLoss: -20, Rejected: 2}
	if err := s.Restore(want); err != nil {
		t.Fatal(err)
	}
	if got := s.State(); got != want {
		t.Errorf("State after Restore: %+v, want %+v", got, want)
	}
}

package train

import (
	"fmt"
	"math"
)

// SGDState is what changes in an SGD from one epoch to the next, besides θ:
// enough to store a run in a checkpoint and to resume it on the same bits.
// The shuffle stream is not stored: it is replayed from the seed (one
// permutation per epoch), which gives the same permutation as the run that
// was stopped.
type SGDState struct {
	// Epoch is the number of epochs run.
	Epoch int
	// LogAlpha is log α for the next epoch (loss-based; NaN otherwise).
	LogAlpha float64
	// LogLoss is log 𝓛̄ at the end of the last epoch (NaN before the first).
	LogLoss float64
	// Rejected counts the epochs rolled back so far.
	Rejected int
}

// State returns s's state after the epochs it has run.
func (s *SGD) State() SGDState {
	return SGDState{Epoch: s.epoch, LogAlpha: s.LogAlpha, LogLoss: s.logMean, Rejected: s.Rejected}
}

// Restore puts an SGD that has run no epoch yet (built by NewSGD with the
// configuration and data of the stopped run) in state st: it replays the
// st.Epoch shuffles of the seeded stream, so the next Epoch draws the
// permutation the stopped run would have drawn, and sets α and 𝓛̄(t−1).
func (s *SGD) Restore(st SGDState) error {
	if s.epoch != 0 {
		return fmt.Errorf("train: SGD restore needs a fresh SGD, this one has run %d epochs", s.epoch)
	}
	if st.Epoch < 0 || st.Rejected < 0 {
		return fmt.Errorf("train: SGD state with %d epochs and %d rejected runs", st.Epoch, st.Rejected)
	}
	if s.cfg.LossBased && (math.IsNaN(st.LogAlpha) || math.IsInf(st.LogAlpha, 0)) {
		return fmt.Errorf("train: SGD state: log α = %v, want a finite number for the loss-based schedule", st.LogAlpha)
	}
	for range st.Epoch {
		s.rng.Shuffle(len(s.perm), func(i, j int) { s.perm[i], s.perm[j] = s.perm[j], s.perm[i] })
	}
	s.epoch, s.LogAlpha, s.logMean, s.Rejected = st.Epoch, st.LogAlpha, st.LogLoss, st.Rejected
	return nil
}

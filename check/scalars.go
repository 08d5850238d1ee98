package check

import (
	"errors"
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// Scalars are per-step numbers a training loop logs beside θ at a few
// snapshots (the scalars/… arrays of docs/check.md): cheap to keep at every
// step, and what LL-4.3 reads at every step.
type Scalars struct {
	// Steps are the steps logged, strictly increasing and consecutive.
	Steps []int
	// LogLoss is log of the loss the loop computed at each step (the
	// file's reduction: mean or sum), Norm is ‖θ‖, LR the step size used
	// from each step to the next (the per-record lr's meaning).
	LogLoss, Norm, LR []float64
	// QMin is min_n y_nΦ(x_n) at each step (optional: nil).
	QMin []float64
}

// ScalarsTolerance is how far, relative, the logged log 𝓛 and ‖θ‖ may be
// from the engine's measurement of the same step's θ at a snapshot: both
// are sums of at most a few million terms in float64, so 1e-9 leaves a
// factor ~10⁴ over their rounding (n·u for a sum of n terms) and catches a
// wrong reduction (log n away), another loss, or scalars of another run.
const ScalarsTolerance = 1e-9

// validate checks the scalars' shapes and values.
func (s *Scalars) validate() error {
	S := len(s.Steps)
	if S < 2 {
		return errors.New("scalars/step: want at least two steps")
	}
	for i := 1; i < S; i++ {
		if s.Steps[i] != s.Steps[i-1]+1 {
			return fmt.Errorf("scalars/step: steps %d and %d are not consecutive: log the scalars at every step", s.Steps[i-1], s.Steps[i])
		}
	}
	for name, v := range map[string][]float64{"scalars/log_loss": s.LogLoss, "scalars/norm": s.Norm, "scalars/lr": s.LR} {
		if len(v) != S {
			return fmt.Errorf("%s: %d values for %d steps", name, len(v), S)
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s: step %d is %v", name, s.Steps[i], x)
			}
		}
	}
	if s.QMin != nil && len(s.QMin) != S {
		return fmt.Errorf("scalars/q_min: %d values for %d steps", len(s.QMin), S)
	}
	for i := range S {
		if !(s.LR[i] > 0) || !(s.Norm[i] >= 0) {
			return fmt.Errorf("scalars: step %d has lr %v and norm %v, want lr > 0 and norm ≥ 0", s.Steps[i], s.LR[i], s.Norm[i])
		}
	}
	return nil
}

// scalarRecords turns the scalars into the records LL-4.3 reads (every
// step): log 𝓛 of the sum (+log n for a mean), ρ, T = Σ η (η = lr/n for a
// mean), γ̃ = g(log 1/𝓛)/ρ^L, separation 𝓛 < ℓ(b_f) (and q_min > 0 when
// logged), and (S5)'s η‖∇𝓛‖²/𝓛 from the logged decrease of log 𝓛 over the
// step (its first-order value; a step that does not decrease 𝓛 counts 0).
// At every snapshot step the logged log 𝓛 and ‖θ‖ must be the engine's
// measurement of the recorded θ to ScalarsTolerance: an error otherwise.
func (r *recorded) scalarRecords() ([]train.Record, error) {
	s := r.t.Scalars
	m, ok := losses.MarginOf(r.obj.Loss)
	if !ok {
		return nil, fmt.Errorf("scalars: the loss %s has no margin form", r.obj.Loss.Name())
	}
	shift, scale := 0.0, 1.0
	if r.t.Reduction == "mean" {
		shift, scale = math.Log(float64(r.obj.Data.N)), 1/float64(r.obj.Data.N)
	}
	if r.fixedWeights != nil {
		// The records are of 𝓛/w_min (rescaledWeights).
		shift -= math.Log(r.weightScale)
		scale *= r.weightScale
	}
	at := map[int]int{}
	for i, st := range s.Steps {
		at[st] = i
	}
	for i, rec := range r.tr.Records {
		j, ok := at[rec.Step]
		if !ok {
			continue
		}
		if d := math.Abs(s.LogLoss[j] + shift - rec.LogLoss); d > ScalarsTolerance*math.Max(1, math.Abs(rec.LogLoss)) {
			return nil, fmt.Errorf("scalars/log_loss at step %d is %.17g, the engine measures %.17g at the recorded θ (record %d, reduction %s): the scalars are not of this run, its loss or its reduction", rec.Step, s.LogLoss[j], rec.LogLoss-shift, i, r.t.Reduction)
		}
		if d := math.Abs(s.Norm[j] - rec.Rho); d > ScalarsTolerance*rec.Rho {
			return nil, fmt.Errorf("scalars/norm at step %d is %.17g, ‖θ‖ of the recorded θ is %.17g: the scalars are not of this run", rec.Step, s.Norm[j], rec.Rho)
		}
	}
	L := r.tr.Degree
	th := losses.LogThreshold(m)
	out := make([]train.Record, len(s.Steps))
	logT := math.Inf(-1)
	if s.Steps[0] > 0 {
		logT = accumulate(logT, math.Log(s.LR[0]*scale), s.Steps[0])
	}
	for i, st := range s.Steps {
		rec := train.Record{Step: st, LogLoss: s.LogLoss[i] + shift, Rho: s.Norm[i], LogEta: math.Inf(-1), LogGradNorm: math.Inf(-1)}
		rec.LogObjective = rec.LogLoss
		if i > 0 {
			rec.LogEta = math.Log(s.LR[i-1] * scale)
			logT = accumulate(logT, rec.LogEta, 1)
		}
		rec.LogT = logT
		rec.Separated = rec.LogLoss < th && (s.QMin == nil || s.QMin[i] > 0)
		rec.SmoothedMargin = train.SmoothedMargin(m, rec.LogLoss, rec.Rho, L)
		out[i] = rec
	}
	for i := 0; i+1 < len(out); i++ {
		// η‖∇𝓛‖²/𝓛 ≈ log 𝓛(t) − log 𝓛(t+1): LogGradNorm such that
		// FitRates' e^{LogEta(t+1) + 2·LogGradNorm(t) − LogObjective(t)} is it.
		if d := out[i].LogLoss - out[i+1].LogLoss; d > 0 {
			out[i].LogGradNorm = (math.Log(d) + out[i].LogObjective - out[i+1].LogEta) / 2
		}
	}
	return out, nil
}

// ratesFromScalars runs LL-4.3 on the logged scalars (every step) after
// the premise, which the snapshots decide (pairs or replayed gaps).
func (r *recorded) ratesFromScalars() theorems.Verdict {
	recs, err := r.scalarRecords()
	if err != nil {
		return theorems.Undecided("%v", err)
	}
	m, _ := losses.MarginOf(r.obj.Loss)
	return r.gradientClaim(func(*train.Trajectory) theorems.Verdict {
		v := margins.Rates(margins.RateCase{Records: recs, Degree: r.tr.Degree, Margin: m})
		v.Detail = fmt.Sprintf("from the logged scalars (%d steps): %s", len(recs), v.Detail)
		return v
	})
}

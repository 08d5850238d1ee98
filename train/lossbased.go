package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// ErrStalled is returned by an optimizer's Step when no step it may take
// decreases the objective any more (a line search that ran out of step
// sizes: the objective is at its minimum to machine precision, or flat).
// θ is left unchanged; Run ends the run normally and marks the trajectory
// Stalled.
var ErrStalled = errors.New("train: no admissible step decreases the objective")

// Loss-based schedule constants (LL App. K.1: "α(0) := 0.1, r_u := 2^{1/5},
// r_d := 2^{1/10}").
const (
	LossBasedAlpha0 = 0.1
	LossBasedLogUp  = math.Ln2 / 5  // log r_u
	lossBasedLogDn  = math.Ln2 / 10 // log r_d
	// lossBasedMaxRetries bounds the retries of one step: 400 divisions by
	// r_d shrink α by 2⁻⁴⁰ ≈ 1e-12, below which the step α·‖∇log𝓛‖ is lost
	// in the rounding of θ for every case we train.
	lossBasedMaxRetries = 400
)

// LossBased is the loss-based learning rate schedule of LL App. K.1, a line
// search on the relative step α:
//
//	η(t) = α(t)/𝓛̄(t−1),
//
// with 𝓛̄ the mean training loss (LL trains on the mean). A step is tried
// from θ(t−1); if the loss does not decrease strictly, α ← α/r_d and the step
// is retried from θ(t−1) (rollback); on success α ← α·r_u for the next step.
//
// Everything is carried in log domain (LL App. K.2): on the mean loss the
// step is η∇𝓛̄ = α∇𝓛̄/𝓛̄ = α·∇log𝓛 = α·Dir, so θ moves by α·Dir whatever
// the size of 𝓛, and the success test compares log 𝓛. Step returns the time
// increment on the summed loss of LL's theorems (θ ← θ − η∇𝓛),
//
//	log η = log α − log 𝓛,
//
// which is astronomically large when 𝓛 is tiny but finite as a logarithm:
// T = Σ η is carried as log T by Run.
type LossBased struct {
	// LogAlpha is log α for the next step.
	LogAlpha float64
	// Accepted and Rejected count the steps taken and the trials rolled back.
	Accepted, Rejected int

	theta0, dir []float64
	alpha0      float64 // α(0), as declared
}

// NewLossBased returns the schedule with α(0) = alpha0 (0 means LL's 0.1).
func NewLossBased(alpha0 float64) (*LossBased, error) {
	if alpha0 == 0 {
		alpha0 = LossBasedAlpha0
	}
	if !(alpha0 > 0) || math.IsInf(alpha0, 0) {
		return nil, fmt.Errorf("train: loss-based α(0) must be a finite number > 0, got %v", alpha0)
	}
	return &LossBased{LogAlpha: math.Log(alpha0), alpha0: alpha0}, nil
}

func init() {
	RegisterOptimizer("lossbased", func(o OptimizerOptions) (Optimizer, error) { return NewLossBased(o.LR) })
}

// Rule returns the loss-based schedule with its α(0).
func (lb *LossBased) Rule() StepRule { return StepRule{Kind: LossBasedStep, LR: lb.alpha0} }

// Step tries θ − α·Dir until the objective decreases, then returns
// log η = log α − log(𝓛 + R) of the accepted step. It returns ErrStalled,
// with θ unchanged, when lossBasedMaxRetries divisions of α found no
// decrease, or an error wrapping ErrNonFinite if some of those trials met a
// non-finite value (the step is then blocked, not at a minimum).
func (lb *LossBased) Step(obj *Objective, theta []float64, ev *Eval) (float64, error) {
	if len(lb.theta0) != len(theta) {
		lb.theta0 = make([]float64, len(theta))
		lb.dir = make([]float64, len(theta))
	}
	copy(lb.theta0, theta)
	copy(lb.dir, ev.Dir) // ev is overwritten by the trial evaluations
	logF := ev.LogObjective
	if math.IsInf(logF, -1) {
		return 0, ErrStalled // 𝓛 + R = 0: nothing to decrease
	}
	var nonFinite error // the last trial that met a non-finite value
	for try := 0; try < lossBasedMaxRetries; try++ {
		floats.AddScaledTo(theta, lb.theta0, -math.Exp(lb.LogAlpha), lb.dir)
		trial, err := obj.Evaluate(theta, false)
		if err != nil && !errors.Is(err, ErrNonFinite) {
			copy(theta, lb.theta0)
			return 0, err
		}
		// A trial that overflows is a failed trial like one that
		// increases the loss (LL's "otherwise").
		if err != nil {
			nonFinite = err
		}
		if err == nil && trial.LogObjective < logF {
			logEta := lb.LogAlpha - logF
			lb.LogAlpha += LossBasedLogUp
			lb.Accepted++
			return logEta, nil
		}
		lb.LogAlpha -= lossBasedLogDn
		lb.Rejected++
	}
	copy(theta, lb.theta0)
	if nonFinite != nil {
		// Not a minimum: every step size either met a non-finite value
		// (a NaN wall, or an overflow that no α down to this one avoids)
		// or moved θ by less than its rounding next to it.
		return 0, fmt.Errorf("loss-based schedule: no step of %d down to α = %.3g stays finite and decreases log 𝓛 = %.6g: %w",
			lossBasedMaxRetries, math.Exp(lb.LogAlpha), logF, nonFinite)
	}
	return 0, fmt.Errorf("%w (loss-based schedule: %d retries down to α = %.3g at log 𝓛 = %.6g)",
		ErrStalled, lossBasedMaxRetries, math.Exp(lb.LogAlpha), logF)
}

package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
)

// Record holds the metrics of one recorded step.
type Record struct {
	Step int
	// LogT is log T, T = Σ_{τ<t} η_τ (−Inf at step 0).
	LogT float64
	// LogLoss is log 𝓛 (data term); LogObjective adds the regularizer.
	LogLoss, LogObjective float64
	LogGradNorm           float64
	// Rho is ‖θ‖₂.
	Rho float64
	// QMin is min_n q_n.
	QMin float64
	// NormalizedMargin is γ̄ = q_min/ρ^L.
	NormalizedMargin float64
	// SmoothedMargin is γ̃ = g(log 1/𝓛)/ρ^L (LL Def. A.3; for cross-entropy
	// the logistic g, LL App. F). NaN when the model is not homogeneous or
	// the loss has no margin form.
	SmoothedMargin float64
	// Separated reports 𝓛 < ℓ(b_f) (LL (B4)), after which γ̃ is meaningful.
	Separated bool
	// Theta is a copy of θ at this step when Config.KeepTheta is set.
	Theta []float64
	// Weights is a copy of the GRW weights q^{(t)} of this step when
	// Config.KeepWeights is set (and a Weighting is).
	Weights []float64
	// WeightSum is ∫ q dT = Σ_t η_t q^{(t)} over the steps since the
	// previous record (WeightSum), when Config.KeepWeights is set and a
	// Weighting is; nil at the first record.
	WeightSum []float64
	// LogEta is log η of the step that led here (its time increment; −Inf
	// at step 0).
	LogEta float64
	// LocalError is the summed local error estimate ‖e‖₂ in θ of the steps
	// since the previous record, for optimizers that carry one
	// (ErrorEstimator: adaptive integrators); 0 for exact-step methods.
	LocalError float64
}

// Trajectory is what a run recorded, and what ran: the loss, the step rule
// and the GRW scheme as the run declared them (the checks read these, never
// a name).
type Trajectory struct {
	Model string
	// Loss is the loss the objective was built with (nil: not declared).
	Loss losses.Loss
	// Step is the optimizer's step rule (Optimizer.Rule).
	Step    StepRule
	Degree  float64 // L (NaN when not homogeneous)
	Records []Record
	Theta   []float64 // final θ
	Steps   int       // steps taken
	// Scheme is the GRW scheme (NoScheme without one) and Weights holds
	// its final q (nil without a scheme).
	Scheme  Scheme
	Weights []float64
	// Stalled reports that the optimizer ended the run with ErrStalled: no
	// step it may take decreases the objective any more.
	Stalled bool
}

// Final returns the last record.
func (t *Trajectory) Final() Record { return t.Records[len(t.Records)-1] }

// Config says how long to train and what to record.
type Config struct {
	Steps int
	// Every records every Every-th step (and the first and last); 0 means 1.
	Every int
	// StopLogLoss ends the run once log 𝓛 ≤ StopLogLoss (0 means never).
	StopLogLoss float64
	// KeepTheta stores a copy of θ in every record.
	KeepTheta bool
	// Observe, when set, is called at every recorded step with θ and its
	// evaluation (valid only during the call, θ not to be changed); an
	// error ends the run. It may evaluate the objective at other points:
	// the run then evaluates θ again before its step.
	Observe func(r *Record, theta []float64, ev *Eval) error
	// Weighting, when set, is a GRW scheme that reweights the objective at
	// every step from the losses at θ_t (see Weighting); the objective's
	// own weights are then overwritten. KeepWeights stores q^{(t)} in every
	// record.
	Weighting   Weighting
	KeepWeights bool
}

// maxRecordsCap bounds the records Run makes room for at the start, and
// stopRecordsCap for a run that may stop at StopLogLoss (the flows stop
// after a few hundred of their 10⁵ allowed steps: room for thousands of
// records would be cleared for nothing).
const (
	maxRecordsCap  = 1 << 12
	stopRecordsCap = 1 << 8
)

// Run trains θ (in place) with opt for cfg.Steps steps and records metrics.
// It stops with an error naming the step if a non-finite value appears. An
// optimizer that returns ErrStalled ends the run normally, with the last
// state recorded and Trajectory.Stalled set.
func Run(obj *Objective, opt Optimizer, theta []float64, cfg Config) (*Trajectory, error) {
	if cfg.Steps < 0 {
		return nil, fmt.Errorf("train: steps must be ≥ 0, got %d", cfg.Steps)
	}
	if len(theta) != obj.Model.NumParams() {
		return nil, fmt.Errorf("train: θ has %d entries, model %s needs %d", len(theta), obj.Model, obj.Model.NumParams())
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: θ[%d] is %v", i, v)
		}
	}
	every := max(cfg.Every, 1)
	// Read once: Degree copies its blocks, and a record keeps none of it.
	deg := obj.Model.Degree()
	marginLoss, hasMargin := losses.MarginOf(obj.Loss)
	L := math.NaN()
	if deg.Homogeneous {
		L = deg.Order
	}
	tr := &Trajectory{Model: obj.Model.String(), Loss: obj.Loss, Step: opt.Rule(), Degree: L}
	// Room for every record of a run that goes the distance (up to
	// maxRecordsCap), so that the records are not copied as they grow.
	capRecords := maxRecordsCap
	if cfg.StopLogLoss != 0 {
		capRecords = stopRecordsCap
	}
	tr.Records = make([]Record, 0, min(cfg.Steps/every+2, capRecords))
	q, err := startRun(obj, opt, len(theta), &cfg, tr)
	if err != nil {
		return nil, err
	}
	if _, ok := opt.(*GD); ok {
		// GD's step reads no evaluation: the objective's cache keys on θ
		// itself, not a copy per step (Objective.runθ).
		obj.runθ = theta
		defer obj.endLending()
	}
	logT, logEta, localErr := math.Inf(-1), math.Inf(-1), 0.0
	var qSum WeightSum
	keepSum := cfg.KeepWeights && q != nil
	estimator, _ := opt.(ErrorEstimator)
	record := func(t int, ev *Eval) error {
		rec := measure(deg, marginLoss, hasMargin, theta, ev, t, logT)
		if math.IsInf(rec.Rho, 0) {
			// Every θ_i is finite (checked after each step), but ‖θ‖ is
			// beyond float64: no margin or norm can be reported from here.
			return &StepError{Step: t, Err: fmt.Errorf("%w: ‖θ‖ overflows float64 (diverged)", ErrNonFinite)}
		}
		rec.LogEta, rec.LocalError = logEta, localErr
		localErr = 0
		if cfg.KeepTheta {
			rec.Theta = append([]float64(nil), theta...)
		}
		if cfg.KeepWeights && q != nil {
			rec.Weights = append([]float64(nil), q...)
			rec.WeightSum = qSum.Take()
		}
		// Appended before Observe sees it, so that the record is written
		// once, in place (a pointer to a local would move it to the heap).
		tr.Records = append(tr.Records, rec)
		if cfg.Observe != nil {
			before := obj.evaluations
			if err := cfg.Observe(&tr.Records[len(tr.Records)-1], theta, ev); err != nil {
				tr.Records = tr.Records[:len(tr.Records)-1]
				return &StepError{Step: t, Err: err}
			}
			if obj.evaluations != before {
				// The callback evaluated the objective elsewhere (a check
				// judging the records so far), overwriting ev, which the
				// step reads: evaluated again at θ as the step began, under
				// the step's weights q^{(t)} (the scheme not updated twice).
				if _, err := obj.evaluate(theta, q == nil, q == nil); err != nil {
					return &StepError{Step: t, Err: err}
				}
				if q != nil {
					if _, err := obj.Reweight(q, true); err != nil {
						return &StepError{Step: t, Err: err}
					}
				}
			}
		}
		return nil
	}
	for t := 0; ; t++ {
		// With the gradient also at the last step: its record reports
		// log ‖∇𝓛‖ at that θ.
		// Under a scheme the sums wait for q^{(t)} (Reweight makes them).
		ev, err := obj.evaluate(theta, q == nil, q == nil)
		if err == nil && q != nil {
			ev, err = reweightStep(obj, cfg.Weighting, t, q, true)
		}
		if err != nil {
			return tr, &StepError{Step: t, Err: err}
		}
		done := t == cfg.Steps || (cfg.StopLogLoss != 0 && ev.LogLoss <= cfg.StopLogLoss)
		recorded := t%every == 0 || done
		if recorded {
			if err := record(t, ev); err != nil {
				return tr, err
			}
		}
		if done {
			tr.Steps = t
			break
		}
		obj.stepping()
		le, err := opt.Step(obj, theta, ev)
		if errors.Is(err, ErrStalled) {
			// θ is unchanged; the optimizer's trial evaluations overwrote
			// ev, so the last state is measured again if not yet recorded.
			tr.Steps, tr.Stalled = t, true
			if !recorded {
				ev, err := obj.Evaluate(theta, true)
				if err != nil {
					return tr, &StepError{Step: t, Err: err}
				}
				if err := record(t, ev); err != nil {
					return tr, err
				}
			}
			break
		}
		if err != nil {
			return tr, &StepError{Step: t, Err: err}
		}
		logEta = le
		if keepSum {
			qSum.Add(le, obj)
		}
		if estimator != nil {
			localErr += estimator.LocalError()
		}
		for i, v := range theta {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return tr, &StepError{Step: t, Err: fmt.Errorf("%w: θ[%d] became %v (diverged)", ErrNonFinite, i, v)}
			}
		}
		logT = numerics.LogAddExp(logT, logEta)
	}
	tr.Theta = append([]float64(nil), theta...)
	if q != nil {
		tr.Weights = append([]float64(nil), q...)
	}
	return tr, nil
}

// Measure computes the record of θ with evaluation ev.
func Measure(obj *Objective, theta []float64, ev *Eval, step int, logT float64) Record {
	m, ok := losses.MarginOf(obj.Loss)
	return measure(obj.Model.Degree(), m, ok, theta, ev, step, logT)
}

// measure is Measure with the model's degree and the loss's margin form
// (ok false: none) read by the caller.
func measure(deg models.Degree, m losses.Margin, ok bool, theta []float64, ev *Eval, step int, logT float64) Record {
	rho := floats.Norm(theta, 2)
	r := Record{
		Step: step, LogT: logT,
		LogLoss: ev.LogLoss, LogObjective: ev.LogObjective, LogGradNorm: ev.LogGradNorm,
		Rho: rho, QMin: ev.QMin,
		NormalizedMargin: math.NaN(), SmoothedMargin: math.NaN(),
	}
	if !ok {
		return r
	}
	r.Separated = ev.LogLoss < losses.LogThreshold(m)
	if deg.Homogeneous {
		rhoL := math.Pow(rho, deg.Order)
		r.NormalizedMargin = ev.QMin / rhoL
		r.SmoothedMargin = SmoothedMargin(m, ev.LogLoss, rho, deg.Order)
	}
	return r
}

// SmoothedMargin returns γ̃ = g(log 1/𝓛)/ρ^L (LL Def. A.3) from log 𝓛.
func SmoothedMargin(m losses.Margin, logLoss, rho, L float64) float64 {
	return m.G(-logLoss) / math.Pow(rho, L)
}

package faults

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/train"
)

// wrapped forwards the declared step rule (Rule) and the optional
// interfaces of the optimizer it wraps (train.Resetter,
// train.ErrorEstimator) so that a fault changes the step and nothing else:
// the run still declares the rule it was asked for.
type wrapped struct{ inner train.Optimizer }

func (w wrapped) Rule() train.StepRule { return w.inner.Rule() }

func (w wrapped) Reset(p int) {
	if r, ok := w.inner.(train.Resetter); ok {
		r.Reset(p)
	}
}

func (w wrapped) LocalError() float64 {
	if e, ok := w.inner.(train.ErrorEstimator); ok {
		return e.LocalError()
	}
	return 0
}

// preconditioned adds, after every step, an extra step of strength times
// the step on one coordinate k: a stray per-coordinate preconditioner
// diag(1, …, 1 + strength, …, 1) (issue 18's first finding, with k = 0).
// k is the coordinate of the largest |∂𝓛/∂θ_k| at the run's first step,
// fixed from then on, so that the fault acts on every case (a coordinate
// whose gradient stays 0 — the corner pixel of every digit, a dead ReLU
// unit — would make it inert). The iterates leave span{x_i}, and the
// limit direction of a linear model is the max-margin direction of the
// preconditioned geometry, not the SVM.
type preconditioned struct {
	wrapped
	strength float64
	k        int // −1 until the first step
}

func (p *preconditioned) Reset(n int) {
	p.k = -1
	p.wrapped.Reset(n)
}

func (p *preconditioned) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	if p.k < 0 || p.k >= len(theta) {
		p.k = 0
		for i, d := range ev.Dir {
			if math.Abs(d) > math.Abs(ev.Dir[p.k]) {
				p.k = i
			}
		}
	}
	// The step of coordinate k is −e^{log η + log 𝓛}·Dir[k]; read Dir
	// before the inner step (an integrator overwrites ev with its stages).
	dk := ev.Dir[p.k]
	logObj := ev.LogObjective
	logEta, err := p.inner.Step(obj, theta, ev)
	if err != nil {
		return logEta, err
	}
	theta[p.k] -= p.strength * math.Exp(logEta+logObj) * dk
	return logEta, nil
}

// stale steps with the gradient direction of the previous step: an
// off-by-one in the optimizer's gradient buffer (the loss's scale is
// current, the direction one step old; the first step uses its own).
type stale struct {
	wrapped
	prev []float64
	cur  []float64
}

func (s *stale) Reset(p int) {
	s.prev, s.cur = nil, nil
	s.wrapped.Reset(p)
}

func (s *stale) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	if len(s.prev) != len(ev.Dir) {
		s.prev = append([]float64(nil), ev.Dir...)
		s.cur = make([]float64, len(ev.Dir))
	}
	copy(s.cur, ev.Dir)
	copy(ev.Dir, s.prev)
	s.prev, s.cur = s.cur, s.prev
	return s.inner.Step(obj, theta, ev)
}

// accumulated is GD whose gradient buffer is never cleared (PyTorch's
// missing optimizer.zero_grad()): step t moves θ by −η·Σ_{s≤t} ∇𝓛(θ_s),
// the running sum of every gradient since the run's start. The first step
// is GD's; from then on the early gradients dominate the step, the run is
// undamped (d²θ/dt² = −∇𝓛 as η → 0), so the recorded steps are
// not −η∇𝓛 and a least-squares run oscillates about the interpolator
// instead of settling. The sum is kept in units of e^{scale}, scale the
// largest log 𝓛 met so far, so that it stays finite where 𝓛 underflows.
// Reset does not clear it: a buffer that is never cleared is cleared by no
// run's start either, and train.RunWindows continues one run through
// several Runs, each of which resets its optimizer (PyTorch's .grad lives
// as long as the parameters; the properties build one optimizer per run).
type accumulated struct {
	wrapped
	sum   []float64 // Σ_s ∇𝓛(θ_s)/e^{scale}
	scale float64
}

func (a *accumulated) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	if len(a.sum) != len(ev.Dir) {
		a.sum, a.scale = make([]float64, len(ev.Dir)), math.Inf(-1)
	}
	if l := ev.LogObjective; !math.IsInf(l, -1) {
		if l > a.scale {
			floats.Scale(math.Exp(a.scale-l), a.sum) // e^{−∞} = 0 at the first step
			a.scale = l
		}
		floats.AddScaled(a.sum, math.Exp(l-a.scale), ev.Dir)
	}
	// The inner GD steps −e^{log η + LogObjective}·Dir: hand it the sum.
	// Restored after the step (the objective owns ev).
	dir, logObj := ev.Dir, ev.LogObjective
	ev.Dir, ev.LogObjective = a.sum, a.scale
	logEta, err := a.inner.Step(obj, theta, ev)
	ev.Dir, ev.LogObjective = dir, logObj
	return logEta, err
}

// withoutZeroGrad plants accumulated on GD; other optimizers are left
// alone (the fault is GD's step on a buffer that is never cleared).
func withoutZeroGrad(o train.Optimizer) train.Optimizer {
	if _, ok := o.(*train.GD); !ok {
		return o
	}
	return &accumulated{wrapped: wrapped{o}}
}

// unscaled drops the loss factor when leaving log domain: the step is
// −η·Dir instead of −η·e^{log 𝓛}·Dir (normalized gradient descent). The
// step no longer shrinks with the loss, so a least-squares run does not
// converge to the interpolator, and the risk stalls at a level set by η.
type unscaled struct{ wrapped }

func (u unscaled) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	// The inner step reads ev.LogObjective; with it at 0 the factor
	// e^{log 𝓛} is 1. Restored after the step (the objective owns ev).
	saved := ev.LogObjective
	ev.LogObjective = 0
	logEta, err := u.inner.Step(obj, theta, ev)
	ev.LogObjective = saved
	return logEta, err
}

// misindexedMomentum is heavy ball whose velocity of coordinate 0 decays
// with β² instead of β (a mis-indexed momentum buffer): the step is no
// longer a combination of past gradients with one common filter, so θ
// leaves span{x_i} and lands on another interpolator. Other optimizers are
// left alone.
type misindexedMomentum struct {
	wrapped
	m *train.Momentum
	v []float64
}

func (h *misindexedMomentum) Reset(p int) {
	h.v = make([]float64, p)
	h.wrapped.Reset(p)
}

func (h *misindexedMomentum) Step(_ *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	if len(h.v) != len(theta) {
		h.v = make([]float64, len(theta))
	}
	logEta := math.Log(h.m.LR)
	g := -math.Exp(logEta + ev.LogObjective)
	for i, d := range ev.Dir {
		beta := h.m.Beta
		if i == 0 {
			beta *= beta
		}
		h.v[i] = beta*h.v[i] + g*d
		theta[i] += h.v[i]
	}
	return logEta, nil
}

func withMisindexedMomentum(o train.Optimizer) train.Optimizer {
	m, ok := o.(*train.Momentum)
	if !ok {
		return o
	}
	return &misindexedMomentum{wrapped: wrapped{o}, m: m}
}

package properties

import (
	"context"
	"errors"
	"fmt"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Another engine under test (Runner.Engine, issue 31; docs/engines.md).
// The claims whose runs the line protocol expresses send them to the
// engine through TrainWindows and TrainGD; the case builders, the step
// sizes and the checks stay ours (nothing that decides a verdict is taken
// from the engine under test), and every record it returns is measured
// again by our objective (engines.Process). Every other claim, and every
// fault control (its fault is planted in our engine), is not applicable
// there: a status of its own, never a pass.

// onEngine reports whether entry id's runs go to Runner.Engine: the
// claims wired to the protocol (docs/engines.md, "What is wired").
func onEngine(id string) bool {
	switch id {
	case theorems.LL_B2a, theorems.LL_B2b, theorems.LL_B3, theorems.LL_B3m, theorems.LL_B4, theorems.LL_A5, theorems.LL_4_2, theorems.LL_4_4, theorems.LL_A9, theorems.LL_C10, theorems.LL_lin,
		theorems.ZD_T1, theorems.ZD_span, theorems.ZD_T2, theorems.ZD_T7, theorems.XY_P1, theorems.LL_K1, theorems.LL_K2:
		return true
	}
	return false
}

// ErrNoProtocol is returned, under another engine, by a run the protocol
// cannot carry (a flow, weights that move): the case is not applicable.
var ErrNoProtocol = errors.New("properties: the engine protocol has no such run")

// inapplicable returns the verdict of property p of entry id when its
// cases cannot go to r.Engine, or ok false when they can (or r runs our
// engine).
func (r *Runner) inapplicable(id string, p Prop) (theorems.Verdict, bool) {
	switch {
	case r.Engine == nil:
		return theorems.Verdict{}, false
	case p.Meta().Fault != "" && p.Meta().Fault != r.EngineFault:
		return theorems.Inapplicable("the fault %s is planted in our engine (another engine plants its own: verify --engine … --faults)", p.Meta().Fault), true
	case !onEngine(id):
		return theorems.Inapplicable("%s's runs are not expressed by the engine protocol", id), true
	}
	return theorems.Verdict{}, false
}

// faultCase returns the case a fault control judges and the runner that
// decides its validity: on our engine c itself and r; on an engine that
// plants the fault itself (EngineFault), c with the fault cleared (the
// engine's fault is the one under test) and Reference.
func (r *Runner) faultCase(c any) (any, *Runner) {
	f, ok := c.(Faultable)
	if r.Engine == nil || !ok {
		return c, r
	}
	ref := r.Reference
	if ref == nil {
		ref = NewRunner(r.Seed, r.Budget)
	}
	return f.WithFault(""), ref
}

// EngineVerdict returns the verdict of a case whose run failed with err
// under another engine: engine-error for a failure of the engine or the
// link (engines.IsEngineError), not-applicable for a case the engine or
// the protocol cannot carry; ok is false for any other error (the run's
// own failure, judged by the check as on our engine).
func EngineVerdict(err error) (theorems.Verdict, bool) {
	switch {
	case err == nil:
		return theorems.Verdict{}, false
	case engines.IsEngineError(err):
		return theorems.EngineFailed(err), true
	case errors.Is(err, engines.ErrUnsupported), errors.Is(err, engines.ErrNotExpressible), errors.Is(err, ErrNoProtocol):
		return theorems.Inapplicable("%v", err), true
	}
	return theorems.Verdict{}, false
}

// TrainWindows runs GD with step lr from θ₀ on obj on r.Engine, recorded
// as train.RunWindows(obj, gd, θ₀, plan) records (engines.WindowSchedule):
// the runs of section C's trajectory checks. name names the case in an
// engine error.
func (r *Runner) TrainWindows(name string, obj *train.Objective, theta0 []float64, lr float64, plan train.WindowPlan) (*train.Trajectory, error) {
	sched, steps, err := engines.WindowSchedule(plan)
	if err != nil {
		return nil, err
	}
	return r.train(name, obj, theta0, engines.StepRule{Kind: engines.GD, LR: lr}, steps, sched)
}

// TrainGD runs GD with step lr from θ₀ on obj for steps steps on r.Engine,
// recording the steps of sched.
func (r *Runner) TrainGD(name string, obj *train.Objective, theta0 []float64, lr float64, steps int, sched engines.Schedule) (*train.Trajectory, error) {
	return r.train(name, obj, theta0, engines.StepRule{Kind: engines.GD, LR: lr}, steps, sched)
}

// TrainWeighted runs GD with step lr and the fixed sample weights w (the
// caller's, computed from its case: never the engine's) from θ₀ on the
// unweighted obj for at most steps steps on r.Engine, recording the steps
// of sched; stop ≠ 0 ends the run once the engine's log 𝓛 ≤ stop (the
// records are then judged by the caller's own measure, not by the stop).
// Section D's runs with static weights (ZD-T1, ZD-span, ZD-T2): the weights
// go on the wire, and the returned records are measured with them.
func (r *Runner) TrainWeighted(name string, obj *train.Objective, theta0, w []float64, lr float64, steps int, stop float64, sched engines.Schedule) (*train.Trajectory, error) {
	c, err := engines.CaseOf(name, obj, theta0, engines.StepRule{Kind: engines.GD, LR: lr}, steps, stop, sched)
	if err != nil {
		return nil, err
	}
	if c.Weights != nil {
		return nil, fmt.Errorf("%w: case %s: weights set twice", engines.ErrBadCase, name)
	}
	c.Weights = w
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return r.trainCase(c)
}

// TrainLossBased runs LL App. K.1's loss-based schedule (α(0) = 0.1) from
// θ₀ on obj on r.Engine for at most steps steps, until log 𝓛 ≤ stop,
// recording the steps of sched, each with the engine's log η (LL-K1,
// LL-K2). logDomain asks for a run that carries log 𝓛; a case is not
// applicable on an engine whose handshake lacks that or the rule.
func (r *Runner) TrainLossBased(name string, obj *train.Objective, theta0 []float64, steps int, stop float64, sched engines.Schedule, logDomain bool) (*train.Trajectory, error) {
	c, err := engines.CaseOf(name, obj, theta0, engines.StepRule{Kind: engines.LossBased}, steps, stop, sched)
	if err != nil {
		return nil, err
	}
	c.LogDomain = logDomain
	return r.trainCase(c)
}

func (r *Runner) train(name string, obj *train.Objective, theta0 []float64, rule engines.StepRule, steps int, sched engines.Schedule) (*train.Trajectory, error) {
	c, err := engines.CaseOf(name, obj, theta0, rule, steps, 0, sched) // 0: no stop at a loss
	if err != nil {
		return nil, err
	}
	return r.trainCase(c)
}

func (r *Runner) trainCase(c *engines.Case) (*train.Trajectory, error) {
	if err := r.Engine.Capabilities().Supports(c); err != nil {
		return nil, err
	}
	// The engine's per-case timeout bounds the call; Ctrl-C closes the
	// engine (verify), which ends it.
	return r.Engine.Train(context.Background(), c)
}

// BuildFailed is the verdict of a case whose run or objective failed with
// err: under another engine an engine error or a run the engine or the
// protocol cannot carry is that (EngineVerdict), never an assumption.
func BuildFailed(err error) theorems.Verdict {
	if v, ok := EngineVerdict(err); ok {
		return v
	}
	return theorems.Assumption("case does not build: %v", err)
}

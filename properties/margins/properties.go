package margins

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	marginsth "github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// The properties of section B (and LL-A5 of section A), margin dynamics,
// and the runs they judge; Entries (entries.go) binds them to their IDs.

// Run lengths of the asymptotic properties per budget (the Runner's Budget).
type runLengths struct {
	flowTarget float64 // log 𝓛 a monotonicity flow runs to
	flowSteps  int     // its step budget
	gdSteps    int     // LL-4.2's GD steps after t₀
	rateTarget float64 // log 𝓛 of the rate runs
	k1Target   float64 // LL-K1
	k2Target   float64 // LL-K2
	lbSteps    int     // loss-based step budget
}

func lengths(r *properties.Runner) runLengths {
	if r.Long() {
		return runLengths{flowTarget: -300, flowSteps: 200000, gdSteps: 20000, rateTarget: -1e5, k1Target: -2000, k2Target: -1e5, lbSteps: 5000000}
	}
	return runLengths{flowTarget: -25, flowSteps: 20000, gdSteps: 1500, rateTarget: -2000, k1Target: -2000, k2Target: -1e4, lbSteps: 500000}
}

// monotoneFlowTol is the tolerance of the flows of the monotonicity claims
// (LL-4.1, LL-F, LL-G), whose error bar is re-integrated independently
// (theorems/margins/flowcompanion.go) and not taken from the integrator. At 1e-9
// their summed bar stays below 6e-4 of γ̃'s growth (measured on 480 flows,
// seeds 1–6; MonotoneResolution asks 0.1), and the 10^{1/5} ≈ 1.6× longer
// steps pay for the re-integration: the claims' tests take the time they
// took at 1e-10 without it.
const monotoneFlowTol = 1e-9

// rateProperty checks LL-4.3 on runs of g with the optimizer opt.
func rateProperty(name string, g properties.Gen[RateRunCase], opt string) properties.Property[RateRunCase] {
	return properties.Property[RateRunCase]{Name: name, Gen: g, Check: func(r *properties.Runner, c RateRunCase) theorems.Verdict {
		obj, theta, err := c.Build()
		if err != nil {
			return undecidedOr(err)
		}
		o, err := train.NewOptimizer(opt, train.OptimizerOptions{Tol: cases.FlowTol})
		if err != nil {
			return undecidedOr(err)
		}
		if f, err := faults.Lookup(c.Fault); err == nil {
			o = f.Optimizer(o)
		}
		n := lengths(r)
		tr, err := train.Run(obj, o, theta, train.Config{Steps: n.lbSteps, StopLogLoss: n.rateTarget})
		if err != nil {
			return theorems.Undecided("the run failed: %v", err)
		}
		mg, _ := losses.MarginOf(obj.Loss)
		return marginsth.Rates(marginsth.RateCase{Records: tr.Records, Flow: opt == "flow", Degree: tr.Degree, ModelDegree: tr.Degree, Margin: mg})
	}}
}

// undecidedOr turns a case-building error into a verdict: a degenerate case
// (a dead network, a teacher that cannot label) is inconclusive, anything
// else is a broken case.
func undecidedOr(err error) theorems.Verdict {
	if errors.Is(err, cases.ErrDegenerate) {
		return theorems.Undecided("%v", err)
	}
	return theorems.Assumption("case does not build: %v", err)
}

// sepProperty is a pointwise check over separated cases.
func sepProperty(name string, v cases.Variant, lossNames []string, copies bool, base func(losses.Margin) func(float64, int, int) float64,
	check func(obj *train.Objective, theta []float64, b cases.Built) theorems.Verdict) properties.Property[SeparatedCase] {
	logU1 := 2.0
	if copies {
		// LL-A5's printed-g′ control: the missing factor is e^{𝓛/N}, so
		// stay within u ≤ f(b_f) + 3 (𝓛/N ≥ log 2·e^{−3}/5 ≈ 7e-3, a
		// violation 1e10 times the rounding tolerance).
		logU1 = 0.5
	}
	return properties.Property[SeparatedCase]{Name: name, Gen: GenSeparated(v, lossNames, copies, -2, logU1), Check: func(r *properties.Runner, c SeparatedCase) theorems.Verdict {
		l, err := losses.ByName(c.loss())
		if err != nil {
			return undecidedOr(err)
		}
		mg, _ := losses.MarginOf(l)
		obj, theta, b, err := c.Build(base(mg))
		if err != nil {
			return undecidedOr(err)
		}
		if r.Engine != nil { // the engine under test answers Φ and ∇Φ at the separated θ; the loss stays ours
			obj, err = r.EvaluatedObjective(fmt.Sprintf("Φ %v", c), obj, theta)
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
			if err != nil {
				return undecidedOr(err)
			}
		}
		return check(obj, theta, b)
	}}
}

// farFloor is the base of LL-A5's far claim: u ≥ 800, where every
// per-sample loss is below float64's smallest subnormal e^{−745}, so only
// an engine that stays in log domain computes 𝓛 (the polynomial tail is
// left out: u = α·log(1 + q) = 800 needs q ≈ e^{800/α}).
func farFloor(losses.Margin) func(float64, int, int) float64 {
	return func(float64, int, int) float64 { return 800 }
}

// deepFloor is the base of LL-5.1's wrong-L control: u ≥ 2(L+2)·log(N·K) + 20,
// where Lemma B.5's slack ν·g′/(g𝓛) − 1 ≤ log(N·K)/u is below 1/(2(L+1)), so
// the declared L + 1 breaks the inequality by at least 1/(2L(L+1)) relative.
func deepFloor(losses.Margin) func(float64, int, int) float64 {
	return func(L float64, n, k int) float64 { return 2*(L+2)*math.Log(float64(n*k)) + 20 }
}

// printedLogistic is the logistic loss with the g′ that LL Remark A.2 prints,
// e^{−u}/(e^{e^{−u}} − 1) (it lacks a factor e^{e^{−u}}; see
// losses.Logistic.GPrime). LL-A5's lower bound with it is too tight by that
// factor, which at equal margins the check must catch.
type printedLogistic struct{ losses.Logistic }

func (printedLogistic) GPrime(u float64) float64 {
	x := math.Exp(-u)
	return x / math.Expm1(x)
}

// flowRun integrates the flow of a case to the budget's target with θ kept
// at every step.
func flowRun(obj *train.Objective, theta []float64, target float64, steps int) (*train.Trajectory, error) {
	return faultyFlowRun(obj, theta, target, steps, cases.FlowTol, nil)
}

// faultyFlowRun is flowRun at tolerance tol with fault, when not nil,
// applied to the integrator first (a negative control's engine fault, e.g.
// the error scale planted by train.Flow.PlantFault).
func faultyFlowRun(obj *train.Objective, theta []float64, target float64, steps int, tol float64, fault func(*train.Flow)) (*train.Trajectory, error) {
	fl, err := train.NewFlow(tol)
	if err != nil {
		return nil, err
	}
	if fault != nil {
		fault(fl)
	}
	return train.Run(obj, fl, theta, train.Config{Steps: steps, StopLogLoss: target, KeepTheta: true})
}

// flowProperty runs a trajectory check on the integrated flows of cases
// from g (to the budget's target, θ kept at every step).
func flowProperty(name string, g properties.Gen[FlowCase], multi bool, check func(marginsth.TrajectoryCase) theorems.Verdict) properties.Property[FlowCase] {
	return faultyFlowProperty(name, g, multi, check, nil)
}

// faultyFlowProperty is flowProperty with fault applied to every
// integrator (nil: none): the flow checks' negative controls for an engine
// fault in the integrator.
func faultyFlowProperty(name string, g properties.Gen[FlowCase], multi bool, check func(marginsth.TrajectoryCase) theorems.Verdict, fault func(*train.Flow)) properties.Property[FlowCase] {
	return properties.Property[FlowCase]{Name: name, Gen: g, Check: func(r *properties.Runner, c FlowCase) theorems.Verdict {
		obj, theta, err := c.Build()
		if err != nil {
			return undecidedOr(err)
		}
		n := lengths(r)
		planted := fault // per case: the closure is shared with the fault controls
		if c.Fault != "" && planted == nil {
			planted = func(fl *train.Flow) { c.optimizer(fl) }
		}
		judge := func(obj *train.Objective) func([]train.Record) theorems.Verdict {
			return func(recs []train.Record) theorems.Verdict {
				return check(marginsth.TrajectoryCase{Obj: obj, Records: recs, MultiHomogeneous: multi, Tol: monotoneFlowTol})
			}
		}
		if c.Fault != "" && fault == nil {
			// A fault control: stopped once decided (flowstop.go).
			var cobj *train.Objective
			clean := func() ([]train.Record, error) {
				var ctheta []float64
				var err error
				if cobj, ctheta, err = c.WithFault("").(FlowCase).Build(); err != nil {
					return nil, err
				}
				tr, err := faultyFlowRun(cobj, ctheta, n.flowTarget, n.flowSteps, monotoneFlowTol, nil)
				if err != nil {
					return nil, err
				}
				return tr.Records, nil
			}
			recs, decided, err := stoppedFlowRun(obj, theta, n.flowTarget, n.flowSteps, monotoneFlowTol, planted, judge(obj), clean,
				func(recs []train.Record) theorems.Verdict { return judge(cobj)(recs) })
			if err != nil {
				return theorems.Undecided("the flow failed: %v", err)
			}
			if decided != nil {
				return *decided // the check on recs, as judged where the run stopped
			}
			if last := recs[len(recs)-1]; last.LogLoss > n.flowTarget {
				return theorems.Undecided("the flow did not reach log 𝓛 = %g in %d steps (log 𝓛 = %.4g)", n.flowTarget, n.flowSteps, last.LogLoss)
			}
			return judge(obj)(recs)
		}
		tr, err := faultyFlowRun(obj, theta, n.flowTarget, n.flowSteps, monotoneFlowTol, planted)
		if err != nil {
			return theorems.Undecided("the flow failed: %v", err)
		}
		if tr.Final().LogLoss > n.flowTarget {
			return theorems.Undecided("the flow did not reach log 𝓛 = %g in %d steps (log 𝓛 = %.4g)", n.flowTarget, n.flowSteps, tr.Final().LogLoss)
		}
		return judge(obj)(tr.Records)
	}}
}

// bigStepProperty runs a trajectory check on bigStepGD from the cases of g:
// a negative control, which must report the violation whenever the run has
// one. A run on which largestDrop finds none (γ̃ grew at every step) is
// undecided rather than a miss.
func bigStepProperty(name string, g properties.Gen[FlowCase], multi bool, check func(marginsth.TrajectoryCase) theorems.Verdict) properties.Property[FlowCase] {
	return properties.Property[FlowCase]{Name: name, Gen: g, Check: func(r *properties.Runner, c FlowCase) theorems.Verdict {
		obj, theta, err := c.Build()
		if err != nil {
			return undecidedOr(err)
		}
		rs, err := bigStepGD(r, obj, theta)
		if err != nil {
			return undecidedOr(err)
		}
		v := check(marginsth.TrajectoryCase{Obj: obj, Records: rs, MultiHomogeneous: multi, ExactSteps: true})
		if v.Status != theorems.Holds {
			return v
		}
		// The check saw no decrease: a miss if one is there, else the step,
		// too large as it is, planted nothing on this case.
		if drop, unsep := largestDrop(obj, rs, multi); !unsep && drop <= plantedDrop {
			return theorems.Undecided("no violation planted: the too-large steps never decreased γ̃ here (largest drop of log γ̃ %.3g ≤ %g); the check said: %s", drop, plantedDrop, v.Detail)
		}
		return v
	}}
}

// bigStepGD runs overStep for 100 steps from the first point of the case's
// flow with log 𝓛 ≤ log ℓ(b_f) − 2 (separated), keeping θ.
func bigStepGD(r *properties.Runner, obj *train.Objective, theta []float64) ([]train.Record, error) {
	n := lengths(r)
	mg, _ := losses.MarginOf(obj.Loss)
	tr, err := flowRun(obj, theta, losses.LogThreshold(mg)-2, n.flowSteps)
	if err != nil {
		return nil, err
	}
	if tr.Final().LogLoss > losses.LogThreshold(mg)-2 {
		return nil, fmt.Errorf("%w: the flow did not separate the data", cases.ErrDegenerate)
	}
	tr, err = train.Run(obj, &overStep{}, tr.Theta, train.Config{Steps: 100, KeepTheta: true})
	if tr == nil {
		return nil, err
	}
	// A step that overflows ends the run; what was recorded is the case.
	return tr.Records, nil
}

// hessianNorm returns |λ|_max of ∇²𝓛 at θ relative to 𝓛 (∇²𝓛/𝓛), by 30
// power iterations on forward differences of ∇𝓛 = 𝓛·Dir (step 1e-6·‖θ‖).
func hessianNorm(obj *train.Objective, theta []float64) (float64, error) {
	ev, err := obj.Evaluate(theta, true)
	if err != nil {
		return 0, err
	}
	logL := ev.LogLoss
	dir := append([]float64(nil), ev.Dir...)
	p := len(theta)
	v, hv, sh := make([]float64, p), make([]float64, p), make([]float64, p)
	for i := range v {
		v[i] = 1 / math.Sqrt(float64(p))
	}
	copy(v, dir)
	floats.Scale(1/floats.Norm(v, 2), v)
	h := 1e-6 * floats.Norm(theta, 2)
	lambda := 0.0
	for it := 0; it < 30; it++ {
		floats.AddScaledTo(sh, theta, h, v)
		ev2, err := obj.Evaluate(sh, true)
		if err != nil {
			return 0, err
		}
		floats.ScaleTo(hv, math.Exp(ev2.LogLoss-logL), ev2.Dir)
		floats.Sub(hv, dir)
		floats.Scale(1/h, hv)
		lambda = floats.Norm(hv, 2)
		if lambda == 0 {
			break
		}
		floats.ScaleTo(v, 1/lambda, hv)
	}
	return lambda, nil
}

// gdProperty runs LL-4.2's check on gradient descent from the first point of
// the case's flow with 𝓛 < e^{−1/2} (t₀): with the constant step
// η = eta(λ)/𝓛(t₀), λ = |λ|_max(∇²𝓛(t₀))/𝓛(t₀), or with opt when given.
func gdProperty(name string, g properties.Gen[FlowCase], eta func(float64) float64, opt train.Optimizer) properties.Property[FlowCase] {
	return properties.Property[FlowCase]{Name: name, Gen: g, Check: func(r *properties.Runner, c FlowCase) theorems.Verdict {
		obj, theta, err := c.Build()
		if err != nil {
			return undecidedOr(err)
		}
		n := lengths(r)
		tr, err := flowRun(obj, theta, -0.5, n.flowSteps)
		if err != nil || tr.Final().LogLoss > -0.5 {
			return theorems.Undecided("the flow did not separate the data (𝓛 < 1): %v", err)
		}
		o := opt
		if o == nil {
			lambda, err := hessianNorm(obj, tr.Theta)
			if err != nil {
				return undecidedOr(err)
			}
			gd, err := train.NewGD(math.Exp(math.Log(eta(lambda)) - tr.Final().LogLoss))
			if err != nil {
				return undecidedOr(err)
			}
			o = gd
		} else {
			o = &overStep{}
		}
		var gdTr *train.Trajectory
		if gd, ok := o.(*train.GD); ok && r.Engine != nil { // the engine under test runs the GD
			gdTr, err = r.TrainGD(fmt.Sprintf("GD %v", c), obj, tr.Theta, gd.LR, n.gdSteps, engines.Schedule{Every: 1})
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
		} else {
			gdTr, err = train.Run(obj, c.optimizer(o), tr.Theta, train.Config{Steps: n.gdSteps, KeepTheta: true})
		}
		if gdTr == nil {
			return undecidedOr(err)
		}
		// Thm 4.2 is about gradient descent: a step that is not −η∇𝓛 is
		// violated before γ̂ is looked at (kkt.DescentSteps).
		if v := kkt.DescentSteps(obj, gdTr); v.Status == theorems.Violated {
			return v
		}
		v := marginsth.GDMarginMonotone(marginsth.TrajectoryCase{Obj: obj, Records: gdTr.Records})
		if opt == nil || v.Status != theorems.Holds {
			return v
		}
		// The too-large-step control: a miss if γ̂ dropped, else nothing was
		// planted (soak seed 1795337506035955: a deep linear net in 2-D).
		if drop, above := largestHatDrop(obj, gdTr.Records); !above && drop <= plantedDrop {
			return theorems.Undecided("no violation planted: the too-large steps never decreased γ̂ here (largest drop of log γ̂ %.3g ≤ %g); the check said: %s", drop, plantedDrop, v.Detail)
		}
		return v
	}}
}

// schedProperty runs LL-K1's check on a loss-based run of opt from the
// case's student to log 𝓛 = −2000.
func schedProperty(name string, g properties.Gen[FlowCase], opt func() train.Optimizer) properties.Property[FlowCase] {
	return properties.Property[FlowCase]{Name: name, Gen: g, Check: func(r *properties.Runner, c FlowCase) theorems.Verdict {
		obj, theta, err := c.Build()
		if err != nil {
			return undecidedOr(err)
		}
		n := lengths(r)
		var tr *train.Trajectory
		if r.Engine != nil {
			// The engine under test runs the schedule, every step recorded with
			// its log η. The target log 𝓛 = −2000 is below float64's e^{−745}:
			// only an engine that carries log 𝓛 (LL App. K.2) can reach it, so
			// the case asks for one (a plain float64 engine: not applicable;
			// plain PyTorch measured in docs/engines.md).
			tr, err = r.TrainLossBased(fmt.Sprintf("loss-based %v", c), obj, theta, n.lbSteps, n.k1Target, engines.Schedule{Every: 1}, true)
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
		} else {
			cfg := train.Config{Steps: n.lbSteps, StopLogLoss: n.k1Target}
			tr, err = train.Run(obj, c.optimizer(opt()), theta, cfg)
		}
		if tr == nil {
			return undecidedOr(err)
		}
		k, ok := obj.Model.(interface{ Kinked() bool })
		return marginsth.LossBasedSchedule(marginsth.ScheduleCase{Records: tr.Records, RunErr: err, Target: n.k1Target, Stalled: tr.Stalled, Kinked: ok && k.Kinked()})
	}}
}

// plainLoss is 𝓛 = Σ_n e^{log ℓ_n} in plain float64 (0 once every term
// underflows).
func plainLoss(ev *train.Eval) float64 {
	var s float64
	for _, l := range ev.LogSample {
		s += math.Exp(l)
	}
	return s
}

// plainEvaluator computes 𝓛 = Σ_n ℓ_n and ∇log 𝓛 = ∇𝓛/𝓛 in plain float64
// from the engine's per-sample log-losses and direction: LL-K2's negative
// control (log 0 = −Inf, 0/0 = NaN once 𝓛 underflows).
func plainEvaluator(obj *train.Objective) marginsth.LossEvaluator {
	return func(theta, dir []float64) (float64, error) {
		ev, err := obj.Evaluate(theta, true)
		if err != nil {
			return math.NaN(), err
		}
		loss := plainLoss(ev)
		floats.ScaleTo(dir, math.Exp(ev.LogLoss)/loss, ev.Dir)
		return math.Log(loss), nil
	}
}

// logDomainProperty runs LL-K2's check on a loss-based run to log 𝓛 ≈ −10⁴
// (θ recorded every 50 steps), with the engine's or the plain evaluator.
func logDomainProperty(name string, g properties.Gen[FlowCase], plain bool) properties.Property[FlowCase] {
	return properties.Property[FlowCase]{Name: name, Gen: g, Check: func(r *properties.Runner, c FlowCase) theorems.Verdict {
		obj, theta, err := c.Build()
		if err != nil {
			return undecidedOr(err)
		}
		n := lengths(r)
		var tr *train.Trajectory
		if r.Engine != nil { // the engine under test carries log 𝓛 (its handshake's logdomain) on the schedule
			tr, err = r.TrainLossBased(fmt.Sprintf("loss-based %v", c), obj, theta, n.lbSteps, n.k2Target, engines.Schedule{Every: 50}, true)
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
		} else {
			lb, _ := train.NewLossBased(0)
			tr, err = train.Run(obj, c.optimizer(lb), theta, train.Config{Steps: n.lbSteps, StopLogLoss: n.k2Target, Every: 50, KeepTheta: true})
		}
		if err != nil {
			return theorems.Undecided("the run failed: %v", err)
		}
		var eval marginsth.LossEvaluator
		if plain {
			eval = plainEvaluator(obj)
		}
		k, ok := obj.Model.(interface{ Kinked() bool })
		return marginsth.LogDomain(marginsth.LogDomainCase{Obj: obj, Records: tr.Records, Target: n.k2Target, Eval: eval, Stalled: tr.Stalled, Kinked: ok && k.Kinked()})
	}}
}

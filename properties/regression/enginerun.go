package regression

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	regressionth "github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// Section D on another engine (issue 31, docs/engines.md): the GD runs
// with static weights (ERM, importance weighting, static) go to
// Runner.Engine with their weights on the wire; the weights, η, the stop
// rule and every observation (the replay of the first steps, the span,
// the risks, the computed rate) stay ours, read from the records the
// engine returns. A scheme whose weights move (Group DRO, χ², CVaR, the
// schedules), heavy ball, Adam and a regularizer are not expressed by the
// protocol: those cases are not applicable there.

// RunOn is Run on r's engine: our engine's run (Run, bit for bit) when
// r.Engine is nil, else engineRun.
func (c RegressionCase) RunOn(r *properties.Runner, o runOptions) (*RegressionRun, error) {
	if r.Engine == nil {
		return c.Run(o)
	}
	return c.engineRun(r, o)
}

// engineStopEvery is the spacing of the records at which a ZD-T1 run on
// another engine is checked for interpolation (ours checks every step):
// the run ends at most this many steps later than ours would.
const engineStopEvery = 10

// static reports whether the case's weights are fixed over the run.
func (c RegressionCase) static() bool { return slices.Contains(cases.RegSchemes, c.Scheme) }

// engineRun runs the case on r.Engine: GD with η = 1/λ_max(XXᵀ) (o.lr when
// set) and the scheme's static q, computed here from the case
// (firstWeights), for o.maxSteps steps, recording every step the
// observations need; the records are then walked as runRegression's
// observer walks the steps.
func (c RegressionCase) engineRun(r *properties.Runner, o runOptions) (*RegressionRun, error) {
	switch {
	case c.Opt != OptGD:
		return nil, fmt.Errorf("%w: %s steps (GD only)", properties.ErrNoProtocol, optNames[c.Opt])
	case !c.static():
		return nil, fmt.Errorf("%w: the weights of %s move during the run (fixed weights only)", properties.ErrNoProtocol, cases.SchemeNames[c.Scheme])
	case o.reg > 0 || o.weighting != nil || o.stationaryEvery > 0 || o.keepWeightsEvery > 0:
		return nil, fmt.Errorf("%w: a regularized or reweighted run", properties.ErrNoProtocol)
	case c.Fault != "":
		return nil, fmt.Errorf("%w: the fault %s is planted in our engine", properties.ErrNoProtocol, c.Fault)
	}
	ds, theta0 := c.Problem()
	rc := regressionth.RegressionCase{X: ds.X, Y: ds.Y, N: ds.N, D: ds.D, Theta0: theta0}
	q, err := c.firstWeights()
	if err != nil {
		return nil, err
	}
	_, eta, _, err := c.optimizerStep(ds, o.lr)
	if err != nil {
		return nil, err
	}
	model, err := models.NewLinear(ds.D, 1)
	if err != nil {
		return nil, err
	}
	obj, err := train.NewObjective(model, losses.Squared{}, ds)
	if err != nil {
		return nil, err
	}
	// Recorded: θ_0…θ_K of the replay and every step the observer reads.
	every := engineStopEvery
	switch {
	case o.watchSpan:
		every = 1
	case o.riskEvery > 0:
		every = o.riskEvery
	}
	var list []int
	for t := 0; t <= o.maxSteps; t++ {
		if t <= o.replaySteps || t%every == 0 {
			list = append(list, t)
		}
	}
	var stopAt, stopLog float64
	if o.stopAtInterpolation {
		if stopAt, err = interpolationStop(rc); err != nil {
			return nil, err
		}
		// 𝓛 = Σ q_i r_i²/2 ≥ min q·‖r‖²/2: once the engine's 𝓛 is below
		// min q·stopAt²/2 our residual is below stopAt, so the engine may
		// stop there (a saving only: the end is judged by our residual).
		stopLog = math.Log(floats.Min(q)*stopAt*stopAt/2) - 1e-9
	}
	tr, runErr := r.TrainWeighted(fmt.Sprintf("GD %v", c), obj, theta0, q, eta, o.maxSteps, stopLog, engines.Schedule{List: list})
	if tr == nil {
		return nil, runErr
	}
	run := &RegressionRun{Case: rc, Traj: tr}
	if o.watchSpan {
		run.Span = regressionth.NewSpanMonitor(rc)
	}
	var thetas [][]float64
	var weights [][]float64
	replay := o.replaySteps > 0
	theta, steps := theta0, 0
walk:
	for _, rec := range tr.Records {
		t := rec.Step
		if t == 0 {
			if replay {
				thetas = append(thetas, theta0)
			}
			if o.riskEvery > 0 {
				run.Risks = append(run.Risks, rc.Risk(theta0))
			}
			continue
		}
		theta, steps = rec.Theta, t
		if replay && t <= o.replaySteps {
			thetas = append(thetas, rec.Theta)
			weights = append(weights, q)
			if t == o.replaySteps {
				v := regressionth.WeightsActed(regressionth.GRWSteps{Case: rc, Eta: eta, Thetas: thetas, Weights: weights})
				run.Replay = &v
				if v.Status == theorems.Violated {
					break walk
				}
			}
		}
		if run.Span != nil {
			run.Span.Observe(t, rec.Theta)
		}
		if o.riskEvery > 0 && t%o.riskEvery == 0 {
			run.Risks = append(run.Risks, rc.Risk(rec.Theta))
		}
		if stopAt > 0 && (o.riskEvery == 0 || t%o.riskEvery == 0) && residual(ds, rec.Theta) <= stopAt {
			run.Converged = true
			break walk
		}
	}
	if replay && run.Replay == nil && len(thetas) >= 2 {
		// The run ended (stopped or failed) before replaySteps steps.
		v := regressionth.WeightsActed(regressionth.GRWSteps{Case: rc, Eta: eta, Thetas: thetas, Weights: weights[:len(thetas)-1]})
		run.Replay = &v
	}
	if runErr != nil && (run.Replay == nil || run.Replay.Status != theorems.Violated) {
		return nil, runErr
	}
	run.Theta, run.Steps = append([]float64(nil), theta...), steps
	if o.rate {
		qmin, qmax := make([]float64, steps), make([]float64, steps)
		for i := range qmin {
			qmin[i], qmax[i] = floats.Min(q), floats.Max(q)
		}
		run.Rate = &regressionth.GRWRate{Eta: eta, QMin: qmin, QMax: qmax}
	}
	return run, nil
}

package regression

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	regressionth "github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// Optimizers of the generated runs.
const (
	OptGD = iota
	OptMomentum
	OptAdam
)

var optNames = []string{"gd", "momentum", "adam"}

// RegressionCase is a generated overparameterized linear regression
// problem (ZD §4.1): N samples, rows of X random unit vectors in D > N
// dimensions (independent almost surely), targets y ~ N(0, I), a start θ₀
// (zero or N(0, I)), K groups, a GRW scheme with its parameter, and an
// optimizer.
type RegressionCase struct {
	N      int // 2…8
	Ratio  int // d = Ratio·N + Extra, Ratio 2…5
	Extra  int // 0…3
	K      int // groups 1…3
	Zero   bool
	Scheme int
	Param  float64 // in [0, 1): mapped to ν, ρ, α, schedule rates
	Opt    int
	Seed   uint64
	// Fault names an engine fault planted in the run (package faults);
	// empty for the claims.
	Fault string
}

func (c RegressionCase) n() int { return min(max(c.N, 2), 12) }
func (c RegressionCase) d() int { return max(c.Ratio, 2)*c.n() + c.Extra }
func (c RegressionCase) k() int { return min(max(c.K, 1), c.n()) }

// String describes the case so that it can be rebuilt.
func (c RegressionCase) String() string {
	th0 := "N(0,I)"
	if c.Zero {
		th0 = "0"
	}
	return fmt.Sprintf("n=%d d=%d K=%d θ₀=%s scheme=%s(%.3g) opt=%s seed=%d", c.n(), c.d(), c.k(), th0, cases.SchemeNames[c.Scheme], c.Param, optNames[c.Opt], c.Seed) + properties.FaultSuffix(c.Fault)
}

func (c RegressionCase) WithFault(name string) any { c.Fault = name; return c }

// FaultActs: heavy ball's fault acts on heavy-ball runs only, a
// reweighting fault on the cases whose first weights it changes (ignoring
// or squaring uniform weights — ERM, IW with equal groups, Group DRO with
// one group — does nothing).
func (c RegressionCase) FaultActs(name string) bool {
	if name == "momentum-misindexed" {
		return c.Opt == OptMomentum
	}
	q, err := c.firstWeights()
	return err == nil && weightFaultActs(name, q)
}

// Problem draws the data (groups included) and θ₀.
func (c RegressionCase) Problem() (*dataset.Dataset, []float64) {
	n, d := c.n(), c.d()
	r := rand.New(rand.NewPCG(c.Seed, 21))
	ds := &dataset.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), Groups: make([]int, n)}
	for i := 0; i < n; i++ {
		row := ds.Row(i)
		for {
			for j := range row {
				row[j] = r.NormFloat64()
			}
			if nrm := floats.Norm(row, 2); nrm > 0 {
				floats.Scale(1/nrm, row)
				break
			}
		}
		ds.Y[i] = r.NormFloat64()
		ds.Groups[i] = i % c.k()
	}
	r.Shuffle(n, func(i, j int) { ds.Groups[i], ds.Groups[j] = ds.Groups[j], ds.Groups[i] })
	theta0 := make([]float64, d)
	if !c.Zero {
		for j := range theta0 {
			theta0[j] = r.NormFloat64()
		}
	}
	return ds, theta0
}

// Weighting returns the case's GRW scheme for a dataset of n samples.
func (c RegressionCase) Weighting(n int) (train.Weighting, error) {
	return cases.NewScheme(c.Scheme, c.Param, c.Seed, n)
}

// GenRegression generates regression cases with the given schemes and
// optimizers (nil: all schemes, GD and momentum).
func GenRegression(schemes, opts []int) properties.Gen[RegressionCase] {
	if schemes == nil {
		schemes = make([]int, cases.NumSchemes)
		for i := range schemes {
			schemes[i] = i
		}
	}
	if opts == nil {
		opts = []int{OptGD, OptMomentum}
	}
	return properties.StructOf[RegressionCase](map[string]gopter.Gen{
		"N":      gen.IntRange(2, 8),
		"Ratio":  gen.IntRange(2, 5),
		"Extra":  gen.IntRange(0, 3),
		"K":      gen.IntRange(1, 3),
		"Zero":   gen.Bool(),
		"Scheme": gen.OneConstOf(cases.Anys(schemes)...),
		"Param":  gen.Float64Range(0, 1),
		"Opt":    gen.OneConstOf(cases.Anys(opts)...),
		"Seed":   gen.UInt64(),
	})
}

// lambdaMax returns λ_max(XXᵀ) = ‖X‖₂².
func lambdaMax(ds *dataset.Dataset) float64 {
	var svd mat.SVD
	svd.Factorize(mat.NewDense(ds.N, ds.D, ds.X), mat.SVDNone)
	s := svd.Values(nil)[0]
	return s * s
}

// Step sizes of the generated runs. Every GRW weight is ≤ 1, so the
// weighted objective is L-smooth with L = λ_max(XᵀQX) ≤ λ_max(XXᵀ) (ZD
// eq. 27): GD with η = 1/λ_max(XXᵀ) is a descent method for every scheme
// (the "small η" of ZD Thm 2). Heavy ball (β = 0.5) takes half that, so
// that switching weights cannot excite its oscillation. Adam (the
// control) takes η = 0.01 and ε = 1e-3 instead of the default 1e-8: its
// first steps are sign-like (|g| ≫ ε), which moves θ off span{x_i}, and
// the larger ε damps its late steps so that it does interpolate (within
// about 1500 steps on the generated cases). With ε = 1e-8 its late steps
// stay of size ~η and the risk need not reach 0, which would leave ZD-T1's
// hypothesis unmet instead of testing its conclusion.
const (
	momentumBeta = 0.5
	adamLR       = 0.01
	adamEpsilon  = 1e-3
)

func (c RegressionCase) optimizer(ds *dataset.Dataset) (train.Optimizer, error) {
	opt, _, _, err := c.optimizerStep(ds, 0)
	return opt, err
}

// optimizerStep returns the case's optimizer with its step η and heavy-ball
// β (β = 0 for GD; η = 0 for Adam, whose steps no replay models); lr > 0
// replaces GD's step.
func (c RegressionCase) optimizerStep(ds *dataset.Dataset, lr float64) (opt train.Optimizer, eta, beta float64, err error) {
	lm := lambdaMax(ds)
	switch c.Opt {
	case OptGD:
		eta = 1 / lm
		if lr > 0 {
			eta = lr
		}
		opt, err = train.NewGD(eta)
		return opt, eta, 0, err
	case OptMomentum:
		opt, err = train.NewMomentum(0.5/lm, momentumBeta)
		return opt, 0.5 / lm, momentumBeta, err
	case OptAdam:
		opt, err = train.NewAdam(adamLR, 0, 0, adamEpsilon)
		return opt, 0, 0, err
	}
	return nil, 0, 0, fmt.Errorf("unknown optimizer %d", c.Opt)
}

// watched wraps an optimizer and calls after(t, θ_t) after every step; an
// error from it ends the run.
type watched struct {
	train.Optimizer
	t     int
	after func(t int, theta []float64) error
}

func (w *watched) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	le, err := w.Optimizer.Step(obj, theta, ev)
	w.t++
	if err == nil && w.after != nil {
		err = w.after(w.t, theta)
	}
	return le, err
}

func (w *watched) Reset(p int) {
	if r, ok := w.Optimizer.(train.Resetter); ok {
		r.Reset(p)
	}
	w.t = 0
}

// errConverged ends a run early: the residual is far enough below what a
// check can resolve. errNotReplayed ends it once its first steps were not
// GD on the recorded weights (RegressionRun.Replay): nothing later in the
// run can be trusted.
var (
	errConverged   = errors.New("converged")
	errNotReplayed = errors.New("first steps not replayed")
)

// RegressionRun is a finished run of a case.
type RegressionRun struct {
	Case  regressionth.RegressionCase
	Theta []float64 // θ_T
	Steps int
	Span  *regressionth.SpanMonitor
	Risks []float64 // ERM risk every riskEvery steps, from step 0
	Traj  *train.Trajectory
	Prev  []float64 // θ stationaryEvery steps before the end
	// Converged reports that a stopping rule (stopAtInterpolation,
	// stationaryEvery) ended the run before maxSteps.
	Converged bool
	// Replay is regression.WeightsActed on the first replaySteps steps (nil
	// when not asked for, or for Adam); a violated replay ended the run.
	Replay *theorems.Verdict
	// Rate holds η and the extremes of the weights of every step taken
	// (GD runs with rate set; nil otherwise).
	Rate *regressionth.GRWRate
}

// runOptions say what a run records and when it stops.
type runOptions struct {
	maxSteps int
	// stopAtInterpolation ends the run once ‖Xθ − y‖/σ_min is 1/10 of what
	// regression.Interpolator needs to decide.
	stopAtInterpolation bool
	watchSpan           bool
	riskEvery           int // 0: no risk trace
	keepWeightsEvery    int // 0: no weights trace
	reg                 float64
	regCenter           []float64       // nil: θ₀
	lr                  float64         // > 0: GD's step instead of 1/λ_max(XXᵀ)
	weighting           train.Weighting // overrides the case's scheme
	// stationaryEvery keeps θ every k steps as Prev and stops once
	// ‖θ_t − θ_{t−k}‖ ≤ StationaryShare·RegularizedLimitBound·‖θ_t‖/10.
	stationaryEvery int
	// replaySteps > 0 records θ_0…θ_K and the scheme's q^{(0)}…q^{(K−1)}
	// (K = replaySteps) and replays them (regression.WeightsActed) for GD and
	// heavy ball; rate records the extremes of q^{(t)} at every step for
	// GD's computed rate (regression.GRWRate).
	replaySteps int
	rate        bool
}

// Run trains the case's linear model on the squared loss from θ₀ with its
// scheme and optimizer.
func (c RegressionCase) Run(o runOptions) (*RegressionRun, error) {
	ds, theta0 := c.Problem()
	return runRegression(ds, theta0, c, o)
}

func runRegression(ds *dataset.Dataset, theta0 []float64, c RegressionCase, o runOptions) (*RegressionRun, error) {
	rc := regressionth.RegressionCase{X: ds.X, Y: ds.Y, N: ds.N, D: ds.D, Theta0: theta0}
	f, err := faults.Lookup(c.Fault)
	if err != nil {
		return nil, err
	}
	model, err := models.NewLinear(ds.D, 1)
	if err != nil {
		return nil, err
	}
	obj, err := train.NewObjective(f.Model(model), f.Loss(losses.Squared{}), ds)
	if err != nil {
		return nil, err
	}
	if o.reg > 0 {
		center := o.regCenter
		if center == nil {
			center = theta0
		}
		obj.Reg = train.L2{Mu: o.reg, Theta0: center}
	}
	f.Objective(obj)
	w := o.weighting
	if w == nil {
		if w, err = c.Weighting(ds.N); err != nil {
			return nil, err
		}
	}
	opt, eta, beta, err := c.optimizerStep(ds, o.lr)
	if err != nil {
		return nil, err
	}
	opt = f.Optimizer(opt)
	run := &RegressionRun{Case: rc}
	var tap *weightTap
	var thetas [][]float64
	replay := o.replaySteps > 0 && eta > 0
	if replay || (o.rate && c.Opt == OptGD) {
		tap = &weightTap{Weighting: w, extremes: o.rate && c.Opt == OptGD}
		if replay {
			tap.keep = o.replaySteps
			thetas = append(thetas, append([]float64(nil), theta0...))
		}
		if tap.extremes {
			// Room for the first steps only: most runs stop at interpolation
			// long before maxSteps (ZD-T1: 30 000), and a slice sized for
			// all of them is cleared for nothing (1 GB per test process).
			n := min(o.maxSteps+1, 1<<10)
			tap.qmin, tap.qmax = make([]float64, 0, n), make([]float64, 0, n)
		}
		w = tap
	}
	var stopAt float64
	if o.stopAtInterpolation {
		if stopAt, err = interpolationStop(rc); err != nil {
			return nil, err
		}
	}
	if o.watchSpan {
		run.Span = regressionth.NewSpanMonitor(rc)
	}
	if o.riskEvery > 0 {
		run.Risks = append(run.Risks, rc.Risk(theta0))
	}
	wo := &watched{Optimizer: opt, after: func(t int, theta []float64) error {
		if replay && t <= o.replaySteps {
			thetas = append(thetas, append([]float64(nil), theta...))
			if t == o.replaySteps {
				v := regressionth.WeightsActed(regressionth.GRWSteps{Case: rc, Eta: eta, Beta: beta, Thetas: thetas, Weights: tap.first})
				run.Replay = &v
				if v.Status == theorems.Violated {
					return errNotReplayed
				}
			}
		}
		if run.Span != nil {
			run.Span.Observe(t, theta)
		}
		if o.riskEvery > 0 && t%o.riskEvery == 0 {
			run.Risks = append(run.Risks, rc.Risk(theta))
		}
		if stopAt > 0 && (o.riskEvery == 0 || t%o.riskEvery == 0) && residual(ds, theta) <= stopAt {
			return errConverged
		}
		if k := o.stationaryEvery; k > 0 && t%k == 0 {
			if floats.Distance(theta, run.Prev, 2) <= 0.1*regressionth.StationaryShare*regressionth.RegularizedLimitBound*floats.Norm(theta, 2) {
				return errConverged // Prev stays θ_{t−k}
			}
			copy(run.Prev, theta)
		}
		return nil
	}}
	if o.stationaryEvery > 0 {
		run.Prev = append([]float64(nil), theta0...)
	}
	theta := append([]float64(nil), theta0...)
	every := o.maxSteps
	if o.keepWeightsEvery > 0 {
		every = o.keepWeightsEvery
	}
	tr, err := train.Run(obj, wo, theta, train.Config{Steps: o.maxSteps, Every: every, Weighting: w, KeepWeights: o.keepWeightsEvery > 0})
	if replay && run.Replay == nil && len(thetas) >= 2 {
		// The run ended (converged or diverged) before replaySteps steps:
		// replay the steps it took.
		k := len(thetas) - 1
		v := regressionth.WeightsActed(regressionth.GRWSteps{Case: rc, Eta: eta, Beta: beta, Thetas: thetas, Weights: tap.first[:k]})
		run.Replay = &v
	}
	if err != nil && !errors.Is(err, errConverged) && !errors.Is(err, errNotReplayed) {
		if run.Replay == nil || run.Replay.Status != theorems.Violated {
			return nil, err
		}
		// Diverged after steps that were not GD on the recorded weights:
		// the replay's verdict stands.
	}
	run.Theta, run.Steps, run.Traj = theta, wo.t, tr
	run.Converged = errors.Is(err, errConverged)
	if tap != nil && tap.extremes {
		// Update ran at t = 0…T−1 and, when the budget ended the run, at T.
		k := min(run.Steps, len(tap.qmin))
		run.Rate = &regressionth.GRWRate{Eta: eta, QMin: tap.qmin[:k], QMax: tap.qmax[:k]}
	}
	return run, nil
}

// interpolationStop is the residual ‖Xθ − y‖ at which a run stops once
// interpolating (runOptions.stopAtInterpolation): 1/10 of what
// regression.Interpolator needs to decide.
func interpolationStop(rc regressionth.RegressionCase) (float64, error) {
	star, err := rc.Interpolator()
	if err != nil {
		return 0, err
	}
	span, err := numerics.NewRowSpan(rc.X, rc.N, rc.D)
	if err != nil {
		return 0, err
	}
	return 0.1 * regressionth.InterpolatorResidualShare * regressionth.InterpolatorBound * floats.Norm(star, 2) * span.SMin, nil
}

// residual returns ‖Xθ − y‖.
func residual(ds *dataset.Dataset, theta []float64) float64 {
	var s float64
	for i := 0; i < ds.N; i++ {
		r := floats.Dot(ds.Row(i), theta) - ds.Y[i]
		s += r * r
	}
	return math.Sqrt(s)
}

// firstWeights returns q^{(0)} of the case's scheme at θ₀.
func (c RegressionCase) firstWeights() ([]float64, error) {
	ds, theta0 := c.Problem()
	w, err := c.Weighting(ds.N)
	if err != nil {
		return nil, err
	}
	if err := w.Start(ds); err != nil {
		return nil, err
	}
	ll := make([]float64, ds.N)
	for i := range ll {
		r := floats.Dot(ds.Row(i), theta0) - ds.Y[i]
		ll[i] = 2*math.Log(math.Abs(r)) - math.Ln2
	}
	q := make([]float64, ds.N)
	return q, w.Update(0, ll, q)
}

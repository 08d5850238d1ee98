package regression

import (
	"fmt"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/fixtures"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	regressionth "github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// Section D of the catalog: generalized reweighting for regression (ZD §4.1,
// §4.3, App. D.1–D.2, D.4, Fig. 1).

// Budgets of the section's runs (steps), at the quick budget. The generated
// problems have κ(XXᵀ) ≲ 50 and weights ≥ 0.2/n, so GD with
// η = 1/λ_max(XXᵀ) reaches the interpolator to 1e-11 in a few thousand
// steps (ZD eq. 31: ‖θ − θ*‖² contracts by 1 − η·q_min·λ_min per step);
// the caps leave a factor ≥ 5 to spare. A GD run that hits them is
// decided by the computed rate (regression.GRWRate: violated when its error
// is above what GD on the recorded weights allows after that many steps)
// and is inconclusive, never passed, only within it. replaySteps is the
// number of first steps ZD-T1 replays from the recorded weights
// (regression.WeightsActed): one step shows a fault in the weights; 16 take
// in the dynamic schemes' first moves and a stale gradient's lag.
const (
	interpSteps  = 30000 // ZD-T1, ZD-T6lin: until the residual is invisible
	spanSteps    = 300   // ZD-span: the invariant is per step
	riskSteps    = 20000 // ZD-T2
	replaySteps  = 16    // ZD-T1's replay of the first steps (regression.WeightsActed)
	riskEvery    = 10
	weightSteps  = 20000 // ZD-GDRO, weights recorded at every step
	weightsEvery = 1
	fig1Steps    = 400000
)

// interpolatorProperty runs generated cases to interpolation and applies
// ZD-T1's check.
func interpolatorProperty(name string, opts []int) properties.Property[RegressionCase] {
	return properties.Property[RegressionCase]{Name: name, Gen: GenRegression(nil, opts), Check: func(r *properties.Runner, c RegressionCase) theorems.Verdict {
		run, err := c.RunOn(r, runOptions{maxSteps: interpSteps, stopAtInterpolation: true, replaySteps: replaySteps, rate: true})
		if err != nil {
			return properties.BuildFailed(err)
		}
		return interpolatorVerdict(run)
	}}
}

// interpolatorVerdict is ZD-T1's check of one run: the finite-time half
// first, that the weights acted (the replay, GD and heavy ball; Adam's
// steps are not a linear combination to replay), then θ_T against θ*
// (with GD's computed contraction bound when the run recorded it).
func interpolatorVerdict(run *RegressionRun) theorems.Verdict {
	if run.Replay != nil && run.Replay.Status != theorems.Holds {
		return *run.Replay
	}
	var v theorems.Verdict
	if run.Rate != nil {
		v = regressionth.InterpolatorAtRate(regressionth.GRWRun{Case: run.Case, Theta: run.Theta, Rate: *run.Rate})
	} else {
		v = regressionth.Interpolator(run.Case, run.Theta)
	}
	v.Detail = fmt.Sprintf("%s after %d steps", v.Detail, run.Steps)
	if run.Replay != nil {
		v.Detail += "; " + run.Replay.Detail
	}
	return v
}

func spanProperty(name string, opts []int) properties.Property[RegressionCase] {
	return properties.Property[RegressionCase]{Name: name, Gen: GenRegression(nil, opts), Check: func(r *properties.Runner, x RegressionCase) theorems.Verdict {
		run, err := x.RunOn(r, runOptions{maxSteps: spanSteps, watchSpan: true})
		if err != nil {
			return properties.BuildFailed(err)
		}
		return run.Span.Verdict()
	}}
}

func riskProperty(name string, schemes []int) properties.Property[RegressionCase] {
	return properties.Property[RegressionCase]{Name: name, Gen: GenRegression(schemes, []int{OptGD}), Check: func(r *properties.Runner, x RegressionCase) theorems.Verdict {
		run, err := x.RunOn(r, runOptions{maxSteps: riskSteps, riskEvery: riskEvery, rate: true})
		if err != nil {
			return properties.BuildFailed(err)
		}
		return regressionth.RiskVanishes(run.Risks, &regressionth.GRWRun{Case: run.Case, Theta: run.Theta, Rate: *run.Rate})
	}}
}

// weightsProperty draws cases with at least two groups: Group DRO with one
// group is ERM, whose weights are constant whatever the engine does.
func weightsProperty(name string, schemes []int) properties.Property[RegressionCase] {
	g := GenRegression(schemes, []int{OptGD}).SuchThat(func(c RegressionCase) bool { return c.k() >= 2 })
	return properties.Property[RegressionCase]{Name: name, Gen: g, Check: func(r *properties.Runner, x RegressionCase) theorems.Verdict {
		// The run stops once the residual is invisible (as for ZD-T1): Group
		// DRO's weights then move by at most ν·R̂ per step, far below the
		// bound, while a schedule keeps its own course.
		run, err := x.Run(runOptions{maxSteps: weightSteps, keepWeightsEvery: weightsEvery, stopAtInterpolation: true})
		if err != nil {
			return properties.BuildFailed(err)
		}
		if v, ok := x.weightsWitnessed(run.Traj); !ok {
			return v
		}
		return weightsVerdict(run.Traj)
	}}
}

func weightsVerdict(tr *train.Trajectory) theorems.Verdict {
	ws := make([][]float64, 0, len(tr.Records))
	for _, r := range tr.Records {
		ws = append(ws, r.Weights)
	}
	// The last record may fall between two multiples of the spacing; the
	// check needs equal spacing.
	if n := len(tr.Records); n >= 2 && tr.Records[n-1].Step-tr.Records[n-2].Step != weightsEvery {
		ws = ws[:n-1]
	}
	return regressionth.WeightsConverge(ws)
}

// RegularizedCase is a ZD-T6lin case: a regression case run with L2
// regularization (μ/2)‖θ − θ₀‖² at several strengths μ = c·q_min·λ_min(XXᵀ),
// c from the grid below, or (the control) at one large μ.
type RegularizedCase struct {
	Reg   RegressionCase
	Large bool
	// CenterAtZero regularizes toward 0 instead of θ₀ (the control "wrong
	// regularizer center", an engine bug the GD-limit comparison must see).
	CenterAtZero bool
	// Fault names an engine fault planted in the runs (package faults).
	Fault string
}

func (c RegularizedCase) String() string {
	return fmt.Sprintf("%v large-μ=%v center-at-0=%v", c.Reg, c.Large, c.CenterAtZero) + properties.FaultSuffix(c.Fault)
}

func (c RegularizedCase) WithFault(name string) any { c.Fault = name; return c }

// FaultActs: the uncentred gradient μθ equals μ(θ − θ₀) when θ₀ = 0; a
// reweighting fault must change the static weights (as for
// RegressionCase).
func (c RegularizedCase) FaultActs(name string) bool {
	if name == "l2-gradient-uncentred" {
		return !c.Reg.Zero
	}
	return c.Reg.FaultActs(name)
}

// regularizedRisk is ZD-T6lin's risk budget ε, as a fraction of R̂(θ₀): with
// μ ≤ 0.03·q_min·λ_min, ‖r_μ‖ ≤ (μ/(q_min λ_min + μ))·√(max q/min q)·‖r₀‖
// (push-through form and Prop. 17), so R̂(θ_μ) ≤ 0.03²·7·R̂(θ₀) < 0.01·R̂(θ₀)
// for the generated weights (max q/min q ≤ 7).
const regularizedRisk = 0.01

// regularizedGrid holds the c of μ = c·q_min·λ_min(XXᵀ) for the claim;
// regularizedLarge is c·q_max·λ_max(XXᵀ) of the control.
var (
	regularizedGrid  = []float64{1e-4, 1e-3, 1e-2, 3e-2}
	regularizedLarge = 100.0
)

func (c RegularizedCase) check() theorems.Verdict {
	ds, theta0 := c.Reg.Problem()
	w, err := c.Reg.Weighting(ds.N)
	if err != nil {
		return properties.BuildFailed(err)
	}
	if err := w.Start(ds); err != nil {
		return properties.BuildFailed(err)
	}
	q := make([]float64, ds.N)
	if err := w.Update(0, nil, q); err != nil {
		return properties.BuildFailed(err)
	}
	rc := regressionth.RegressionCase{X: ds.X, Y: ds.Y, N: ds.N, D: ds.D, Theta0: theta0}
	lmax := lambdaMax(ds)
	span, err := numerics.NewRowSpan(ds.X, ds.N, ds.D)
	if err != nil {
		return theorems.Assumption("x_i not independent: %v", err)
	}
	lmin := span.SMin * span.SMin
	var mus []float64
	switch {
	case c.Large:
		mus = []float64{regularizedLarge * floats.Max(q) * lmax}
	case c.CenterAtZero:
		// One μ suffices to show the bug; the largest of the grid makes the
		// wrong limit (pulled toward 0 off the span) the most visible.
		mus = []float64{regularizedGrid[len(regularizedGrid)-1] * floats.Min(q) * lmin}
	default:
		for _, g := range regularizedGrid {
			mus = append(mus, g*floats.Min(q)*lmin)
		}
	}
	var runs []regressionth.RegularizedRun
	for _, mu := range mus {
		center := theta0
		if c.CenterAtZero {
			center = make([]float64, ds.D)
		}
		run, err := c.regularizedRun(ds, center, theta0, mu, lmax)
		if err != nil {
			return properties.BuildFailed(err)
		}
		if !run.Converged {
			// The check decides what it can (a run that left θ₀ + span is
			// violated however far it got); Prev = Theta marks it moving.
			run.Prev = nil
		}
		runs = append(runs, regressionth.RegularizedRun{Mu: mu, Theta: run.Theta, Prev: run.Prev, Steps: run.Steps})
		if c.Fault != "" && len(runs) < len(mus) {
			// A fault control stops at the first μ whose runs so far do not
			// hold: RegularizedGap returns at the first run that fails a
			// test in μ's order, so such a verdict is the whole grid's, or
			// else the gap of these runs is already too large, and it only
			// grows with more runs: caught wherever the whole grid catches
			// it (and where a later μ would have left it undecided). The clean
			// twin holds on these μ's: it holds on the whole grid (the
			// control's validity), and each test is per run, the worst gap
			// of fewer runs no larger.
			if v := regressionth.RegularizedGap(rc, q, regularizedRisk*rc.Risk(theta0), runs); v.Status != theorems.Holds {
				return v
			}
		}
	}
	return regressionth.RegularizedGap(rc, q, regularizedRisk*rc.Risk(theta0), runs)
}

// regularizedRun is GD from θ₀ with η = 1/(λ_max(XXᵀ) + μ) ≤ 1/L on the
// static GRW objective plus (μ/2)‖θ − center‖².
func (c RegularizedCase) regularizedRun(ds *dataset.Dataset, center, theta0 []float64, mu, lmax float64) (*RegressionRun, error) {
	rcCase := c.Reg
	rcCase.Opt, rcCase.Fault = OptGD, c.Fault
	return runRegression(ds, theta0, rcCase, runOptions{maxSteps: interpSteps, reg: mu, regCenter: center, stationaryEvery: 10, lr: 1 / (lmax + mu)})
}

// GenRegularized generates ZD-T6lin cases over static schemes.
func GenRegularized(large, centerAtZero bool) properties.Gen[RegularizedCase] {
	return properties.StructOf[RegularizedCase](map[string]gopter.Gen{
		"Reg": gopter.Gen(GenRegression(cases.RegSchemes, []int{OptGD}).Map(func(c RegressionCase) RegressionCase {
			c.Zero = c.Zero && !centerAtZero // the control needs θ₀ ≠ 0
			return c
		})),
		"Large":        gen.Const(large),
		"CenterAtZero": gen.Const(centerAtZero),
	})
}

// DigitPair selects the images of ZD-F1: the first five of digit A and the
// first of digit B (A ≠ B) from the embedded digits; Fault names an engine
// fault planted in the runs (package faults).
type DigitPair struct {
	A, B  int
	Fault string
}

func (p DigitPair) WithFault(name string) any { p.Fault = name; return p }

// GenDigitPair generates pairs of different digits.
func GenDigitPair() properties.Gen[DigitPair] {
	return properties.StructOf[DigitPair](map[string]gopter.Gen{
		"A": gen.IntRange(0, 9),
		"B": gen.IntRange(0, 8),
	}).Map(func(p DigitPair) DigitPair {
		if p.B >= p.A {
			p.B++ // B ranges over the nine digits other than A
		}
		return p
	})
}

// Fig1Row is one line of the Fig. 1 reproduction.
type Fig1Row struct {
	Scheme string
	// Distance is ‖θ_T − θ*‖ and RelDistance ‖θ_T − θ*‖/‖θ*‖; Risk is the
	// ERM training risk R̂(θ_T) = (1/n)Σ½(⟨θ_T, x_i⟩ − y_i)².
	Distance, RelDistance, Risk, Norm float64
	Steps                             int
	// Weights are the final q (Group DRO's group weights are their sums
	// per group).
	Weights []float64
	// Run is ZD-T1's verdict on this run alone (interpolatorVerdict: the
	// replay of its first steps, then θ_T against the computed contraction
	// bound), for GD runs; nil for the others.
	Run *theorems.Verdict
}

// Fig1 reproduces ZD Fig. 1 on the embedded digits: a linear model, the
// squared loss, θ₀ = 0, trained by GD (η = 1/λ_max(XXᵀ)) with ERM,
// importance weighting and Group DRO (ν = train.DefaultGroupDRONu; groups
// = the two digits) for the given number of steps, or (steps = 0) until the
// residual is invisible at the precision of ZD-T1 (at most fig1Steps).
// opt selects the optimizer (OptAdam is the control). It returns the rows,
// the problem and the runs' end points.
func Fig1(p DigitPair, opt, steps int) ([]Fig1Row, regressionth.RegressionCase, []regressionth.SchemeEnd, error) {
	six, _, err := fixtures.DigitsSix(p.A, p.B)
	if err != nil {
		return nil, regressionth.RegressionCase{}, nil, err
	}
	return fig1On(six, p, opt, steps, false)
}

// digitsSix is fixtures.DigitsSix(p.A, p.B) read once per runner and pair
// (it parses all 1 797 images; the fault controls draw the claim's pairs):
// shared, read only.
func digitsSix(r *properties.Runner, p DigitPair) (*dataset.Dataset, error) {
	return properties.Cache[*dataset.Dataset](r, "digitsSix").GetKept(fmt.Sprintf("%d/%d", p.A, p.B), func() (*dataset.Dataset, error) {
		six, _, err := fixtures.DigitsSix(p.A, p.B)
		return six, err
	})
}

// fig1On is Fig1 on the six images six of p (read only). With untilFailed
// it returns after the first GD row whose run does not hold (Fig1Row.Run):
// fig1Property's verdict is then that row's, whatever the schemes after it
// do, so they are not trained.
func fig1On(six *dataset.Dataset, p DigitPair, opt, steps int, untilFailed bool) ([]Fig1Row, regressionth.RegressionCase, []regressionth.SchemeEnd, error) {
	theta0 := make([]float64, six.D)
	rc := regressionth.RegressionCase{X: six.X, Y: six.Y, N: six.N, D: six.D, Theta0: theta0}
	star, err := rc.Interpolator()
	if err != nil {
		return nil, rc, nil, err
	}
	gdro, err := train.NewGroupDRO(train.DefaultGroupDRONu, nil)
	if err != nil {
		return nil, rc, nil, err
	}
	var rows []Fig1Row
	var ends []regressionth.SchemeEnd
	for _, w := range []train.Weighting{&train.ERM{}, &train.ImportanceWeighting{}, gdro} {
		c := RegressionCase{Opt: opt, Fault: p.Fault}
		o := runOptions{maxSteps: steps, weighting: w}
		if opt == OptGD {
			o.replaySteps, o.rate = replaySteps, true
		}
		if steps == 0 {
			o.maxSteps, o.stopAtInterpolation = fig1Steps, true
		}
		run, err := runRegression(six, theta0, c, o)
		if err != nil {
			return nil, rc, nil, err
		}
		row := Fig1Row{Scheme: w.Scheme().String(), Distance: floats.Distance(run.Theta, star, 2), Risk: rc.Risk(run.Theta), Norm: floats.Norm(run.Theta, 2), Steps: run.Steps}
		row.RelDistance = row.Distance / floats.Norm(star, 2)
		if opt == OptGD {
			v := interpolatorVerdict(run)
			row.Run = &v
		}
		if g, ok := w.(*train.GroupDRO); ok {
			row.Weights = make([]float64, g.Grouping().K())
			g.GroupWeights(row.Weights)
		}
		rows = append(rows, row)
		ends = append(ends, regressionth.SchemeEnd{Scheme: w.Scheme().String(), Theta: run.Theta})
		if untilFailed && row.Run != nil && row.Run.Status != theorems.Holds {
			break
		}
	}
	return rows, rc, ends, nil
}

func fig1Property(name string, opt int, pairs properties.Gen[DigitPair]) properties.Property[DigitPair] {
	return properties.Property[DigitPair]{Name: name, Gen: pairs, Check: func(r *properties.Runner, x DigitPair) theorems.Verdict {
		p := x
		six, err := digitsSix(r, p)
		if err != nil {
			return properties.BuildFailed(err)
		}
		rows, rc, ends, err := fig1On(six, p, opt, 0, true)
		if err != nil {
			return properties.BuildFailed(err)
		}
		// Each GD run is first one of ZD-T1's cases: weights acted, θ_T
		// within the computed bound of θ*.
		for _, r := range rows {
			if r.Run != nil && r.Run.Status != theorems.Holds {
				v := *r.Run
				v.Detail = r.Scheme + ": " + v.Detail
				return v
			}
		}
		var ref []float64
		if p.A == 0 && p.B == 1 {
			d6, err := fixtures.LoadDigits6()
			if err != nil {
				return properties.BuildFailed(err)
			}
			ref = d6.ThetaStar
		}
		return regressionth.SameInterpolator(rc, ref, ends)
	}}
}

// Entries returns the entries of catalog section D, unbound (suite.Entries
// and properties.Bind add their catalog Info and fault controls).
func Entries() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T1"}, Cases: 100, Figures: grwDistanceFigures,
		Claims: []properties.Prop{
			interpolatorProperty("every GRW scheme, GD", []int{OptGD}),
			interpolatorProperty("every GRW scheme, heavy-ball momentum", []int{OptMomentum}),
		},
		Controls: []properties.Prop{properties.Drops("gd", interpolatorProperty("Adam (leaves the span)", []int{OptAdam}))},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "the iterates leave span{x_i}, so the limit is another interpolator than θ₀'s projection"},
			{Fault: "loss-factor-dropped", Why: "the run never settles at the interpolator: it stays above the computed contraction bound"},
			{Fault: "stale-gradient", Why: "the first steps disagree with GD replayed from the recorded iterates and weights"},
			{Fault: "weights-ignored", Why: "the limit is weight-free but the first steps are not: GD replayed from the recorded weights disagrees"},
			{Fault: "weights-squared", Why: "GD replayed from the recorded weights disagrees with the run's first steps"},
			{Fault: "sample-dropped", Why: "the run interpolates the other samples only"},
			{Fault: "missing-zero-grad", Why: "from the second step on each step is −η times the sum of every gradient so far: GD replayed from the recorded iterates and weights disagrees with the first steps"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-span"}, Cases: 100,
		Claims:   []properties.Prop{spanProperty("every GRW scheme, GD and heavy-ball momentum", []int{OptGD, OptMomentum})},
		Controls: []properties.Prop{properties.Drops("gd", spanProperty("Adam", []int{OptAdam}))},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "a step along e₀ leaves span{x_i}"},
			{Fault: "momentum-misindexed", Why: "coordinate 0 is filtered differently from the others, so the step leaves span{x_i} (heavy-ball cases)"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T2"}, Cases: 50,
		Claims:   []properties.Prop{riskProperty("ERM, IW, static, Group DRO, A1 schedules", cases.A1Schemes)},
		Controls: []properties.Prop{properties.Drops("min-weight", riskProperty("one q_i → 0 geometrically", []int{cases.SchemeVanishing}))},
		Faults: []properties.FaultControl{
			{Fault: "loss-factor-dropped", Why: "steps of fixed length η never shrink, so the squared risk stalls at a level set by η instead of vanishing"},
			{Fault: "sample-dropped", Why: "sample 0 is never fitted: the risk stalls at its loss"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T6lin"}, Cases: 40,
		Claims: []properties.Prop{properties.Property[RegularizedCase]{Name: "ERM, IW, static weights; μ = 1e-4…3e-2·q_min λ_min", Gen: GenRegularized(false, false),
			Check: func(r *properties.Runner, x RegularizedCase) theorems.Verdict { return x.check() }}},
		Controls: []properties.Prop{
			properties.Property[RegularizedCase]{Name: "large μ = 100·q_max λ_max", Drops: "small-mu", Gen: GenRegularized(true, false),
				Check: func(r *properties.Runner, x RegularizedCase) theorems.Verdict { return x.check() }},
			properties.Property[RegularizedCase]{Name: "regularizer centred at 0 instead of θ₀ (engine bug)", Drops: "centre", Gen: GenRegularized(false, true),
				Check: func(r *properties.Runner, x RegularizedCase) theorems.Verdict { return x.check() }},
		},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "the stationary point of the preconditioned step is not the regularized problem's minimizer"},
			{Fault: "weights-ignored", Why: "the regularized limit (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀) depends on Q: the run lands on ERM's"},
			{Fault: "weights-squared", Why: "the regularized limit depends on Q: the run lands on Q²'s"},
			{Fault: "sample-dropped", Why: "the regularized limit depends on q_0"},
			{Fault: "l2-gradient-uncentred", Why: "gradient descent converges to the problem regularized toward 0, not θ₀"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-P17"}, Cases: 200,
		Claims: []properties.Prop{properties.Property[SpectrumCase]{Name: "PD H, PSD diagonal Q", Gen: GenSpectrum(false, false), Check: spectrumCheck}},
		Controls: []properties.Prop{
			properties.Property[SpectrumCase]{Name: "H indefinite", Drops: "pd", Gen: GenSpectrum(true, false), Check: spectrumCheck},
			properties.Property[SpectrumCase]{Name: "a negative q_i", Drops: "psd", Gen: GenSpectrum(false, true), Check: spectrumCheck},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T10"}, Cases: 100,
		Claims: []properties.Prop{properties.Property[ConvexCase]{Name: "quadratics and regularized logistic, ηL ∈ [0.05, 1]", Gen: GenConvex(0.05, 1, true, true), Check: convexCheck}},
		Controls: []properties.Prop{
			properties.Property[ConvexCase]{Name: "quadratics, ηL ∈ [2.2, 3]", Drops: "step-size", Gen: GenConvex(2.2, 3, true, false), Check: convexCheck},
		},
		Faults: []properties.FaultControl{
			{Fault: "sample-dropped", Why: "the objective minimized is not f: f(x_T) stays above the rate bound"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-F1"}, Cases: 4,
		Claims: []properties.Prop{
			fig1Property("ERM, IW, Group DRO on the six digits of digits6.json (GD)", OptGD, properties.Gen[DigitPair](gen.Const(DigitPair{A: 0, B: 1}))),
			fig1Property("ERM, IW, Group DRO on five images of one digit, one of another (GD)", OptGD, GenDigitPair()),
		},
		Controls: []properties.Prop{properties.Drops("gd", fig1Property("the same with Adam", OptAdam, properties.Gen[DigitPair](gen.Const(DigitPair{A: 0, B: 1}))))},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "the digits' runs leave span{x_i}: the replayed first steps disagree"},
			{Fault: "loss-factor-dropped", Why: "on the digits too the runs stay above the computed contraction bound"},
			{Fault: "weights-ignored", Why: "IW and Group DRO on the digits: GD replayed from the recorded weights disagrees with the runs' first steps"},
			{Fault: "sample-dropped", Why: "the image dropped is never fitted: ERM's run stays above the computed contraction bound"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-GDRO"}, Cases: 50,
		Claims: []properties.Prop{weightsProperty("Group DRO", []int{cases.SchemeGroupDRO})},
		Controls: []properties.Prop{
			properties.Drops("convergence", weightsProperty("periodic schedule (Assumption 3 only)", []int{cases.SchemeScheduleA3})),
			properties.Drops("min-weight", weightsProperty("one q_i → 0 geometrically", []int{cases.SchemeVanishing})),
		},
		Faults: []properties.FaultControl{
			{Fault: "loss-factor-dropped", Why: "fixed-length steps keep the group losses oscillating, so Group DRO's weights never settle"},
			{Fault: "sample-dropped", Why: "a group that is never fitted keeps its loss, and the Group DRO weights keep moving toward it"},
			{Fault: "weights-ignored-reported", Why: "the recorded weights stay uniform and settle at once; recomputed from Group DRO's definition at the run's θ₀ (theorems.RecordedWeights) they are not uniform: the run is not the Group DRO run the case asked for"},
		},
	})
	return es
}

func spectrumCheck(_ *properties.Runner, c SpectrumCase) theorems.Verdict {
	h, q := c.Build()
	return regressionth.ProductEigenvalues(h, q)
}

func convexCheck(_ *properties.Runner, x ConvexCase) theorems.Verdict {
	c, err := x.Run()
	if err != nil {
		return properties.BuildFailed(err)
	}
	return regressionth.GDRate(c)
}

// Fig1TableSteps is the budget of every run of cmd/fig1's table: enough for
// the slowest scheme (IW, ≈ 34 000 steps to a residual of 1e-11) to reach
// the rounding floor of the risk.
const Fig1TableSteps = 60000

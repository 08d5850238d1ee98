package classification

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// Section E of the catalog: generalized reweighting and importance
// weighting for classification (ZD §5, §6.1, App. B–D.5; XY §2–§5, App. A).
//
// The direction checks read GD runs of linear models recorded at steps
// growing by 1.5× (grwRun) and decide by computed limits: the residual
// θ(t) − ŵ log T against its limit under the weights and GD's flow
// (theorems' linearLimit, multiClassLimit for K classes), the path's offset
// (pathLimitBound), XY-P2's contraction of the finite part (issue 18).

// polyControl is the control of the direction checks: the same case with
// ZD App. C's polynomially tailed loss, ℓ(q) = (q + 1)^{−α} (β = 0).
func polyControl[C any](alpha string, gen func() properties.Property[C]) properties.Property[C] {
	p := gen()
	p.Name = "polynomially tailed loss (ZD eq. 19, α = " + alpha + ", β = 0), same data, scheme and run"
	p.Drops = "tail"
	return p
}

// grwDirectionProperty trains generated cases (with loss override, −1 for
// the case's own) and applies ZD-T7's check. A control's run (the override,
// a planted fault) stops at the first milestone where the check is violated
// (stopWhenViolated).
func grwDirectionProperty(name string, lossIDs, schemes []int, override int) properties.Property[ClassCase] {
	return properties.Property[ClassCase]{Name: name, Gen: GenClass(true, lossIDs, schemes), Check: func(r *properties.Runner, c ClassCase) theorems.Verdict {
		if override >= 0 {
			c = c.WithLoss(override)
		}
		return c.judged(r, override >= 0, "direction", c.directionJudge)
	}}
}

// directionJudge is ZD-T7's check of a run: its weights witnessed, then
// GRWDirection (also the GD half of ZD-T8's).
func (c ClassCase) directionJudge(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
	if v, ok := c.weightsWitnessed(data, tr); !ok {
		return v
	}
	return grwclass.GRWDirection(data, tr)
}

// judged trains the case for DirectionSteps (a control's run, control or a
// planted fault, stopped where check is violated: runControl) and returns
// check's verdict on the run.
func (c ClassCase) judged(r *properties.Runner, control bool, tag string, check judge) theorems.Verdict {
	data, tr, err := c.trained(r, control, tag, check)
	if err != nil {
		return properties.BuildFailed(err)
	}
	return check(data, tr)
}

// trained is the run of judged.
func (c ClassCase) trained(r *properties.Runner, control bool, tag string, check judge) (*dataset.Dataset, *train.Trajectory, error) {
	if control || c.Fault != "" {
		return c.runControl(r, DirectionSteps(r), tag, check)
	}
	return c.Run(r, DirectionSteps(r))
}

// iwDirectionProperty trains cases under XY's random importance weights
// w ∈ [1/M, M]^n and applies XY-P1's check (a control's run stopped as
// grwDirectionProperty's).
func iwDirectionProperty(name string, override int) properties.Property[ClassCase] {
	return properties.Property[ClassCase]{Name: name, Gen: GenClass(false, []int{LossExp}, []int{SchemeRandomIW}), Check: func(r *properties.Runner, c ClassCase) theorems.Verdict {
		if override >= 0 {
			c = c.WithLoss(override)
		}
		return c.judged(r, override >= 0, "iw", c.iwJudge)
	}}
}

// iwJudge is XY-P1's check of a run: its weights witnessed, then
// IWDirection.
func (c ClassCase) iwJudge(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
	if v, ok := c.weightsWitnessed(data, tr); !ok {
		return v
	}
	return grwclass.IWDirection(data, c.ImportanceWeights(), tr)
}

// pathRadii are the radii of the regularization paths: the residual
// θ_R − R·θ̂_MM is compared at R = 10⁶ with its largest value at R ≤ 10³
// (the path of a generated case settles to its bounded residual by R ~
// 10³–10⁴; MinimizeOnBall is exact at every R, so the long radii cost
// nothing).
var pathRadii = []float64{1, 10, 100, 1e3, 1e4, 1e5, 1e6}

// pathProperty trains a case (loss override, −1 for its own), computes the
// path under the run's limit weights (its last recorded weights: the
// schemes of ZD-T8 converge, Assumption 1) and applies ZD-T8's check.
func pathProperty(name string, override int, schemes []int) properties.Property[ClassCase] {
	return properties.Property[ClassCase]{Name: name, Gen: GenClass(true, []int{LossLogistic}, schemes), Check: func(r *properties.Runner, c ClassCase) theorems.Verdict {
		if override >= 0 {
			c = c.WithLoss(override)
		}
		// A control's run stops where its GD half, ZD-T7's check, is
		// violated: the agreement is then violated too (theorems.Worst).
		data, tr, err := c.trained(r, override >= 0, "direction", c.directionJudge)
		if err != nil {
			return properties.BuildFailed(err)
		}
		if v, ok := c.weightsWitnessed(data, tr); !ok {
			return v
		}
		q := tr.Final().Weights
		// A path the solver cannot compute leaves the path half undecided,
		// not the GD half (grwclass.PathUnavailable).
		path, err := rays(data, c.LossOf(), q, pathRadii, "")
		if err != nil {
			return grwclass.PathUnavailable(data, tr, fmt.Errorf("regularization path: %w", err))
		}
		at, err := rays(data, c.LossOf(), q, []float64{floats.Norm(tr.Theta, 2)}, "")
		if err != nil {
			return grwclass.PathUnavailable(data, tr, fmt.Errorf("regularization path: %w", err))
		}
		return grwclass.PathAgreement(data, q, tr, path, &at[0])
	}}
}

// polyRadii are the radii of ZD-PT's paths: the path approaches its limit
// at rate O(1/R), so R = 10⁴ puts it within ~10⁻⁴ of it.
var polyRadii = []float64{10, 100, 1000, 10000}

func polyLimitProperty(name string, lossID int) properties.Property[ClassCase] {
	return properties.Property[ClassCase]{Name: name, Gen: GenClass(false, []int{LossPoly}, []int{SchemeRandomIW}), Check: func(r *properties.Runner, x ClassCase) theorems.Verdict {
		c := x.WithLoss(lossID)
		data := c.Data()
		q := twoWeightings(c)
		var paths [2][]grwclass.PathRay
		for k := range q {
			p, err := rays(data, c.LossOf(), q[k], polyRadii, c.Fault)
			if err != nil {
				return theorems.Undecided("regularization path: %v", err)
			}
			paths[k] = p
		}
		return grwclass.PolyTailLimits(data, 1, q, paths)
	}}
}

func multiProperty(name string, schemes []int, poly bool) properties.Property[MultiCase] {
	return properties.Property[MultiCase]{Name: name, Gen: GenMulti(schemes), Check: func(r *properties.Runner, c MultiCase) theorems.Verdict {
		check := c.judge(poly)
		run := c.Run
		if poly || c.Fault != "" { // a control: stopped where decided (stopWhenViolated)
			run = func(r *properties.Runner, poly bool, steps int) (*dataset.Dataset, *train.Trajectory, error) {
				return c.runControl(r, poly, steps, check)
			}
		}
		// The claim's runs and its fault controls run DirectionSteps (the
		// support-gap derivation, as ZD-T7's); the pairwise tail control
		// keeps ClassSteps, stopped where decided: it was decided as late
		// as step 37 877 (seed 3), too near L = 10's 44 053 to share that
		// length. A longer control run is no unfair catch: the check's
		// ratios are ≤ 1 at every length on a correct engine (stopWhenViolated),
		// and every claim case of seeds 1–3 holds at every milestone up to
		// ClassSteps (TestControlStopMilestones).
		steps := DirectionSteps(r)
		if poly {
			steps = ClassSteps(r)
		}
		data, tr, err := run(r, poly, steps)
		if err != nil {
			return properties.BuildFailed(err)
		}
		return check(data, tr)
	}}
}

// judge is ZD-B's check of a run (poly: of the control's loss): its
// weights witnessed, then MultiClassDirection.
func (c MultiCase) judge(poly bool) judge {
	return func(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
		if v, ok := c.weightsWitnessed(data, tr, poly); !ok {
			return v
		}
		return grwclass.MultiClassDirection(data, c.k(), tr)
	}
}

func sectionE() (es []properties.Entry) {
	lossesET := []int{LossExp, LossLogistic}
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T7"}, Cases: 8, ForLoss: grwDirectionForLoss,
		Claims: []properties.Prop{grwDirectionProperty("GD, linear model, x_i independent, exp and logistic losses, every GRW scheme (ERM, IW, static, Group DRO, χ², CVaR, schedules A1/A3, random IW)", lossesET, AllGRWSchemes(), -1)},
		// α = 1/2 as LL-lin's control (losses.HalfPolyTail): with α = 1 the
		// residual's computed limit can exceed what the polynomial tail
		// reaches by the end (soak seed 1795345548068000, XY-P1's control:
		// 10.4 → 30.2 against a limit of 19.4).
		Controls: []properties.Prop{polyControl("1/2", func() properties.Property[ClassCase] {
			return grwDirectionProperty("", lossesET, AllGRWSchemes(), LossPolyHalf)
		})},
		Figures: grwClassFigures,
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "as LL-lin, for every GRW scheme"},
			{Fault: "missing-zero-grad", Why: "as LL-lin: GD's map replayed over the records disagrees from the second step on, for every GRW scheme"},
			{Fault: "weights-ignored", Why: "the offset of θ − ŵ log T solves q_n η e^{−⟨z_n, w̃⟩} = α_n: the run settles at ERM's offset, not q's; with weights that move (χ², CVaR, schedules A1, A3) each segment's step has coefficients η Σ_t (−ℓ′) on the x_n, uniform-weighted, outside [∫q_n dT·min slope, ∫q_n dT·max slope] of the recorded weights' integral"},
			{Fault: "weights-squared", Why: "the run settles at the offset of q², not q's; with the schedules' moving weights each segment's coefficients leave [∫q_n dT·min slope, ∫q_n dT·max slope] of the recorded weights' integral"},
			{Fault: "weights-ignored-reported", Why: "the run is ERM's and its records say so, which the direction check alone judges as an honest ERM run: the weights recomputed from the scheme's definition at the records (theorems.RecordedWeights) differ from the recorded ones"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T8"}, Cases: 8,
		Claims: []properties.Prop{pathProperty("logistic loss, schemes meeting Assumption 1 (ERM, IW, static, Group DRO, schedule A1, random IW): GD and the path θ_R, R = 1…10⁴, under the run's limit weights", -1, append(cases.A1Schemes, SchemeRandomIW))},
		// The polynomial control draws the schemes whose weights are fixed
		// (ERM, IW, static, random IW): there GD's computed limit (ZD-T7's
		// part 1) decides, and the polynomial tail moves the run away from it.
		// With weights that move (Group DRO, schedule A1) that part is only
		// shown and the parts that decide are GD identities, true for any
		// loss; so where the tail also leaves the path's direction unchanged
		// the control plants nothing either half can see (soak seed
		// 1795701728286998: a Group DRO case whose polynomial path is the
		// SVM's direction to 1e-16 held at 0.9996, docs/trust.md).
		Controls: []properties.Prop{polyControl("1", func() properties.Property[ClassCase] {
			return pathProperty("", LossPoly, []int{cases.SchemeERM, cases.SchemeIW, cases.SchemeStatic, SchemeRandomIW})
		})},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "the GD half of the agreement: the run's direction leaves its computed limit, as in ZD-T7"},
			{Fault: "weights-ignored-reported", Why: "as ZD-T7: the recorded weights are not the scheme's recomputed ones"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-PT"}, Cases: 8,
		Claims:   []properties.Prop{polyLimitProperty("polynomial tail (α = 1, β = 0): paths under ERM and random IW weights (M ∈ [4, 10]) reach their computed weight-dependent limits", LossPoly)},
		Controls: []properties.Prop{properties.Drops("tail", polyLimitProperty("logistic loss (exponential tail), same data and weights: both paths tend to θ̂_MM", LossLogistic))},
		Figures:  polyFigures,
		Faults: []properties.FaultControl{
			{Fault: "weights-ignored", Why: "the polynomial tail's limit direction depends on the weights (ZD eq. 19): the importance-weighted path lands on ERM's limit, not on the computed one"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-B"}, Cases: 6,
		Claims:   []properties.Prop{multiProperty("GD, linear K-class model (K = 3, 4), cross-entropy, GRW schemes (ERM, IW by class, static, Group DRO, schedules A1/A3)", append(cases.A1Schemes, cases.SchemeScheduleA3), false)},
		Controls: []properties.Prop{properties.Drops("tail", multiProperty("pairwise polynomially tailed loss Σ_{j≠c} ℓ_poly(s_c − s_j) (ZD eq. 19 per pair, α = 1/2), same data, scheme and run", append(cases.A1Schemes, cases.SchemeScheduleA3), true))},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "a step along one class's coordinate e_{c,f} leaves span{a_{n,j}} (it moves Σ_c θ_c, which no constraint vector does), and the run leaves GD's flow on the cross-entropy: the multi-class limit moves"},
			{Fault: "weights-ignored", Why: "the offset of Θ − Θ̂ log T solves q_n e^{−⟨c, a_{n,j}⟩} = α_{n,j} and GD follows the cross-entropy's flow under q (IW by class, static): the run follows ERM's flow to ERM's offset"},
			{Fault: "weights-ignored-reported", Why: "as ZD-T7: the recorded weights are not the scheme's recomputed ones"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "XY-P1"}, Cases: 8,
		Claims:   []properties.Prop{iwDirectionProperty("GD, linear model (any d), exp loss, static importance weights log-uniform in [1/M, M], M ∈ [2, 10]", -1)},
		Controls: []properties.Prop{polyControl("1/2", func() properties.Property[ClassCase] { return iwDirectionProperty("", LossPolyHalf) })},
		Figures:  klFigures,
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "as LL-lin, for every importance weighting"},
			{Fault: "missing-zero-grad", Why: "as ZD-T7, for importance weights"},
			{Fault: "weights-ignored", Why: "as ZD-T7, for importance weights"},
			{Fault: "weights-ignored-reported", Why: "as ZD-T7: the recorded importance weights are not the case's"},
			{Fault: "weights-squared", Why: "as ZD-T7, for importance weights"},
		},
	})
	return es
}

// nonSepProperty trains non-separable cases and applies XY-P2's check with
// the run's weights, or (wrongWeights) with uniform weights in the finite
// minimizer while the run used the case's.
//
// A control's run stops at the first milestone where its check is violated
// while the check with the run's own weights holds at the same step
// (stopWhenViolated): on the run itself for the wrong weights (the claim's
// check of the same run), on the clean twin's run for a planted fault.
func nonSepProperty(name string, ref, wrongWeights bool) properties.Property[NonSepCase] {
	return properties.Property[NonSepCase]{Name: name, Gen: GenNonSep(ref, wrongWeights), Check: func(r *properties.Runner, c NonSepCase) theorems.Verdict {
		steps := ClassSteps(r)
		judged := func(w []float64) []float64 {
			if wrongWeights {
				return uniformOnes(len(w))
			}
			return w
		}
		var stop func(data *dataset.Dataset, w []float64) func(*train.Trajectory) bool
		switch {
		case wrongWeights:
			stop = func(data *dataset.Dataset, w []float64) func(*train.Trajectory) bool {
				return func(tr *train.Trajectory) bool {
					return grwclass.NonSeparableLimit(data, judged(w), tr).Status == theorems.Violated &&
						grwclass.NonSeparableLimit(data, w, tr).Status == theorems.Holds
				}
			}
		case c.Fault != "":
			_, _, clean, err := c.WithFault("").(NonSepCase).cached(r, steps, "", nil)
			if err != nil {
				return properties.BuildFailed(err)
			}
			stop = func(data *dataset.Dataset, w []float64) func(*train.Trajectory) bool {
				return stopWhenViolated(data, func(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
					return grwclass.NonSeparableLimit(data, w, tr)
				}, clean)
			}
		}
		if stop == nil {
			return c.claimVerdict(r, steps)
		}
		data, w, tr, err := c.cached(r, steps, "stopped", stop)
		if err != nil {
			return properties.BuildFailed(err)
		}
		return grwclass.NonSeparableLimit(data, judged(w), tr)
	}}
}

// claimVerdict is XY-P2's check of the case's run of steps steps, kept in
// r by the case's run (NonSepCase.canonical): the check replays every
// segment of the run's window, which costs about what the run did.
func (c NonSepCase) claimVerdict(r *properties.Runner, steps int) theorems.Verdict {
	key := fmt.Sprintf("%#v/%d", c.canonical(), steps)
	v, _ := properties.Cache[theorems.Verdict](r, "nonSepVerdicts").GetKept(key, func() (theorems.Verdict, error) {
		data, w, tr, err := c.cached(r, steps, "", nil)
		if err != nil {
			return properties.BuildFailed(err), nil
		}
		return grwclass.NonSeparableLimit(data, w, tr), nil
	})
	return v
}

func uniformOnes(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1
	}
	return u
}

func sectionENonSeparable() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "XY-P2"}, Cases: 6,
		Claims: []properties.Prop{
			nonSepProperty("GD, exp loss, importance weights in [1/M, M], generated non-separable data (separable part + pairs in a subspace)", false, false),
			nonSepProperty("the six ../shared/reference nonsep files with their weights", true, false),
		},
		Controls: []properties.Prop{properties.Drops("weights", nonSepProperty("finite part compared with θ̃ of uniform weights while the run used the case's weights, each D_nonsep pair weighted M and 1/M (θ̃ depends on w)", false, true))},
		Faults: []properties.FaultControl{
			{Fault: "weights-ignored", Why: "the finite part's limit θ̃(w) minimizes the w-weighted loss on D_nonsep: the run lands on the uniform weights' minimizer"},
		},
	})
	return es
}

func sectionEWeakReg() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "XY-C1"}, Cases: 8,
		Claims:   []properties.Prop{weakNormsProperty("optima θ_λ(w) of Σ w̄_i ℓ_i + λ‖θ‖^r, λ = 1e-1…1e-8, r ∈ {1.5, 2, 3}, exp and logistic losses, random w ∈ [1/M, M]^n", weakLadder)},
		Controls: []properties.Prop{properties.Drops("weak-regularization", weakNormsProperty("strong regularization, λ ∈ {1, 10, 100}: the norm stays bounded by (ℓ(0)/λ)^{1/r}", strongLadder))},
		Faults: []properties.FaultControl{
			{Fault: "weights-ignored", Why: "the minimizer finds the optimum of the uniformly weighted L_λ, whose ‖∇ log L_λ(·; w)‖∞, recomputed from the data with w, is the weights' effect (≫ 2e-10)"},
			{Fault: "weights-squared", Why: "the ladder holds the optima of L_λ(·; w²), not stationary for L_λ(·; w)"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "XY-P3"}, Cases: 8,
		Claims:   []properties.Prop{weakMarginsProperty("optima θ_λ(w), λ = 1e-1…1e-8, r ∈ {1.5, 2, 3}, exp and logistic, random w; 4 near-optimal points (τ ∈ (1, 2]) per λ", false)},
		Controls: []properties.Prop{properties.Drops("optimum", weakMarginsProperty("points at the optima's norms in a fixed direction with half the maximal margin (not the optima)", true))},
		Faults: []properties.FaultControl{
			{Fault: "weights-ignored", Why: "as XY-C1: the ladder's points are not optima of L_λ(·; w)"},
			{Fault: "weights-squared", Why: "as XY-C1"},
		},
	})
	return es
}

func sectionETheorem1() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "XY-T1"}, Cases: 3,
		Claims:   []properties.Prop{shiftProperty("10 trials per case: n = 10⁴ source samples of a Gaussian on a box, importance-weighted logistic GD (40 steps), target error on 10⁴ samples; δ = 0.1", false)},
		Controls: []properties.Prop{properties.Drops("covariate-shift", shiftProperty("concept shift: the target's labels flipped (p(y|x) differs, the density ratio no longer transfers the risk)", true))},
	})
	return es
}

// learnedProperty trains the classifier jointly with the weighting model
// (or, frozen, with the model's initial weights held fixed) and reports
// XY-S5.
//
// The frozen control's run ends at its first milestone (firstJudge, then
// by judgeGrowth) where it is not supported (stopWhenViolated, no clean
// twin), which is the first: its weighting is static, so the recorded
// spread n(max q − min q) is the same at every record and its end-to-peak
// ratio is exactly 1 > ConjectureDecay at any length. The claim's runs are
// never stopped (learnedSteps).
func learnedProperty(name string, frozen bool) properties.Property[ClassCase] {
	return properties.Property[ClassCase]{Name: name, Gen: GenClass(false, []int{LossExp, LossLogistic}, []int{cases.SchemeERM}), Check: func(r *properties.Runner, c ClassCase) theorems.Verdict {
		lw, err := learnedWeighting(c)
		if err != nil {
			return properties.BuildFailed(err)
		}
		data := c.Data()
		var w train.Weighting = lw
		if frozen {
			if err := lw.Start(data); err != nil {
				return properties.BuildFailed(err)
			}
			q := make([]float64, data.N)
			if err := lw.Update(0, make([]float64, data.N), q); err != nil {
				return properties.BuildFailed(err)
			}
			w = &train.Static{W: q}
		}
		var stop func(*train.Trajectory) bool
		if frozen {
			stop = stopWhenViolated(data, func(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
				return grwclass.LearnedWeightsConjecture(data, tr)
			}, nil)
		}
		tr, err := c.runUntil(data, w, learnedSteps(r), stop)
		if err != nil {
			return properties.BuildFailed(err)
		}
		if v, ok := c.learnedWitnessed(data, tr); !ok && !frozen {
			return v
		}
		return grwclass.LearnedWeightsConjecture(data, tr)
	}}
}

// learnedSteps is the length of XY-S5's claim runs: 10⁵ steps at the
// quick budget (log T ≈ 10.8, about the direction claims' L = 10). The
// conjecture has no computed limit to derive a length from (its decay
// share, ConjectureDecay, is a reading of the paper's words): its support
// frequency is a measurement at this length, and a shorter run would
// measure something else. The frozen control stops at its first milestone
// (learnedProperty).
func learnedSteps(r *properties.Runner) int { return r.Steps(100000) }

func sectionELearned() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "XY-S5"}, Cases: 8,
		Claims:   []properties.Prop{learnedProperty("GD on a linear model jointly with g(ψ, x) = σ(ψᵀx + b) + 1 (ψ₀ ~ N(0, I)), exp and logistic losses, separable data", false)},
		Controls: []properties.Prop{properties.Drops("learning", learnedProperty("the weighting model frozen at its initial weights (a static weighting): the spread cannot shrink", true))},
	})
	return es
}

// grwDirectionForLoss is ZD-T7 with a user's loss.
func grwDirectionForLoss(loss string) properties.Entry {
	direction := func(r *properties.Runner, c ClassCase) theorems.Verdict {
		data, tr, err := c.Run(r, DirectionSteps(r))
		if err != nil {
			return properties.BuildFailed(err)
		}
		return grwclass.GRWDirection(data, tr)
	}
	return properties.Entry{Cases: 8,
		Claims: []properties.Prop{properties.Property[ClassCase]{Name: "GD, linear model, x_i independent, every GRW scheme, loss " + loss, Gen: GenClassNamed(true, loss, AllGRWSchemes()),
			Check: func(r *properties.Runner, x ClassCase) theorems.Verdict { return direction(r, x) }}},
		Controls: []properties.Prop{polyControl("1/2", func() properties.Property[ClassCase] {
			return properties.Property[ClassCase]{Gen: GenClassNamed(true, loss, AllGRWSchemes()),
				Check: func(r *properties.Runner, x ClassCase) theorems.Verdict {
					return direction(r, x.WithLoss(LossPolyHalf))
				}}
		})},
	}
}

// Entries lists section E's entries: the GRW and importance-weighted
// directions (ZD-T7 … XY-P1), the non-separable case (XY-P2), weak
// regularization (XY-P3, XY-C1), XY Thm 1 and the learned weights (XY-S5).
func Entries() []properties.Entry {
	return slices.Concat(sectionE(), sectionENonSeparable(), sectionEWeakReg(), sectionETheorem1(), sectionELearned())
}

package check

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// claim is one catalog entry run on a recorded run: when it speaks to the
// run at all (applies), and how its cases are checked. Every check is the
// one package theorems runs for verify; this file only says which records
// it gets and what the run must be for it.
type claim struct {
	id      string
	applies func(r *recorded) bool
	run     func(r *recorded, s *theorems.Summary)
}

// claims are the catalog entries check runs, in catalog order.
var claims = []claim{
	{theorems.LL_B3, always, perPoint(func(r *recorded, i int) theorems.Verdict {
		v, _, c := r.pointVerdicts(i)
		if v.Status == theorems.AssumptionFailed && r.biasFreeL > 0 {
			// How far from homogeneous the run went: the identity measured
			// with the L of the same network without its biases.
			c.Degree = r.biasFreeL
			m := homogeneity.EulerIdentity(c)
			v.Statistic, v.Bound = m.Statistic, m.Bound
			v.Detail += fmt.Sprintf("; measured with the bias-free network's L = %g: %s", r.biasFreeL, m)
		}
		r.blockNote(c, &v)
		return v
	})},
	{theorems.LL_B3m, always, perPoint(func(r *recorded, i int) theorems.Verdict {
		_, v, c := r.pointVerdicts(i)
		if v.Status == theorems.AssumptionFailed && len(r.biasFreeBlocks) == len(r.obj.Model.Blocks()) {
			// As LL-B3: each block (a layer's weight with its bias)
			// measured with the degree of the same block without its bias.
			c.BlockDegrees = r.biasFreeBlocks
			m := homogeneity.MultiHomogeneity(c)
			v.Statistic, v.Bound = m.Statistic, m.Bound
			v.Detail += fmt.Sprintf("; measured with the bias-free network's block degrees %v: %s", r.biasFreeBlocks, m)
		}
		r.blockNote(c, &v)
		return v
	})},
	{theorems.LL_B4, binaryLoss, perRecord(func(r *recorded, i int) theorems.Verdict {
		r.weightsAt(i)
		return homogeneity.RadialIdentity(r.obj, r.t.Theta[i], 0)
	})},
	{theorems.LL_A5, binaryLoss, separatedRecords(func(r *recorded, i int) theorems.Verdict {
		r.weightsAt(i)
		return margins.MarginApproximation(margins.MarginCase{Obj: r.obj, Theta: r.t.Theta[i]})
	})},
	{theorems.LL_C7, binaryLoss, separatedRecords(func(r *recorded, i int) theorems.Verdict {
		r.weightsAt(i)
		return kkt.MFCQ(r.obj, r.t.Theta[i], 0)
	})},
	{theorems.LL_5_1, marginLoss, separatedRecords(func(r *recorded, i int) theorems.Verdict {
		r.weightsAt(i)
		return margins.FlowInequality(margins.MarginCase{Obj: r.obj, Theta: r.t.Theta[i]})
	})},
	{theorems.LL_4_1, binaryLoss, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(func(tr *train.Trajectory) theorems.Verdict { return r.monotone(tr) })
	})},
	{theorems.LL_4_2, discrete, whole(func(r *recorded) theorems.Verdict {
		// Records need not be consecutive (Gaps): γ̂ non-decreasing at
		// every step is non-decreasing between any two records.
		return r.gradientClaim(func(tr *train.Trajectory) theorems.Verdict {
			return margins.GDMarginMonotone(margins.TrajectoryCase{Obj: r.obj, Records: tr.Records, ExactSteps: true, Gaps: true})
		})
	})},
	{theorems.LL_4_3, binaryLoss, whole(func(r *recorded) theorems.Verdict {
		if r.t.Scalars != nil && !r.t.Flow() {
			return r.ratesFromScalars()
		}
		if !r.t.Flow() && !r.everyStep() {
			return theorems.Undecided("LL-4.3 checks (S5) at every step of gradient descent and fits the last e-fold of log T on ≥ 20 records: this run recorded %d of its %d steps (record every step to decide)", len(r.t.Steps), r.t.Steps[len(r.t.Steps)-1]-r.t.Steps[0]+1)
		}
		return r.gradientClaim(func(tr *train.Trajectory) theorems.Verdict {
			m, _ := losses.MarginOf(r.obj.Loss)
			return margins.Rates(margins.RateCase{Records: tr.Records, Flow: r.t.Flow(), Degree: r.tr.Degree, Margin: m})
		})
	})},
	{theorems.LL_F, multiClass, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(func(tr *train.Trajectory) theorems.Verdict { return r.monotone(tr) })
	})},
	{theorems.LL_4_4, binaryLoss, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(thinned(func(tr *train.Trajectory) theorems.Verdict { return r.tailOf(tr).KKTConvergence() }))
	})},
	{theorems.LL_C8, binaryLoss, separatedRecords(func(r *recorded, i int) theorems.Verdict {
		r.weightsAt(i)
		return kkt.LemmaC8(r.obj, r.t.Theta[i], 0)
	})},
	{theorems.LL_A9, binaryLoss, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(thinned(func(tr *train.Trajectory) theorems.Verdict { return r.tailOf(tr).BetaConvergence() }))
	})},
	// LL Cor C.10 on the windows of consecutive records, as the property
	// tests run it on the engine's GD (properties, LL-C10): no slack for
	// GD's deviation from the flow (docs/check.md gives the ratios measured
	// on correct runs). A step that is not −η∇𝓛 fails the premise.
	{theorems.LL_C10, binaryLoss, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(thinned(func(tr *train.Trajectory) theorems.Verdict { return kkt.BetaWindowBound(r.obj, tr, 0, 0) }))
	})},
	{theorems.LL_lin, linearBinary, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(func(tr *train.Trajectory) theorems.Verdict { return grwclass.SVMDirection(r.obj.Data, tr) })
	})},
	// LL Cor 4.5 needs a C² net ((S1): NTKAlignment refuses a kinked one)
	// and decides by the angle to the gradient-feature SVM halving from its
	// peak or freezing away from 0, on the windows after t0.
	{theorems.LL_4_5, binaryLoss, whole(func(r *recorded) theorems.Verdict {
		return r.gradientClaim(thinned(func(tr *train.Trajectory) theorems.Verdict { return kkt.NTKAlignment(r.obj, tr, 0) }))
	})},
	// ZD §4.1 (regression) and §5 (classification): GRW runs of the linear
	// model. The regression checks take the records as they are: the
	// descent-step identity is checked after separation only, which a
	// regression run has no notion of, and the catalog's own control for
	// ZD-T1 and ZD-span is an Adam run, which they report violated. θ₀ is the
	// first record (GD keeps θ_t − θ_s in span{x_i} for any s, so θ* is the
	// same from any record).
	{theorems.ZD_T1, linearRegression, whole(func(r *recorded) theorems.Verdict {
		return regression.Interpolator(r.regressionCase(), r.t.Theta[len(r.t.Theta)-1])
	})},
	{theorems.ZD_span, linearRegression, whole(func(r *recorded) theorems.Verdict {
		m := regression.NewSpanMonitor(r.regressionCase())
		for i, th := range r.t.Theta {
			m.Observe(r.t.Steps[i]-r.t.Steps[0], th)
		}
		return m.Verdict()
	})},
	// ZD Thm 7 checks GD's flow under the recorded weights itself
	// (linearLimit), with or without reweighting.
	{theorems.ZD_T7, linearWeighted, whole(func(r *recorded) theorems.Verdict {
		if v, ok := r.schemeWitness(); !ok {
			return v // the weights are not the stated scheme's (schemewitness.go)
		}
		return grwclass.GRWDirection(r.obj.Data, r.tr)
	})},
}

// linearRegression: the linear model with the squared loss (ZD §4.1).
func linearRegression(r *recorded) bool {
	return r.obj.Loss.Kind() == losses.Regression && isLinear(r)
}

// linearWeighted: a GRW run of the linear model with a binary margin loss
// (ZD §5), weights recorded or not (ERM).
func linearWeighted(r *recorded) bool {
	return binaryLoss(r) && isLinear(r) && !r.t.Flow() // ERM is GRW with uniform weights
}

func isLinear(r *recorded) bool {
	return r.obj.Model.NumParams() == r.obj.Model.In() && r.obj.Model.Out() == 1 && r.tr.Degree == 1
}

// regressionCase is the run's data with θ₀ its first record.
func (r *recorded) regressionCase() regression.RegressionCase {
	d := r.obj.Data
	return regression.RegressionCase{X: d.X, Y: d.Y, N: d.N, D: d.D, Theta0: r.t.Theta[0]}
}

func always(*recorded) bool { return true }

func binaryLoss(r *recorded) bool { return r.obj.Loss.Kind() == losses.Binary }

// marginLoss: a loss with a margin form (binary or cross-entropy).
func marginLoss(r *recorded) bool { return binaryLoss(r) || multiClass(r) }

func multiClass(r *recorded) bool { return r.obj.Loss.Kind() == losses.MultiClass }

func discrete(r *recorded) bool { return binaryLoss(r) && !r.t.Flow() }

// linearBinary: LL-lin speaks of the linear model (L = 1) only; a deeper
// network never gets it.
func linearBinary(r *recorded) bool { return binaryLoss(r) && isLinear(r) }

// everyStep reports records at consecutive steps only.
func (r *recorded) everyStep() bool {
	for i := 1; i < len(r.t.Steps); i++ {
		if r.t.Steps[i] != r.t.Steps[i-1]+1 {
			return false
		}
	}
	return true
}

// caseName names record i of the run.
func (r *recorded) caseName(i int) string {
	return fmt.Sprintf("%s record %d (step %d)", r.opts.Name, i, r.t.Steps[i])
}

// perRecord checks a pointwise claim at every record.
func perRecord(check func(r *recorded, i int) theorems.Verdict) func(*recorded, *theorems.Summary) {
	return everyRecord(eachRecord[theorems.Verdict], check)
}

// perPoint is perRecord for a check that never touches the objective
// (eachPoint).
func perPoint(check func(r *recorded, i int) theorems.Verdict) func(*recorded, *theorems.Summary) {
	return everyRecord(eachPoint[theorems.Verdict], check)
}

// everyRecord checks a pointwise claim at every record through each.
func everyRecord(each func(*recorded, []int, func(*recorded, int) theorems.Verdict) []theorems.Verdict, check func(r *recorded, i int) theorems.Verdict) func(*recorded, *theorems.Summary) {
	return func(r *recorded, s *theorems.Summary) {
		idx := make([]int, len(r.t.Theta))
		for i := range idx {
			idx[i] = i
		}
		for k, v := range each(r, idx, check) {
			s.Add(v, r.caseName(idx[k]))
		}
	}
}

// separatedRecords checks a claim about separated points at every record
// with 𝓛 < ℓ(b_f); a run that never separates gives one undecided case.
func separatedRecords(check func(r *recorded, i int) theorems.Verdict) func(*recorded, *theorems.Summary) {
	return func(r *recorded, s *theorems.Summary) {
		var idx []int
		for i, rec := range r.tr.Records {
			if rec.Separated {
				idx = append(idx, i)
			}
		}
		for k, v := range r.forRecords(idx, check) {
			s.Add(v, r.caseName(idx[k]))
		}
		if s.Cases == 0 {
			s.Add(*r.unseparated(), r.opts.Name)
		}
	}
}

// unseparated returns the verdict of a run none of whose records is
// separated (𝓛 < ℓ(b_f), LL (A4)/(B4)), or nil: every theorem of LL after
// t₀ assumes the run gets there. Data with two samples of equal features and
// opposite labels never can; otherwise the run may only be too short.
func (r *recorded) unseparated() *theorems.Verdict {
	for _, rec := range r.tr.Records {
		if rec.Separated {
			return nil
		}
	}
	var v theorems.Verdict
	last := r.tr.Records[len(r.tr.Records)-1].LogLoss
	if i, j, ok := r.obj.Data.Contradiction(); ok {
		v = theorems.Assumption("(A4) the data are not separable: samples %d and %d have the same features and opposite labels (log 𝓛 = %.4g at the last record)", i+1, j+1, last)
	} else if q := r.tr.Records[len(r.tr.Records)-1].QMin; q > 0 {
		v = theorems.Undecided("the run classifies every sample at its last record (q_min = %.4g > 0, step %d) but has not reached LL's t₀, 𝓛 < ℓ(b_f) (log 𝓛 = %.4g): train longer, until the summed loss is below ℓ(b_f)", q, r.t.Steps[len(r.t.Steps)-1], last)
	} else {
		v = theorems.Assumption("(A4) the run never separates: 𝓛 ≥ ℓ(b_f) at every record (log 𝓛 = %.4g at the last, step %d); the theorems start at the first separated time t₀", last, r.t.Steps[len(r.t.Steps)-1])
	}
	return &v
}

// whole checks a claim about the whole run: one case.
func whole(check func(r *recorded) theorems.Verdict) func(*recorded, *theorems.Summary) {
	return func(r *recorded, s *theorems.Summary) {
		s.Add(check(r), fmt.Sprintf("%s: %d records, steps %d…%d", r.opts.Name, len(r.t.Steps), r.t.Steps[0], r.t.Steps[len(r.t.Steps)-1]))
	}
}

// weightsAt puts the GRW weights of record i on the objective when they
// change along the run.
func (r *recorded) weightsAt(i int) {
	if r.weightsVary {
		_ = r.obj.SetWeights(r.t.Weights[i]) // validated by Trajectory.Validate
	}
}

// monotone runs LL-4.1 (binary) or LL-F (cross-entropy): γ̃ non-decreasing
// after t0. Gradient-descent records are steps of a map, exact by
// construction (only rounding is bounded); flow records are re-integrated
// step by step against the run's own local error (local_error), without
// which a flow cannot be checked.
func (r *recorded) monotone(tr *train.Trajectory) theorems.Verdict {
	if r.t.Flow() && r.t.LocalError == nil {
		return theorems.Undecided("a gradient flow without local_error: the monotonicity check bounds γ̃'s change by the integrator's error, which the file does not record")
	}
	if r.t.Flow() {
		return margins.MarginMonotone(margins.TrajectoryCase{Obj: r.obj, Records: tr.Records})
	}
	v := margins.MarginMonotone(margins.TrajectoryCase{Obj: r.obj, Records: tr.Records, ExactSteps: true, Gaps: true})
	if v.Status != theorems.Holds && v.Status != theorems.Violated {
		return v
	}
	v.Detail = "gradient-descent records, checked as steps of a map (LL Thm 4.1 is the flow's statement, which GD with a small step follows; a decrease between two records is a decrease at some step): " + v.Detail
	return v
}

// gradientClaim runs a claim about gradient descent (or flow) after its
// premise: along every pair of consecutive records the step is −η∇𝓛 of the
// loss read (kkt.DescentSteps). When the premise fails the run is not
// the dynamics the theorem is about: the claim is assumption-failed, with
// the premise's reason and the claim's statistic measured anyway (the check
// run without the step identity), so the table shows how far outside the
// theory the run went. When no pair of consecutive records could be
// checked, the premise is not shown and the claim is inconclusive.
func (r *recorded) gradientClaim(check func(tr *train.Trajectory) theorems.Verdict) theorems.Verdict {
	if v := r.unseparated(); v != nil {
		return *v
	}
	if r.t.Flow() || r.gd.Status == theorems.Holds {
		return check(r.tr)
	}
	// The premise refuted (or could not check) the declared GD: the claim's
	// statistic is measured on the run taken as an unknown step rule, so
	// that the check does not stop at the step identity again.
	unverified := *r.tr
	unverified.Step = train.StepRule{Kind: train.UnknownStep, LR: math.NaN()}
	measured := check(&unverified)
	var v theorems.Verdict
	switch r.gd.Status {
	case theorems.Inconclusive:
		v = theorems.Undecided("the run's steps could not be checked against −η∇𝓛 (%s): record pairs of consecutive steps", r.gd.Detail)
	default:
		v = theorems.Assumption("not full-batch gradient descent on this loss: %s", r.gd.Detail)
	}
	v.Statistic, v.Bound = measured.Statistic, measured.Bound
	v.Detail += fmt.Sprintf("; measured anyway: %s", measured)
	return v
}

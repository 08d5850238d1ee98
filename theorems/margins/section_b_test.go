package margins

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

func linearObjective(t *testing.T, l losses.Loss, x, y []float64) *train.Objective {
	d := &dataset.Dataset{N: len(y), D: len(x) / len(y), X: x, Y: y}
	m, err := models.NewLinear(d.D, 1)
	require.NoError(t, err)
	obj, err := train.NewObjective(m, l, d)
	require.NoError(t, err)
	return obj
}

// TestMarginApproximationByHand: linear model, exp loss, x₁ = (1, 0),
// x₂ = (0, 1), θ = (3, 5): q = (3, 5), 𝓛 = e^{−3} + e^{−5}, u = 3 − log(1 +
// e^{−2}), γ̄ = 3/√34, γ̃ = u/√34; γ̄ − γ̃ = log(1 + e^{−2})/√34 ≤ log 2/√34.
func TestMarginApproximationByHand(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Exponential{}), []float64{1, 0, 0, 1}, []float64{1, 1})
	v := MarginApproximation(MarginCase{Obj: obj, Theta: []float64{3, 5}})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	assert.Contains(t, v.Detail, "γ̄ = 0.514495755428") // 3/√34
	// With equal margins the gap is exactly log N/ρ: the bound is tight.
	v = MarginApproximation(MarginCase{Obj: obj, Theta: []float64{4, 4}})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	assert.InDelta(t, 0, v.Statistic, 1, "the tight inequality sits at the bound (statistic 0 in tolerance units)")
	// Not separated: q₂ < 0.
	v = MarginApproximation(MarginCase{Obj: obj, Theta: []float64{3, -1}})
	assert.Equal(t, theorems.AssumptionFailed, v.Status, v.String())
	// A wrong g: g(u) = 2u puts γ̃ above γ̄.
	v = MarginApproximation(MarginCase{Obj: obj, Theta: []float64{3, 5}, Margin: doubledG{}})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	// Multi-class losses are out of LL-A5's scope.
	m3, _ := models.NewLinear(2, 3)
	ce, err := train.NewObjective(m3, losses.CrossEntropy{}, &dataset.Dataset{N: 1, D: 2, X: []float64{1, 0}, Y: []float64{0}})
	require.NoError(t, err)
	assert.Equal(t, theorems.AssumptionFailed, MarginApproximation(MarginCase{Obj: ce, Theta: make([]float64, 6)}).Status)
}

type doubledG struct{ losses.Exponential }

func (doubledG) G(u float64) float64 { return 2 * u }

// TestFlowInequalityByHand: with one sample, p is a point mass (H(p) = 0)
// and Lemma 5.1 is an equality: LHS − RHS = ‖Dir‖²(1/u − 1/ν̃) = 0 for the
// exponential loss, ν̃ = q = u. Declaring L + 1 then breaks it by
// ‖Dir‖²/(L·u).
func TestFlowInequalityByHand(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Exponential{}), []float64{0.6, 0.8}, []float64{1})
	v := FlowInequality(MarginCase{Obj: obj, Theta: []float64{3, 1}})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	assert.Less(t, math.Abs(v.Statistic), 1e-15)
	v = FlowInequality(MarginCase{Obj: obj, Theta: []float64{3, 1}, Degree: 2})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	// Two blocks of a deep linear net (k = (1, 1)), Lemma G.2.
	m, err := models.Parse("deeplinear:2x2", 2)
	require.NoError(t, err)
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0.3, 1}, Y: []float64{1, -1}}
	dl, err := train.NewObjective(m, losses.NewBinary(losses.Logistic{}), d)
	require.NoError(t, err)
	theta := []float64{2, 0.5, -0.3, 1.5, 1.2, -0.8}
	for _, multi := range []bool{false, true} {
		v = FlowInequality(MarginCase{Obj: dl, Theta: theta, MultiHomogeneous: multi})
		assert.NotEqual(t, theorems.Violated, v.Status, v.String())
	}
}

// syntheticRates returns flow records that follow the exponential-loss
// rates exactly, 𝓛 = 1/(T (log T)^{2−2/L}), ρ = (log T)^{1/L}/γ^{1/L}, with
// a constant margin γ, for log T from 1 to logTEnd.
func syntheticRates(L, logTEnd float64) []train.Record {
	var rs []train.Record
	// t₀ at T = 0 (log T = −Inf): the first record is separated.
	rs = append(rs, train.Record{LogT: math.Inf(-1), LogLoss: -0.5, Rho: 1, SmoothedMargin: 0.5})
	for lt := 1.0; lt <= logTEnd; lt *= 1.001 {
		ll := -lt - (2-2/L)*math.Log(lt)
		rs = append(rs, train.Record{LogT: lt, LogLoss: ll, LogObjective: ll, Rho: math.Pow(lt/0.5, 1/L), SmoothedMargin: 0.5})
	}
	return rs
}

func TestRatesSynthetic(t *testing.T) {
	exp := losses.Exponential{}
	for _, L := range []float64{1, 2, 3} {
		rs := syntheticRates(L, 3000)
		v := Rates(RateCase{Records: rs, Flow: true, Degree: L, Margin: exp})
		assert.Equal(t, theorems.Holds, v.Status, v.String())
		assert.Less(t, v.Statistic, 1e-9, "exact rates have slope 0")
		// The exponents of L ± 1 drift by twice the tolerance or more.
		for _, dL := range []float64{-1, 1} {
			if L+dL <= 0 {
				continue
			}
			w := Rates(RateCase{Records: rs, Flow: true, Degree: L + dL, ModelDegree: L, Margin: exp})
			assert.Equal(t, theorems.Violated, w.Status, "L=%g declared %g: %v", L, L+dL, w)
		}
		// Too short: the window would start below log log T = 2.
		short := Rates(RateCase{Records: syntheticRates(L, 15), Flow: true, Degree: L, Margin: exp})
		assert.Equal(t, theorems.Inconclusive, short.Status, short.String())
	}
	// A margin still moving across the window: inconclusive.
	rs := syntheticRates(2, 3000)
	for i := range rs {
		rs[i].SmoothedMargin = 0.5 + 2*float64(i)/float64(len(rs))
	}
	assert.Equal(t, theorems.Inconclusive, Rates(RateCase{Records: rs, Flow: true, Degree: 2, Margin: exp}).Status)
	lo, no := RateTolerances(1)
	assert.Equal(t, [2]float64{0.5, 0.25}, [2]float64{lo, no})
	lo, no = RateTolerances(3)
	assert.InDelta(t, 1.0/12, lo, 1e-15)
	assert.InDelta(t, 1.0/24, no, 1e-15)
}

// TestRatesGDOutsideS5: gradient-descent records whose steps divide 𝓛 by
// e¹⁰ each (η‖∇𝓛‖²/𝓛 = 10) do not follow the flow: assumption failed.
func TestRatesGDOutsideS5(t *testing.T) {
	rs := syntheticRates(1, 3000)
	for i := range rs {
		rs[i].Step = i
		rs[i].LogEta = math.Log(10) - rs[i].LogLoss
		rs[i].LogGradNorm = rs[i].LogLoss // ‖∇𝓛‖ = 𝓛, so η‖∇𝓛‖²/𝓛 = e^{log η + log 𝓛} = 10
	}
	v := Rates(RateCase{Records: rs, Degree: 1, Margin: losses.Exponential{}})
	assert.Equal(t, theorems.AssumptionFailed, v.Status, v.String())
}

func TestLossBasedScheduleSynthetic(t *testing.T) {
	// α: 0.1 → ×r_u → ×r_u/r_d² (two rollbacks) ….
	logA := []float64{math.Log(0.1), math.Log(0.1) + math.Ln2/5, math.Log(0.1) + 2*math.Ln2/5 - 2*math.Ln2/10}
	var rs []train.Record
	ll := []float64{-1, -1000, -2100, -3000}
	for i, l := range ll {
		r := train.Record{Step: i, LogLoss: l, LogObjective: l, Rho: 10, NormalizedMargin: 1, SmoothedMargin: 0.9, LogGradNorm: l}
		if i > 0 {
			r.LogEta = logA[i-1] - ll[i-1]
		}
		rs = append(rs, r)
	}
	v := LossBasedSchedule(ScheduleCase{Records: rs, Target: -2000})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	// Not reached.
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: rs, Target: -5000}).Status)
	// An accepted step that did not decrease the loss.
	bad := append([]train.Record(nil), rs...)
	bad[2].LogLoss, bad[2].LogObjective = -900, -900
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: bad, Target: -2000}).Status)
	// α moved by a factor that is not r_u·r_d^{−k}.
	bad = append([]train.Record(nil), rs...)
	bad[2].LogEta += 0.01
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: bad, Target: -2000}).Status)
	// A non-finite margin (underflow).
	bad = append([]train.Record(nil), rs...)
	bad[1].SmoothedMargin = math.Inf(1)
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: bad, Target: -2000}).Status)
	// A failed run.
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: rs, RunErr: errors.New("boom"), Target: -2000}).Status)
	// A run that stalled before separating (LL K.1 starts from a separated
	// point): undecided; the same records without the stall are violated
	// (γ̃ ≤ 0: not separated, and the target not reached).
	unsep := append([]train.Record(nil), rs[:2]...)
	unsep[0].LogLoss, unsep[0].LogObjective = 0.5, 0.5
	unsep[1].LogLoss, unsep[1].LogObjective, unsep[1].LogEta = 0.3, 0.3, logA[0]-0.5
	unsep[1].SmoothedMargin = -0.01
	v = LossBasedSchedule(ScheduleCase{Records: unsep, Target: -2000, Stalled: true})
	assert.Equal(t, theorems.Inconclusive, v.Status, v.String())
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: unsep, Target: -2000}).Status)
	// A stall after separation on a C² network is no excuse: the target
	// was not reached. On a kinked network (soak seed 1795345548060081) it
	// is undecided; a kinked network that did not stall but missed the
	// target is still violated.
	sep := append([]train.Record(nil), rs[:2]...)
	sep[1].Separated = true
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: sep, Target: -2000, Stalled: true}).Status)
	v = LossBasedSchedule(ScheduleCase{Records: sep, Target: -2000, Stalled: true, Kinked: true})
	assert.Equal(t, theorems.Inconclusive, v.Status, v.String())
	assert.Contains(t, v.Detail, "kinked")
	assert.Equal(t, theorems.Violated, LossBasedSchedule(ScheduleCase{Records: sep, Target: -2000, Kinked: true}).Status)
}

// TestMarginMonotoneOnAFlow: a flow of a linear model holds; the same
// records in reverse order (γ̃ decreasing, as exact steps with no error to
// excuse it) are violated.
func TestMarginMonotoneOnAFlow(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Logistic{}), []float64{1, 0.2, -0.3, 1, 0.8, 0.9}, []float64{1, 1, 1})
	fl, err := train.NewFlow(1e-10)
	require.NoError(t, err)
	tr, err := train.Run(obj, fl, []float64{0.1, -0.2}, train.Config{Steps: 2000, StopLogLoss: -20, KeepTheta: true})
	require.NoError(t, err)
	v := MarginMonotone(TrajectoryCase{Obj: obj, Records: tr.Records})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	// Reverse the separated part, keep step numbers consecutive.
	var rev []train.Record
	for i := len(tr.Records) - 1; i >= 0 && tr.Records[i].Separated; i-- {
		r := tr.Records[i]
		r.Step, r.LocalError = len(rev), 0
		rev = append(rev, r)
	}
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: rev, ExactSteps: true})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "γ̃ decreased")
	// As a flow the reversed records are violated too (each step runs
	// against the flow, far beyond its reported error of 0).
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: rev})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	// Without θ in the records the check cannot run.
	noTheta := append([]train.Record(nil), tr.Records...)
	noTheta[0].Theta = nil
	assert.Equal(t, theorems.AssumptionFailed, MarginMonotone(TrajectoryCase{Obj: obj, Records: noTheta}).Status)
	// LL-4.2 needs the exponential loss.
	assert.Equal(t, theorems.AssumptionFailed, GDMarginMonotone(TrajectoryCase{Obj: obj, Records: tr.Records}).Status)
}

// TestMarginMonotoneGaps: GD records every 10 steps are checked as steps of
// a map only when the case allows gaps; the verdict then names the run's
// own steps, in Detail and in Worst, and reversed records are violated
// where Worst says.
func TestMarginMonotoneGaps(t *testing.T) {
	obj := linearObjective(t, losses.NewBinary(losses.Logistic{}), []float64{1, 0.2, -0.3, 1, 0.8, 0.9}, []float64{1, 1, 1})
	gd, err := train.NewGD(0.5)
	require.NoError(t, err)
	tr, err := train.Run(obj, gd, []float64{0.1, -0.2}, train.Config{Steps: 4000, Every: 10, KeepTheta: true})
	require.NoError(t, err)
	v := MarginMonotone(TrajectoryCase{Obj: obj, Records: tr.Records, ExactSteps: true})
	assert.Contains(t, v.Detail, "consecutive", v.String())
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: tr.Records, ExactSteps: true, Gaps: true})
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	require.NotNil(t, v.Worst)
	assert.Equal(t, 10, v.Worst.To-v.Worst.From)
	assert.Zero(t, v.Worst.From%10)
	var rev []train.Record
	for i := len(tr.Records) - 1; i >= 0 && tr.Records[i].Separated; i-- {
		r := tr.Records[i]
		r.Step = 10 * len(rev)
		rev = append(rev, r)
	}
	v = MarginMonotone(TrajectoryCase{Obj: obj, Records: rev, ExactSteps: true, Gaps: true})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	require.NotNil(t, v.Worst)
	assert.Contains(t, v.Detail, fmt.Sprintf("step %d→%d", v.Worst.From, v.Worst.To))
}

package suite

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/properties/classification"
	"github.com/implicitbias/implicitbias/properties/kkt"
	"github.com/implicitbias/implicitbias/properties/proptest"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// Engine faults planted in the linear direction checks (issue 18, "Build"
// point 2): LL-lin, ZD-T7 and XY-P1 must report them violated.

// precondGD is issue 18's stray preconditioner: GD, then θ₀ moves k more
// times its step, θ₀ −= k·e^{log η + log 𝓛}·Dir₀ (k = 3 in the issue).
// Its limit direction is that of GD on the data with coordinate 0 scaled
// by √(1+k), mapped back (preconditionedLimit).
type precondGD struct {
	train.GD
	k float64
}

func (p *precondGD) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	le, err := p.GD.Step(obj, theta, ev)
	theta[0] -= p.k * math.Exp(le+ev.LogObjective) * ev.Dir[0]
	return le, err
}

// preconditionedLimit returns the limit direction of GD preconditioned by
// D = diag(1 + k, 1, …, 1) on data: with θ = D^{1/2}v, v runs plain GD on
// the data D^{1/2}x (Soudry et al. 2018: v → the SVM of those data), so
// θ̂ ∝ D^{1/2}·SVM(D^{1/2}x) = argmin ‖D^{−1/2}θ‖ over y⟨θ, x⟩ ≥ 1.
func preconditionedLimit(data *dataset.Dataset, k float64) ([]float64, error) {
	s := math.Sqrt(1 + k)
	x := append([]float64(nil), data.X...)
	for i := 0; i < data.N; i++ {
		x[i*data.D] *= s
	}
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, x), data.Y, nil)
	if err != nil {
		return nil, err
	}
	w := append([]float64(nil), sol.W...)
	w[0] *= s
	return w, nil
}

// limitShift returns the angle between ŵ and the limit of the
// preconditioner of strength k.
func limitShift(data *dataset.Dataset, k float64) (float64, error) {
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	if err != nil {
		return 0, err
	}
	w, err := preconditionedLimit(data, k)
	if err != nil {
		return 0, err
	}
	c := floats.Dot(w, sol.W) / (floats.Norm(w, 2) * floats.Norm(sol.W, 2))
	return math.Acos(math.Min(1, c)), nil
}

// minShift is the limit-direction change of must-show 2.
const minShift = 0.05

// strengthFor returns the weakest preconditioner (smallest |k| on a grid
// over [−0.9, 10], refined by bisection) whose limit lies at least minShift
// from ŵ, and that angle; ok is false when no k on the grid gets there
// (the SVM vertex does not move).
func strengthFor(data *dataset.Dataset) (k, angle float64, ok bool) {
	grid := []float64{0.05, -0.05, 0.1, -0.1, 0.2, -0.2, 0.4, -0.4, 0.8, -0.6, 1.6, -0.8, 3.2, -0.9, 6.4, 10}
	prev := map[bool]float64{true: 0, false: 0}
	for _, g := range grid {
		a, err := limitShift(data, g)
		if err != nil {
			return 0, 0, false
		}
		if a < minShift {
			prev[g > 0] = g
			continue
		}
		lo, hi := prev[g > 0], g
		for range 30 {
			mid := (lo + hi) / 2
			if am, err := limitShift(data, mid); err == nil && am >= minShift {
				hi, a = mid, am
			} else {
				lo = mid
			}
		}
		return hi, a, true
	}
	return 0, 0, false
}

// kktFaultRun trains a KKT case on the engine with a faulty optimizer: the
// step size is chosen by Build's pilot rule run with that optimizer (the
// faulty engine picks its own step: issue 18's one-line change applies to
// the pilot too), then the run is recorded as KKTBuilt.Train does, for the
// claim's length (Plan), ended at the first milestone where check is
// violated (cases.StopWhenViolated, as LL-lin's own controls: the check's
// every ratio is ≤ 1 on a correct engine at any length, so a violation of
// the run's first t steps is one of a run of t steps; a run never violated
// there trains to its full length and is judged as before).
func kktFaultRun(c kkt.KKTCase, mk func(lr float64) train.Optimizer, check func(*kkt.KKTBuilt, *train.Trajectory) theorems.Verdict) (*kkt.KKTBuilt, *train.Trajectory, error) {
	b, err := c.Build()
	if err != nil {
		return nil, nil, err
	}
	lr := 0.0
	for try := c.PilotLR(); try > 1e-4; try /= 4 {
		θ := append([]float64(nil), b.Init...)
		tr, err := train.Run(b.Obj, mk(try), θ, train.Config{Steps: 200, Every: 200})
		if err == nil && tr.Final().LogLoss < tr.Records[0].LogLoss {
			lr = try
			break
		}
		if err != nil && !errors.Is(err, train.ErrNonFinite) {
			return nil, nil, err
		}
	}
	if lr == 0 {
		return nil, nil, fmt.Errorf("no stable step size for %v", c)
	}
	p := c.Plan(proptest.EnvRunner())
	θ := append([]float64(nil), b.Init...)
	tr, err := cases.RecordRunUntil(b.Obj, mk(lr), θ, p.Steps, p.Burst, 1.5, cases.StopWhenViolated(func(tr *train.Trajectory) theorems.Verdict {
		return check(b, tr)
	}, nil, nil))
	return b, tr, err
}

// classFaultRun trains a classification case as ClassCase.Run does for
// the direction claims (DirectionSteps, the length ZD-T7 and XY-P1 judge),
// with opt and the weighting wrapped by wrap (nil: as is), ended at the
// first milestone where check is violated (nil: never;
// classification.GRWRunUntil; the argument is kktFaultRun's).
func classFaultRun(c classification.ClassCase, opt train.Optimizer, wrap func(train.Weighting) train.Weighting, check linearCheck) (*dataset.Dataset, *train.Trajectory, error) {
	data := c.Data()
	var stop func(*train.Trajectory) bool
	if check != nil {
		stop = func(tr *train.Trajectory) bool { return check(data, tr).Status == theorems.Violated }
	}
	obj, err := classification.LinearObjective(data, 1, c.LossOf())
	if err != nil {
		return nil, nil, err
	}
	w, err := c.Weighting()
	if err != nil {
		return nil, nil, err
	}
	if wrap != nil {
		w = wrap(w)
	}
	tr, err := classification.GRWRunUntil(obj, opt, make([]float64, data.D), w, classification.DirectionSteps(proptest.EnvRunner()), 1.5, stop)
	return data, tr, err
}

// ignoredWeights is issue 18's "reweighting ignored": the scheme computes
// its weights q^{(t)} from the losses as usual and the trajectory records
// them, but the objective steps with uniform weights (ERM).
type ignoredWeights struct {
	inner train.Weighting
	next  float64
	kept  map[int][]float64 // q^{(t)} at the steps grwRecorder records
	last  []float64
}

func (w *ignoredWeights) Scheme() train.Scheme { return w.inner.Scheme() }

func (w *ignoredWeights) Start(d *dataset.Dataset) error {
	w.next, w.kept = 1, map[int][]float64{}
	return w.inner.Start(d)
}

func (w *ignoredWeights) Update(t int, logLoss, q []float64) error {
	if err := w.inner.Update(t, logLoss, q); err != nil {
		return err
	}
	w.last = append(w.last[:0], q...)
	if float64(t) >= w.next {
		for w.next <= float64(t) {
			w.next *= 1.5
		}
		w.kept[t] = append([]float64(nil), q...)
	}
	for i := range q {
		q[i] = 1 / float64(len(q))
	}
	return nil
}

// reported returns the run so far tr as its trajectory reports it: the
// scheme's weights at the records, the last record's the latest q.
func (w *ignoredWeights) reported(tr *train.Trajectory) *train.Trajectory {
	out := *tr
	out.Records = append([]train.Record(nil), tr.Records...)
	for i := range out.Records {
		if q, ok := w.kept[out.Records[i].Step]; ok {
			out.Records[i].Weights = q
		}
	}
	out.Records[len(out.Records)-1].Weights = append([]float64(nil), w.last...)
	out.Weights = append([]float64(nil), w.last...)
	return &out
}

// ignoredWeightsRun trains c by GD as ERM while its trajectory records the
// weights of c's scheme, ended at the first milestone where check, given
// the run as reported, is violated (classFaultRun).
func ignoredWeightsRun(c classification.ClassCase, check linearCheck) (*dataset.Dataset, *train.Trajectory, error) {
	iw := &ignoredWeights{}
	gd, err := train.NewGD(classification.ClassLR)
	if err != nil {
		return nil, nil, err
	}
	data, tr, err := classFaultRun(c, gd, func(w train.Weighting) train.Weighting {
		iw.inner = w
		return iw
	}, func(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
		return check(data, iw.reported(tr))
	})
	if err != nil {
		return nil, nil, err
	}
	return data, iw.reported(tr), nil
}

// faultCase is one generated case run on a faulty engine: its verdict, or
// why the check could not be reached (the faulty engine diverged, or the
// fault does not apply to the case).
type faultCase struct {
	name    string
	v       theorems.Verdict
	steps   int // the faulted run's length (stopped where violated)
	skipped string
}

// requireCaught reports every case and fails unless at least share of the
// cases that reached the check are violated (never counting inconclusive
// or assumption-failed as caught).
func requireCaught(t *testing.T, cases []faultCase, share float64) {
	t.Helper()
	caught, reached := 0, 0
	for _, c := range cases {
		if c.skipped != "" {
			t.Logf("%s: not reached (%s)", c.name, c.skipped)
			continue
		}
		reached++
		if c.v.Status == theorems.Violated {
			caught++
		}
		t.Logf("%s: %s (%.3g) at step %d", c.name, c.v.Status, c.v.Statistic, c.steps)
		if c.v.Status != theorems.Violated {
			t.Logf("\tnot caught: %v", c.v)
		}
	}
	t.Logf("caught %d of %d cases that reached the check (%d drawn)", caught, reached, len(cases))
	if reached == 0 || float64(caught) < share*float64(reached) {
		t.Errorf("caught %d of %d, want at least %.0f%%", caught, reached, 100*share)
	}
}

// linearFaultCases is the number of generated cases per (fault, claim) of
// the tests below: 95% of 20 allows one miss; at seeds 1, 2, 3, 7 none
// missed.
//
// The faulted runs have the claims' own lengths (LL-lin's Plan, 2·10⁵
// steps; ZD-T7's and XY-P1's DirectionSteps, 44 053: what verify judges)
// and end at the first milestone where the check is violated (kktFaultRun,
// classFaultRun; a run not violated at a milestone trains to its full
// length and is judged there). At seeds 1, 2, 3, 7 every faulted run of
// these tests stopped at the first milestone (step 1 477 or 1 478), so each
// costs ~1.5·10³ steps and one judgement instead of 2·10⁵ steps.
const linearFaultCases = 20

// linearFamily is one of the three linear direction claims with its
// generator, a correct run and a run on an engine with a faulty optimizer.
type linearFamily struct {
	id    string
	gen   gopter.Gen
	check func(x any, opt func(lr float64) train.Optimizer) (theorems.Verdict, int, error)
	data  func(x any) (*dataset.Dataset, error)
}

// linearCheck is a direction claim's check of a classification run.
type linearCheck func(*dataset.Dataset, *train.Trajectory) theorems.Verdict

// classCheckOf returns the check of ZD-T7 (GRWDirection) or, iw, of XY-P1
// (IWDirection with c's importance weights).
func classCheckOf(c classification.ClassCase, iw bool) linearCheck {
	if iw {
		return func(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
			return grwclass.IWDirection(data, c.ImportanceWeights(), tr)
		}
	}
	return grwclass.GRWDirection
}

func linearFamilies() []linearFamily {
	classCheck := func(iw bool) func(x any, opt func(lr float64) train.Optimizer) (theorems.Verdict, int, error) {
		return func(x any, opt func(lr float64) train.Optimizer) (theorems.Verdict, int, error) {
			c := x.(classification.ClassCase)
			check := classCheckOf(c, iw)
			data, tr, err := classFaultRun(c, opt(classification.ClassLR), nil, check)
			if err != nil {
				return theorems.Verdict{}, 0, err
			}
			return check(data, tr), tr.Steps, nil
		}
	}
	classData := func(x any) (*dataset.Dataset, error) { return x.(classification.ClassCase).Data(), nil }
	return []linearFamily{
		{id: "LL-lin", gen: gopter.Gen(kkt.GenKKT(kkt.KKTLinear)),
			check: func(x any, opt func(lr float64) train.Optimizer) (theorems.Verdict, int, error) {
				check := func(b *kkt.KKTBuilt, tr *train.Trajectory) theorems.Verdict { return grwclass.SVMDirection(b.Data, tr) }
				b, tr, err := kktFaultRun(x.(kkt.KKTCase), opt, check)
				if err != nil {
					return theorems.Verdict{}, 0, err
				}
				return check(b, tr), tr.Steps, nil
			},
			data: func(x any) (*dataset.Dataset, error) {
				b, err := x.(kkt.KKTCase).Build()
				if err != nil {
					return nil, err
				}
				return b.Data, nil
			}},
		{id: "ZD-T7", gen: gopter.Gen(classification.GenClass(true, []int{classification.LossExp, classification.LossLogistic}, classification.AllGRWSchemes())), check: classCheck(false), data: classData},
		{id: "XY-P1", gen: gopter.Gen(classification.GenClass(false, []int{classification.LossExp}, []int{classification.SchemeRandomIW})), check: classCheck(true), data: classData},
	}
}

// TestLinearFaultPreconditioner: issue 18's stray preconditioner (θ₀ moves
// 3 more times its GD step) is violated on at least 95% of the LL-lin,
// ZD-T7 and XY-P1 cases at the quick budget (the faulty engine picks its
// own step where the case's pilot does).
func TestLinearFaultPreconditioner(t *testing.T) {
	for _, f := range linearFamilies() {
		t.Run(f.id, func(t *testing.T) {
			t.Parallel() // the families' runs are independent; the Runner's caches are safe for concurrent use
			var cases []faultCase
			for _, x := range proptest.DrawCases(t, f.gen, linearFaultCases) {
				v, steps, err := f.check(x, func(lr float64) train.Optimizer { return &precondGD{GD: train.GD{LR: lr}, k: 3} })
				fc := faultCase{name: fmt.Sprint(x), v: v, steps: steps}
				if err != nil {
					fc.skipped = "the faulty engine failed: " + err.Error()
				}
				cases = append(cases, fc)
			}
			requireCaught(t, cases, 0.95)
		})
	}
}

// TestLinearFaultLimitShift: a preconditioner whose limit direction lies
// minShift = 0.05 rad from ŵ (the weakest on strengthFor's grid, refined
// by bisection) is violated on every case, never inconclusive; cases whose
// SVM vertex no preconditioner of coordinate 0 moves that far are
// skipped.
func TestLinearFaultLimitShift(t *testing.T) {
	for _, f := range linearFamilies() {
		t.Run(f.id, func(t *testing.T) {
			t.Parallel() // the families' runs are independent; the Runner's caches are safe for concurrent use
			var cases []faultCase
			for _, x := range proptest.DrawCases(t, f.gen, linearFaultCases) {
				fc := faultCase{name: fmt.Sprint(x)}
				data, err := f.data(x)
				if err != nil {
					fc.skipped = err.Error()
					cases = append(cases, fc)
					continue
				}
				k, angle, ok := strengthFor(data)
				if !ok {
					fc.skipped = "no preconditioner of coordinate 0 moves the limit by 0.05 rad"
					cases = append(cases, fc)
					continue
				}
				fc.name = fmt.Sprintf("%v, k = %.3g (limit %.3g rad from ŵ)", x, k, angle)
				v, steps, err := f.check(x, func(lr float64) train.Optimizer { return &precondGD{GD: train.GD{LR: lr}, k: k} })
				if err != nil {
					fc.skipped = "the faulty engine failed: " + err.Error()
				}
				fc.v, fc.steps = v, steps
				cases = append(cases, fc)
			}
			requireCaught(t, cases, 1)
		})
	}
}

// TestLinearFaultWeightsIgnored: GD stepping as ERM while the trajectory
// records the scheme's weights is violated on at least 95% of the XY-P1
// cases and of the ZD-T7 cases whose weights stay fixed (importance,
// static and XY's random weights; where they are uniform — ERM, balanced
// groups — the fault changes nothing and the check must not be violated:
// it holds, or is inconclusive where the claim is).
// Schemes whose weights move between records are TestLinearFaultWeightsIgnoredMoving's
// (this wrapper records uniform weights' integrals: the registered fault,
// which keeps the scheme's, is used there).
func TestLinearFaultWeightsIgnored(t *testing.T) {
	gens := map[string]gopter.Gen{
		"ZD-T7": gopter.Gen(classification.GenClass(true, []int{classification.LossExp, classification.LossLogistic}, []int{cases.SchemeERM, cases.SchemeIW, cases.SchemeStatic, classification.SchemeRandomIW})),
		"XY-P1": linearFamilies()[2].gen,
	}
	for _, f := range linearFamilies()[1:] {
		t.Run(f.id, func(t *testing.T) {
			t.Parallel() // the families' runs are independent; the Runner's caches are safe for concurrent use
			var cases []faultCase
			for _, x := range proptest.DrawCases(t, gens[f.id], linearFaultCases) {
				c := x.(classification.ClassCase)
				check := classCheckOf(c, f.id == "XY-P1")
				data, tr, err := ignoredWeightsRun(c, check)
				fc := faultCase{name: fmt.Sprint(c)}
				switch {
				case err != nil:
					fc.skipped = err.Error()
				case uniformWeights(tr.Weights):
					fc.skipped = "uniform weights: the fault changes nothing"
					// A fault-free run: never violated. Inconclusive where the
					// claim itself is, on a draw whose residual has no limit (a
					// support vector without weight: TestSoakCases keeps one).
					if v := grwclass.GRWDirection(data, tr); v.Status != theorems.Holds && v.Status != theorems.Inconclusive {
						t.Errorf("%v: ERM with its weights ignored is ERM, the check must hold: %v", c, v)
					}
				default:
					fc.v, fc.steps = check(data, tr), tr.Steps
				}
				cases = append(cases, fc)
			}
			requireCaught(t, cases, 0.95)
		})
	}
}

// TestLinearFaultWeightsIgnoredMoving: the registered weights-ignored
// fault (the scheme's weights recorded, uniform ones applied) on the
// schemes whose weights move between records (Group DRO, χ², CVaR, the
// schedules) is violated on at least 95% of the cases whose weights it
// moves: the check bounds each step's coefficients by the weights' integral
// between records (train.WeightSum; theorems/limits/linearlimit.go, part 5). A
// case counts when the correct run's mean weights over its last segment
// leave uniform by more than 2× on some sample (max_n |log(N·∫q_n/Σ∫q)|
// > log 2): the slopes −ℓ′ change by ≈ 1.5× between records 1.5× apart in
// T on the margin, so a smaller departure can hide in the interval (Group
// DRO at step 0 stays uniform). The runs are ZD-T7's (DirectionSteps), the
// faulted one its fault control's (stopped where violated while the clean
// run holds: ClassCase.RunControl): at seeds 1, 2, 3, 7, 10, 7, 10, 6, 9
// and 9 of 20 cases count, all caught.
func TestLinearFaultWeightsIgnoredMoving(t *testing.T) {
	gen := classification.GenClass(true, []int{classification.LossExp, classification.LossLogistic}, []int{cases.SchemeGroupDRO, cases.SchemeChiSquare, cases.SchemeCVaR, cases.SchemeScheduleA1, cases.SchemeScheduleA3})
	var cases []faultCase
	for _, x := range proptest.DrawCases(t, gopter.Gen(gen), linearFaultCases) {
		c := x.(classification.ClassCase)
		fc := faultCase{name: fmt.Sprint(c)}
		r := proptest.EnvRunner()
		_, tr, err := c.Run(r, classification.DirectionSteps(r))
		if err != nil {
			fc.skipped = err.Error()
			cases = append(cases, fc)
			continue
		}
		if far := weightDeparture(tr); far <= math.Log(2) {
			fc.skipped = fmt.Sprintf("the scheme's mean weights over the last segment stay within %.3g× of uniform", math.Exp(far))
			cases = append(cases, fc)
			continue
		}
		c.Fault = "weights-ignored"
		// ZD-T7's fault control's run: stopped at the first milestone where
		// the check is violated and the clean run above holds.
		data, tr, err := c.RunControl(r, classification.DirectionSteps(r), "GRWDirection", grwclass.GRWDirection)
		if err != nil {
			fc.skipped = "the faulty engine failed: " + err.Error()
		} else {
			fc.v, fc.steps = grwclass.GRWDirection(data, tr), tr.Steps
		}
		cases = append(cases, fc)
	}
	requireCaught(t, cases, 0.95)
}

// weightDeparture returns max_n |log(N·∫q_n dT/Σ_m ∫q_m dT)| over the last
// record's segment (train.Record.WeightSum): how far the mean weights
// there are from uniform (+Inf when a weight is 0).
func weightDeparture(tr *train.Trajectory) float64 {
	ws := tr.Final().WeightSum
	total := floats.Sum(ws)
	far := 0.0
	for _, v := range ws {
		far = math.Max(far, math.Abs(math.Log(float64(len(ws))*v/total)))
	}
	return far
}

// uniformWeights reports whether every weight equals the first (to 1e-12).
func uniformWeights(q []float64) bool {
	for _, v := range q {
		if math.Abs(v-q[0]) > 1e-12*math.Abs(q[0]) {
			return false
		}
	}
	return true
}

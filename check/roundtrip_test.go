package check

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// sameVerdict reports whether two verdicts agree in status and statistic
// (bit for bit, NaN equal to NaN).
func sameVerdict(a, b theorems.Verdict) bool { return closeVerdict(a, b, 0) }

// closeVerdict is sameVerdict with statistics equal to rel relative. A run
// recorded in windows (train.RunWindows) sums T = Σ η per window and per gap,
// the file's reader per step (the file keeps lr, not T): the two orders of
// the same sum differ by at most (steps)·u relative (3e-13 for 3000 steps),
// which reaches the statistics of the checks that use log T (LL-lin); 1e-9
// leaves three orders of magnitude for the statistic's sensitivity to log T.
func closeVerdict(a, b theorems.Verdict, rel float64) bool {
	same := func(x, y float64) bool {
		return x == y || (math.IsNaN(x) && math.IsNaN(y)) || math.Abs(x-y) <= rel*math.Max(math.Abs(x), math.Abs(y))
	}
	return a.Status == b.Status && same(a.Statistic, b.Statistic) && same(a.Bound, b.Bound)
}

// exported runs the engine's own run through the file format: FromTrain,
// WriteNPZ, ReadNPZ, MapModel, Check.
func exported(t *testing.T, tr *train.Trajectory, model models.Model, data *dataset.Dataset, loss string) *Report {
	t.Helper()
	ft, err := FromTrain(tr, model, data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, ft); err != nil {
		t.Fatal(err)
	}
	back, err := ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := MapModel(back)
	if err != nil {
		t.Fatal(err)
	}
	if m.Spec != model.String() {
		t.Fatalf("the file maps to %s, the run was %s", m.Spec, model)
	}
	l, _ := losses.ByName(loss)
	d, err := Data(back, l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(back, model, d, Options{Loss: loss, Name: "exported"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// twoClasses draws the n points of ℝ^d of the round trips: labels ±1 in
// turn, each coordinate y·(shift + U[0, 1)) + noise·N(0, 1), from the
// PCG stream (s1, s2).
func twoClasses(s1, s2 uint64, n, d int, shift, noise float64) *dataset.Dataset {
	rng := rand.New(rand.NewPCG(s1, s2))
	data := &dataset.Dataset{N: n, D: d}
	for i := range n {
		y := float64(2*(i%2) - 1)
		for range d {
			data.X = append(data.X, y*(shift+rng.Float64())+noise*rng.NormFloat64())
		}
		data.Y = append(data.Y, y)
	}
	return data
}

// logisticRun parses the model spec for data's inputs and builds its
// objective on the logistic loss.
func logisticRun(t *testing.T, spec string, data *dataset.Dataset) (models.Model, *train.Objective) {
	t.Helper()
	model, err := models.Parse(spec, data.D)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := train.NewObjective(model, losses.NewBinary(losses.Logistic{}), data)
	if err != nil {
		t.Fatal(err)
	}
	return model, obj
}

// optimizer is train.NewOptimizer at learning rate lr, failing t on error.
func optimizer(t *testing.T, name string, lr float64) train.Optimizer {
	t.Helper()
	o, err := train.NewOptimizer(name, train.OptimizerOptions{LR: lr})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// gdTrajectory runs gradient descent from the model's initialization at
// seed for steps steps, keeping θ at every step.
func gdTrajectory(t *testing.T, model models.Model, obj *train.Objective, seed uint64, lr float64, steps int) *train.Trajectory {
	t.Helper()
	theta := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(seed, 0)), theta)
	tr, err := train.Run(obj, optimizer(t, "gd", lr), theta, train.Config{Steps: steps, KeepTheta: true})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func verdictOf(t *testing.T, rep *Report, id string) theorems.Verdict {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID == id {
			return r.Claims.Worst
		}
	}
	t.Fatalf("%s not run", id)
	return theorems.Verdict{}
}

// TestExportedRunSameVerdicts is issue 19's round trip: a run of the
// engine's own train, exported to the trajectory format and read back,
// gets from check the verdicts the theorems' checks give on the run in
// process, bit for bit: the identities at every record, γ̃'s monotonicity
// on a run recorded at every step, and the KKT residuals' bounds on a run
// recorded in windows (train.RunWindows, as train --export-npz records),
// and the direction of a linear run (LL-lin, whose statistic depends on
// log T: equal to 1e-9, closeVerdict says why).
func TestExportedRunSameVerdicts(t *testing.T) {
	const n, d = 12, 3
	data := twoClasses(19, 1, n, d, 0.3, 0.2)
	model, obj := logisticRun(t, "mlp:relu:8", data)
	theta0 := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(3, 0)), theta0)
	opt := optimizer(t, "gd", 0.2)

	t.Run("every step", func(t *testing.T) {
		theta := append([]float64(nil), theta0...)
		tr, err := train.Run(obj, opt, theta, train.Config{Steps: 400, KeepTheta: true})
		if err != nil {
			t.Fatal(err)
		}
		rep := exported(t, tr, model, data, "logistic")
		if rep.Premise.Status != theorems.Holds {
			t.Fatalf("premise: %s", rep.Premise)
		}
		var euler []theorems.Verdict
		for _, r := range tr.Records {
			euler = append(euler, homogeneity.EulerIdentity(homogeneity.PointCase{Model: model, Theta: r.Theta, X: data.X, N: n}))
		}
		if w := theorems.Worst(euler...); !sameVerdict(w, verdictOf(t, rep, "LL-B3")) {
			t.Errorf("LL-B3: in process %s, from the file %s", w, verdictOf(t, rep, "LL-B3"))
		}
		direct := margins.MarginMonotone(margins.TrajectoryCase{Obj: obj, Records: tr.Records, ExactSteps: true})
		if got := verdictOf(t, rep, "LL-4.1"); !sameVerdict(direct, got) || direct.Status != theorems.Holds {
			t.Errorf("LL-4.1: in process %s, from the file %s", direct, got)
		}
	})
	t.Run("flow", func(t *testing.T) {
		theta := append([]float64(nil), theta0...)
		flow, err := train.NewOptimizer("flow", train.OptimizerOptions{LR: 0.1, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := train.Run(obj, flow, theta, train.Config{Steps: 600, KeepTheta: true})
		if err != nil {
			t.Fatal(err)
		}
		rep := exported(t, tr, model, data, "logistic")
		direct := margins.MarginMonotone(margins.TrajectoryCase{Obj: obj, Records: tr.Records})
		if got := verdictOf(t, rep, "LL-4.1"); !sameVerdict(direct, got) || direct.Status != theorems.Holds {
			t.Errorf("LL-4.1 (flow): in process %s, from the file %s", direct, got)
		} else {
			t.Logf("LL-4.1 (flow): %s in both", direct.Status)
		}
	})
	t.Run("linear", func(t *testing.T) {
		lin, err := models.Parse("linear", d)
		if err != nil {
			t.Fatal(err)
		}
		lobj, err := train.NewObjective(lin, losses.NewBinary(losses.Exponential{}), data)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, d)
		tr, err := train.RunWindows(lobj, opt, theta, train.WindowPlan{Steps: 3000, Burst: 2, Every: 10})
		if err != nil {
			t.Fatal(err)
		}
		rep := exported(t, tr, lin, data, "exp")
		direct := grwclass.SVMDirection(data, tr)
		if got := verdictOf(t, rep, "LL-lin"); !closeVerdict(direct, got, 1e-9) {
			t.Errorf("LL-lin: in process %s, from the file %s (statistics %.17g, %.17g)", direct.Status, got.Status, direct.Statistic, got.Statistic)
		} else {
			t.Logf("LL-lin: %s in both", direct.Status)
		}
	})
	t.Run("windows", func(t *testing.T) {
		theta := append([]float64(nil), theta0...)
		tr, err := train.RunWindows(obj, opt, theta, train.WindowPlan{Steps: 20000, Burst: 2, Growth: 1.5})
		if err != nil {
			t.Fatal(err)
		}
		rep := exported(t, tr, model, data, "logistic")
		for id, check := range map[string]func(*train.Objective, *train.Trajectory, float64) theorems.Verdict{
			"LL-4.4": kkt.KKTConvergence, "LL-A9": kkt.BetaConvergence,
		} {
			direct := check(obj, tr, 0)
			if got := verdictOf(t, rep, id); !sameVerdict(direct, got) {
				t.Errorf("%s: in process %s, from the file %s", id, direct, got)
			} else {
				t.Logf("%s: %s in both", id, direct.Status)
			}
		}
	})
}

// TestExportedGRWRunsSameVerdicts: the ZD checks on GRW runs of the linear
// model, exported and read back, give the in-process verdicts — the
// interpolator (ZD-T1) and the span (ZD-span) of a regression under Group
// DRO, the direction (ZD-T7) of a classification under χ²-DRO with the
// weights recorded at every record.
func TestExportedGRWRunsSameVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	const n, d = 6, 15
	reg := &dataset.Dataset{N: n, D: d, Groups: []int{0, 0, 0, 1, 1, 1}}
	for range n {
		for range d {
			reg.X = append(reg.X, rng.NormFloat64()/math.Sqrt(d))
		}
		reg.Y = append(reg.Y, rng.NormFloat64())
	}
	lin, err := models.Parse("linear", d)
	if err != nil {
		t.Fatal(err)
	}
	gd := optimizer(t, "gd", 0.5)

	t.Run("regression", func(t *testing.T) {
		obj, err := train.NewObjective(lin, losses.Squared{}, reg)
		if err != nil {
			t.Fatal(err)
		}
		w, err := train.ParseWeighting("gdro", reg.Groups)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, d)
		for i := range theta {
			theta[i] = 0.1 * rng.NormFloat64()
		}
		theta0 := append([]float64(nil), theta...)
		tr, err := train.Run(obj, gd, theta, train.Config{Steps: 3000, Every: 50, KeepTheta: true, Weighting: w, KeepWeights: true})
		if err != nil {
			t.Fatal(err)
		}
		rep := exported(t, tr, lin, reg, "squared")
		c := regression.RegressionCase{X: reg.X, Y: reg.Y, N: n, D: d, Theta0: theta0}
		direct := regression.Interpolator(c, tr.Theta)
		if got := verdictOf(t, rep, "ZD-T1"); !sameVerdict(direct, got) || direct.Status != theorems.Holds {
			t.Errorf("ZD-T1: in process %s, from the file %s", direct, got)
		}
		m := regression.NewSpanMonitor(c)
		for _, r := range tr.Records {
			m.Observe(r.Step, r.Theta)
		}
		if got := verdictOf(t, rep, "ZD-span"); !sameVerdict(m.Verdict(), got) || got.Status != theorems.Holds {
			t.Errorf("ZD-span: in process %s, from the file %s", m.Verdict(), got)
		}
	})
	t.Run("classification", func(t *testing.T) {
		cls := &dataset.Dataset{N: n, D: d, X: reg.X}
		for i := range n {
			cls.Y = append(cls.Y, float64(2*(i%2)-1))
		}
		obj, err := train.NewObjective(lin, losses.NewBinary(losses.Logistic{}), cls)
		if err != nil {
			t.Fatal(err)
		}
		w, err := train.ParseWeighting("chi2", nil)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, d)
		tr, err := train.Run(obj, gd, theta, train.Config{Steps: 4000, Every: 20, KeepTheta: true, Weighting: w, KeepWeights: true})
		if err != nil {
			t.Fatal(err)
		}
		rep := exported(t, tr, lin, cls, "logistic")
		direct := grwclass.GRWDirection(cls, tr)
		if got := verdictOf(t, rep, "ZD-T7"); !closeVerdict(direct, got, 1e-9) {
			t.Errorf("ZD-T7: in process %s, from the file %s", direct, got)
		} else {
			t.Logf("ZD-T7: %s in both", direct.Status)
		}
	})
}

// TestPremiseCatchesOtherDynamics is the premise's negative control on
// runs of the engine: heavy-ball momentum, and a gradient-descent run whose
// file declares the wrong reduction (its step read n times too small), are
// not −η∇𝓛 at rounding level, so LL's gradient-descent claims are
// assumption-failed; the same gradient-descent run with the right
// reduction passes. Checking it twice gives the same bits (determinism).
func TestPremiseCatchesOtherDynamics(t *testing.T) {
	data := twoClasses(5, 5, 10, 3, 0.5, 0.1)
	model, obj := logisticRun(t, "mlp:relu:2x6", data)
	run := func(opt string) *Trajectory {
		o := optimizer(t, opt, 0.05)
		theta := make([]float64, model.NumParams())
		model.Init(rand.New(rand.NewPCG(2, 0)), theta)
		// Every step: train.RunWindows starts a fresh run per window, and
		// an optimizer with state (momentum) takes a plain gradient step
		// first.
		tr, err := train.Run(obj, o, theta, train.Config{Steps: 1500, KeepTheta: true})
		if err != nil {
			t.Fatal(err)
		}
		ft, err := FromTrain(tr, model, data)
		if err != nil {
			t.Fatal(err)
		}
		return ft
	}
	premise := func(ft *Trajectory) *Report {
		rep, err := Check(ft, model, data, Options{Name: "run"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	gd := run("gd")
	ok := premise(gd)
	if ok.Premise.Status != theorems.Holds {
		t.Fatalf("gradient descent: premise %s", ok.Premise)
	}
	// %v, not reflect.DeepEqual: NaN statistics are equal bits, not equal numbers.
	if again := premise(gd); fmt.Sprintf("%v", again.Results) != fmt.Sprintf("%v", ok.Results) {
		t.Fatal("two checks of one run differ")
	}
	wrong := *gd
	wrong.Reduction = "mean"
	for name, ft := range map[string]*Trajectory{"momentum": run("momentum"), "wrong reduction": &wrong} {
		rep := premise(ft)
		if rep.Premise.Status != theorems.Violated {
			t.Errorf("%s: premise %s, want violated", name, rep.Premise)
		}
		if s := statuses(rep)["LL-4.4"]; s != theorems.AssumptionFailed {
			t.Errorf("%s: LL-4.4 %s, want assumption-failed", name, s)
		}
		if name == "wrong reduction" && !strings.Contains(rep.Premise.Detail, "c ≈ 10:") {
			t.Errorf("%s: the hint does not give c = n = 10: %s", name, rep.Premise.Detail)
		}
	}
}

// TestExportedCrossEntropyRun: a three-class run (cross-entropy, linear/3)
// exported and read back gets LL-F's in-process verdict.
func TestExportedCrossEntropyRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n, d, k = 12, 4, 3
	data := &dataset.Dataset{N: n, D: d}
	for i := range n {
		c := i % k
		for j := range d {
			v := 0.2 * rng.NormFloat64()
			if j == c {
				v += 1
			}
			data.X = append(data.X, v)
		}
		data.Y = append(data.Y, float64(c))
	}
	model, err := models.Parse("linear/3", d)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := train.NewObjective(model, losses.CrossEntropy{}, data)
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, model.NumParams())
	tr, err := train.Run(obj, optimizer(t, "gd", 0.2), theta, train.Config{Steps: 800, KeepTheta: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := exported(t, tr, model, data, "ce")
	direct := margins.MarginMonotone(margins.TrajectoryCase{Obj: obj, Records: tr.Records, ExactSteps: true})
	if got := verdictOf(t, rep, "LL-F"); !sameVerdict(direct, got) || direct.Status != theorems.Holds {
		t.Errorf("LL-F: in process %s, from the file %s", direct, got)
	}
}

// TestUnseparatedRun: a run on data no model separates (two samples with
// the same features and opposite labels) fails LL's (A4) in every claim
// after t₀; the Euler and radial identities, which need no separation,
// still hold.
func TestUnseparatedRun(t *testing.T) {
	data := &dataset.Dataset{N: 3, D: 2, X: []float64{1, 2, 0, 1, 1, 2}, Y: []float64{1, -1, -1}}
	model, obj := logisticRun(t, "mlp:relu:2x4", data)
	tr := gdTrajectory(t, model, obj, 1, 0.1, 200)
	rep := exported(t, tr, model, data, "logistic")
	// The premise says why its 200 pairs were not checked (none after a
	// separation that never comes), not that there are none.
	if rep.Premise.Status != theorems.Inconclusive || !strings.Contains(rep.Premise.Detail, "pairs of consecutive records are all before separation (no record is separated)") {
		t.Errorf("premise %s", rep.Premise)
	}
	for _, r := range rep.Results {
		want := theorems.AssumptionFailed
		if r.ID == "LL-B3" || r.ID == "LL-B3m" || r.ID == "LL-B4" {
			want = theorems.Holds // identities at any θ
		}
		if r.ID == "LL-4.3" {
			continue // decided on the recording first (every step is recorded here)
		}
		if r.Status() != want {
			t.Errorf("%s: %s, want %s: %s", r.ID, r.Status(), want, r.Claims.Worst.Detail)
		}
		if want == theorems.AssumptionFailed && !strings.Contains(r.Claims.Worst.Detail, "samples 1 and 3 have the same features") {
			t.Errorf("%s: %q does not name the contradiction", r.ID, r.Claims.Worst.Detail)
		}
	}
}

// TestPremiseCatchesMiniBatches: steps on the gradient of alternating
// halves of the data (mini-batch SGD, batch n/2) are not −η∇𝓛 of the full
// loss: the premise is violated and names a residual off the θ axis.
func TestPremiseCatchesMiniBatches(t *testing.T) {
	const n, d = 8, 3
	data := twoClasses(9, 9, n, d, 0.5, 0.1)
	model, _ := logisticRun(t, "mlp:relu:2x5", data)
	loss := losses.NewBinary(losses.Logistic{})
	batches := make([]*train.Objective, 2)
	var err error
	for b := range batches {
		idx := []int{}
		for i := b; i < n; i += 2 {
			idx = append(idx, i, (i+1)%n)
		}
		if batches[b], err = train.NewObjective(model, loss, data.Subset(idx[:n/2])); err != nil {
			t.Fatal(err)
		}
	}
	const eta, steps = 0.05, 600
	theta := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(4, 0)), theta)
	run := &Trajectory{Reduction: "sum", X: data.X, Y: data.Y, N: n, D: d, Params: paramsOf(model)}
	for s := 0; s <= steps; s++ {
		if s%100 <= 1 || s == steps {
			run.Steps = append(run.Steps, s)
			run.LR = append(run.LR, eta)
			run.Theta = append(run.Theta, append([]float64(nil), theta...))
		}
		ev, err := batches[s%2].Evaluate(theta, true)
		if err != nil {
			t.Fatal(err)
		}
		c := eta * math.Exp(ev.LogObjective)
		for i := range theta {
			theta[i] -= c * ev.Dir[i]
		}
	}
	rep, err := Check(run, model, data, Options{Name: "minibatch"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Premise.Status != theorems.Violated || !strings.Contains(rep.Premise.Detail, "orthogonal to θ") {
		t.Fatalf("premise %s", rep.Premise)
	}
}

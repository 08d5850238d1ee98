package check

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// misdeclared is a model whose declared block degrees are off by one on
// its first block (and L with them): the planted fault of a Go engine that
// gets its architecture's degrees wrong. Its Φ and ∇Φ are the model's.
type misdeclared struct{ models.Model }

func (m misdeclared) Degree() models.Degree {
	d := m.Model.Degree()
	d.Blocks = append([]float64(nil), d.Blocks...)
	d.Blocks[0]++
	d.Order++
	return d
}

// TestWrongBlockDegreeViolated: a run checked with a model that declares a
// wrong block degree (ReLU³ net, k₁ = 2 declared for the first layer's 1)
// is violated by the Euler identities per block (LL-B3m) and whole (LL-B3);
// with the degrees right the same records hold (TestPyTorchDigitsRuns).
func TestWrongBlockDegreeViolated(t *testing.T) {
	tr, err := ReadFile(filepath.Join("testdata", "pytorch", "digits_relu3_exp.npz"))
	if err != nil {
		t.Fatal(err)
	}
	model, data := mappedRun(t, tr, "exp")
	rep, err := Check(tr, misdeclared{model}, data, Options{Name: "misdeclared", Loss: "exp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{theorems.LL_B3m, theorems.LL_B3} {
		if v := verdictOf(t, rep, id); v.Status != theorems.Violated {
			t.Errorf("%s with a wrong block degree: %s, want violated", id, v)
		}
	}
}

// TestFrozenDirectionViolated is the catalog's control for LL-C10 and
// LL-4.5 as a recorded file: a run whose direction never moves (θ = c·u for
// a fixed u that separates the data but is not a KKT direction, c growing
// over six decades, as a loop that renormalizes θ's direction would
// record). Each record is followed by one exact gradient step from it, so
// the premise holds on every pair; but γ̃ settles while β stays < 1, which
// Cor C.10 forbids (LL-C10 violated), and θ̂ is frozen at a nonzero angle to
// the gradient-feature SVM, whose limit Cor 4.5 names (LL-4.5 violated).
func TestFrozenDirectionViolated(t *testing.T) {
	const n, d = 12, 3
	data := twoClasses(19, 1, n, d, 0.3, 0.2)
	model, obj := logisticRun(t, "mlp:id:6", data)
	u := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(3, 0)), u)
	trained, err := train.Run(obj, optimizer(t, "gd", 0.2), u, train.Config{Steps: 200})
	if err != nil {
		t.Fatal(err)
	}
	u = trained.Theta // separating after 200 steps, far from the KKT direction
	const lr = 0.2
	run := &Trajectory{Reduction: "sum", N: n, D: d, X: data.X, Y: data.Y, Params: paramsOf(model)}
	run.Modules = modulesOf(model.String(), run.Params)
	for k := range 13 {
		theta := make([]float64, len(u))
		floats.ScaleTo(theta, math.Pow(10, float64(k)/2)/floats.Norm(u, 2), u)
		pair, err := train.Run(obj, optimizer(t, "gd", lr), theta, train.Config{Steps: 1, KeepTheta: true})
		if err != nil {
			t.Fatal(err)
		}
		for s, rec := range pair.Records {
			run.Steps = append(run.Steps, 100*(k+1)+s)
			run.Theta = append(run.Theta, rec.Theta)
			run.LR = append(run.LR, lr)
		}
	}
	rep := checkRun(t, run, "frozen", "logistic")
	if rep.Premise.Status != theorems.Holds {
		t.Fatalf("premise %s: every pair is a gradient step", rep.Premise)
	}
	for _, id := range []string{theorems.LL_C10, theorems.LL_4_5} {
		v := verdictOf(t, rep, id)
		if v.Status != theorems.Violated {
			t.Errorf("%s on a frozen direction: %s, want violated", id, v)
		}
		t.Logf("%s: %s", id, v)
	}
}

// TestExportedKKTClaims: LL-C10 and LL-4.5 on a gradient-descent run of the
// engine (a deep linear net, C², recorded in pairs of consecutive steps as
// train --export-npz does), exported and read back, give the verdicts the
// theorems' checks give in process, bit for bit; LL-4.5 on the ReLU net of
// the same data is assumption-failed ((S1) smoothness).
func TestExportedKKTClaims(t *testing.T) {
	const n, d = 12, 3
	data := twoClasses(19, 1, n, d, 0.3, 0.2)
	for _, c := range []struct {
		spec string
		want map[string]theorems.Status
	}{
		{"mlp:id:6", map[string]theorems.Status{theorems.LL_C10: holds, theorems.LL_4_5: holds}},
		{"mlp:relu:6", map[string]theorems.Status{theorems.LL_C10: holds, theorems.LL_4_5: assumption}},
	} {
		t.Run(c.spec, func(t *testing.T) {
			model, obj := logisticRun(t, c.spec, data)
			theta := make([]float64, model.NumParams())
			model.Init(rand.New(rand.NewPCG(3, 0)), theta)
			tr, err := train.RunWindows(obj, optimizer(t, "gd", 0.2), theta, train.WindowPlan{Steps: 20000, Burst: 2, Growth: 1.5})
			if err != nil {
				t.Fatal(err)
			}
			rep := exported(t, tr, model, data, "logistic")
			for id, direct := range map[string]theorems.Verdict{
				theorems.LL_C10: kkt.BetaWindowBound(obj, tr, 0, 0),
				theorems.LL_4_5: kkt.NTKAlignment(obj, tr, 0),
			} {
				got := verdictOf(t, rep, id)
				if !sameVerdict(direct, got) && !(direct.Status == theorems.AssumptionFailed && got.Status == direct.Status) {
					t.Errorf("%s: in process %s, from the file %s", id, direct, got)
				}
				if got.Status != c.want[id] {
					t.Errorf("%s: %s, want %s", id, got, c.want[id])
				}
				if strings.Contains(got.Detail, "measured anyway") {
					t.Errorf("%s: the premise failed on a GD run: %s", id, got.Detail)
				}
				t.Logf("%s: %s", id, got)
			}
		})
	}
}

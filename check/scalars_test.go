package check

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// scalarRun trains the linear model by gradient descent on the summed
// exponential loss with a step that grows with T once separated (η_t =
// T_t/800, which keeps LL's (S5) η‖∇𝓛‖²/𝓛 ≤ 1 as 𝓛 ~ 1/T, and takes log T
// past e³ in 20 000 steps; η = 0.001 before) and keeps what the two-line recipe of
// docs/check.md keeps: log 𝓛, ‖θ‖ and lr at every step, θ at pairs of
// consecutive steps at 20 geometrically spaced times (≤ 42 snapshots).
func scalarRun(t *testing.T, steps int) (*Trajectory, models.Model, *train.Objective) {
	t.Helper()
	data := twoClasses(7, 7, 20, 3, 1, 0.1)
	model, err := models.Parse("linear", data.D)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := train.NewObjective(model, losses.NewBinary(losses.Exponential{}), data)
	if err != nil {
		t.Fatal(err)
	}
	keep := map[int]bool{steps: true}
	for k := range 20 {
		s := max(int(math.Round(math.Pow(float64(steps-1), float64(k)/19)))-1, 0)
		keep[s], keep[s+1] = true, true
	}
	run := &Trajectory{Reduction: "sum", X: data.X, Y: data.Y, N: data.N, D: data.D, Params: paramsOf(model), Scalars: &Scalars{}}
	theta := make([]float64, model.NumParams())
	T := 0.0
	for s := 0; s <= steps; s++ {
		ev, err := obj.Evaluate(theta, true)
		if err != nil {
			t.Fatal(err)
		}
		eta := math.Max(0.001, T/800)
		sc := run.Scalars
		sc.Steps = append(sc.Steps, s)
		sc.LogLoss = append(sc.LogLoss, ev.LogLoss)
		sc.Norm = append(sc.Norm, floats.Norm(theta, 2))
		sc.LR = append(sc.LR, eta)
		if keep[s] {
			run.Steps = append(run.Steps, s)
			run.LR = append(run.LR, eta)
			run.Theta = append(run.Theta, append([]float64(nil), theta...))
		}
		floats.AddScaled(theta, -eta*math.Exp(ev.LogObjective), ev.Dir)
		T += eta
	}
	return run, model, obj
}

// TestRatesFromScalars: LL-4.3 decides on a run that logs the scalars at
// every step and θ at ≤ 50 snapshots (it needs θ at every step
// otherwise), through the NPZ writer and reader; scalars of another
// reduction (log 𝓛 shifted by log n) are refused as bad input.
func TestRatesFromScalars(t *testing.T) {
	ft, model, obj := scalarRun(t, 20000)
	if len(ft.Theta) > 50 {
		t.Fatalf("%d snapshots", len(ft.Theta))
	}
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, ft); err != nil {
		t.Fatal(err)
	}
	back, err := ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(back, model, obj.Data, Options{Name: "scalars", Loss: "exp", Only: []string{theorems.LL_4_3}})
	if err != nil {
		t.Fatal(err)
	}
	v := verdictOf(t, rep, theorems.LL_4_3)
	t.Logf("LL-4.3: %s", v)
	if v.Status != theorems.Holds {
		t.Errorf("LL-4.3 %s, want holds", v)
	}
	wrong := *back
	sc := *back.Scalars
	sc.LogLoss = append([]float64(nil), sc.LogLoss...)
	for i := range sc.LogLoss {
		sc.LogLoss[i] -= math.Log(20)
	}
	wrong.Scalars = &sc
	if _, err := Check(&wrong, model, obj.Data, Options{Name: "wrong", Loss: "exp"}); err == nil {
		t.Error("scalars of the mean declared for the sum: accepted")
	}
}

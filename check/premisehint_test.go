package check

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestPremiseHintNamesTheMistake: gradient descent whose lr is halved at
// step 300 while the file records it constant (StepLR), and gradient
// descent with twice the lr on the second layer (parameter groups): the
// premise is violated and its hint names the schedule and the per-layer
// rates, not Adam.
func TestPremiseHintNamesTheMistake(t *testing.T) {
	data := twoClasses(9, 9, 8, 3, 0.5, 0.1)
	model, obj := logisticRun(t, "mlp:relu:2x5", data)
	split := 3 * 5 // the first layer's weight (5 × 3)
	run := func(lr func(step, i int) float64) *Trajectory {
		theta := make([]float64, model.NumParams())
		model.Init(rand.New(rand.NewPCG(4, 0)), theta)
		tr := &Trajectory{Reduction: "sum", X: data.X, Y: data.Y, N: data.N, D: data.D, Params: paramsOf(model)}
		for s := 0; s <= 600; s++ {
			if s%100 <= 1 || s == 600 {
				tr.Steps = append(tr.Steps, s)
				tr.LR = append(tr.LR, 0.05)
				tr.Theta = append(tr.Theta, append([]float64(nil), theta...))
			}
			ev, err := obj.Evaluate(theta, true)
			if err != nil {
				t.Fatal(err)
			}
			for i := range theta {
				theta[i] -= lr(s, i) * math.Exp(ev.LogObjective) * ev.Dir[i]
			}
		}
		return tr
	}
	cases := []struct {
		name string
		lr   func(step, i int) float64
		want string
	}{
		{"StepLR", func(s, _ int) float64 { return 0.05 * math.Pow(0.5, float64(s/300)) }, "c changing along the run"},
		{"parameter groups", func(_, i int) float64 {
			if i < split {
				return 0.05
			}
			return 0.1
		}, "per-layer learning rates"},
	}
	for _, c := range cases {
		rep, err := Check(run(c.lr), model, data, Options{Name: c.name, Only: []string{theorems.LL_B3}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Premise.Status != theorems.Violated || !strings.Contains(rep.Premise.Detail, c.want) {
			t.Errorf("%s: premise %s, want violated saying %q", c.name, rep.Premise, c.want)
		}
	}
}

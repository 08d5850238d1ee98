package check

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestPremiseFromSparseRecords: an engine run recorded every 50 steps (no
// two records consecutive) gets the gradient-descent premise decided by
// replaying each gap (gapreplay.go), and LL-4.1 decided with it; the
// negative controls — heavy-ball momentum, and the same gradient-descent run
// declaring an lr 0.1% off — are violated. Where the bound comes from and
// its false-alarm rate: gapreplay.go (a rounding bound times the measured
// amplification; the correct run lands within a few percent of it).
func TestPremiseFromSparseRecords(t *testing.T) {
	data := twoClasses(5, 5, 10, 3, 0.5, 0.1)
	model, obj := logisticRun(t, "mlp:relu:2x6", data)
	run := func(opt string) *Trajectory {
		theta := make([]float64, model.NumParams())
		model.Init(rand.New(rand.NewPCG(2, 0)), theta)
		tr, err := train.Run(obj, optimizer(t, opt, 0.05), theta, train.Config{Steps: 1500, KeepTheta: true})
		if err != nil {
			t.Fatal(err)
		}
		ft, err := FromTrain(tr, model, data)
		if err != nil {
			t.Fatal(err)
		}
		sparse := *ft
		sparse.Steps, sparse.LR, sparse.Theta = nil, nil, nil
		for i, s := range ft.Steps {
			if s%50 == 0 {
				sparse.Steps = append(sparse.Steps, s)
				sparse.LR = append(sparse.LR, ft.LR[i])
				sparse.Theta = append(sparse.Theta, ft.Theta[i])
			}
		}
		return &sparse
	}
	check := func(ft *Trajectory) *Report {
		rep, err := Check(ft, model, data, Options{Name: "run", Only: []string{theorems.LL_4_1}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	gd := run("gd")
	rep := check(gd)
	if rep.Premise.Status != theorems.Holds || !strings.Contains(rep.Premise.Detail, "gaps") {
		t.Fatalf("gradient descent recorded every 50 steps: premise %s", rep.Premise)
	}
	t.Logf("gd: %s", rep.Premise)
	if s := statuses(rep)[theorems.LL_4_1]; s != theorems.Holds {
		t.Fatalf("LL-4.1 %s, want holds", s)
	}
	wrongLR := *gd
	wrongLR.LR = append([]float64(nil), gd.LR...)
	for i := range wrongLR.LR {
		wrongLR.LR[i] *= 1.001
	}
	for name, ft := range map[string]*Trajectory{"momentum": run("momentum"), "lr 0.1% off": &wrongLR} {
		rep := check(ft)
		if rep.Premise.Status != theorems.Violated {
			t.Errorf("%s: premise %s, want violated", name, rep.Premise)
		}
		t.Logf("%s: %.3g", name, rep.Premise.Statistic)
	}
}

package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// checkFile reads a committed run and checks it as the CLI does (model and
// data from the file).
func checkFile(t *testing.T, file, loss string) *Report {
	t.Helper()
	tr, err := ReadFile(filepath.Join("testdata", "pytorch", file))
	if err != nil {
		t.Fatal(err)
	}
	return checkRun(t, tr, file, loss)
}

// checkRun checks a run with the model and data it carries.
func checkRun(t *testing.T, tr *Trajectory, name, lossName string) *Report {
	t.Helper()
	model, data := mappedRun(t, tr, lossName)
	rep, err := Check(tr, model, data, Options{Name: name, Loss: lossName})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// mappedRun returns the model a run maps to and the data it carries.
func mappedRun(t *testing.T, tr *Trajectory, lossName string) (models.Model, *dataset.Dataset) {
	t.Helper()
	m, err := MapModel(tr)
	if err != nil {
		t.Fatal(err)
	}
	model, err := models.Parse(m.Spec, m.In)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := LossFor(lossName, model.Out())
	if err != nil {
		t.Fatal(err)
	}
	data, err := Data(tr, loss)
	if err != nil {
		t.Fatal(err)
	}
	return model, data
}

func statuses(rep *Report) map[string]theorems.Status {
	out := map[string]theorems.Status{}
	for _, r := range rep.Results {
		out[r.ID] = r.Status()
	}
	return out
}

const (
	holds      = theorems.Holds
	undecided  = theorems.Inconclusive
	assumption = theorems.AssumptionFailed
)

// TestPyTorchDigitsRuns checks the runs examples/pytorch/train_digits.py
// wrote once with PyTorch (a bias-free 2-layer ReLU net, width 8, on 100
// images of digits 0 and 1, logistic loss, 20000 steps, float64; pairs of
// consecutive records at geometrically spaced steps), without Python:
//
//   - gradient descent: the identities, γ̃'s monotonicity and the KKT
//     residuals' Cor C.10 bounds hold; LL-4.2 is outside its hypotheses
//     (exponential loss, C² nets) and LL-4.3 needs every step recorded;
//   - Adam and weight decay: every recorded step is checked against −η∇𝓛
//     and is not it, so the gradient-descent claims are assumption-failed
//     (with the measured statistic), while the pointwise identities, which
//     hold at any θ, still hold;
//   - biases: the homogeneity claims are assumption-failed;
//   - a C² net (ReLU³) with the exponential loss by gradient descent: LL-4.2,
//     γ̂ of LL App. E.2 non-decreasing, holds too.
func TestPyTorchDigitsRuns(t *testing.T) {
	cases := []struct {
		file, loss string
		premise    theorems.Status
		want       map[string]theorems.Status
		detail     map[string]string
	}{
		{"digits_gd.npz", "", holds, map[string]theorems.Status{
			"LL-B3": holds, "LL-B3m": holds, "LL-C7": holds, "LL-5.1": holds, "LL-C8": holds,
			"LL-B4": holds, "LL-A5": holds, "LL-4.1": holds, "LL-4.2": assumption,
			"LL-4.3": undecided, "LL-4.4": holds, "LL-A9": holds, "LL-C10": holds, "LL-4.5": assumption,
		}, map[string]string{"LL-4.2": "(A3)", "LL-4.5": "(S1)"}},
		{"digits_adam.npz", "", theorems.Violated, map[string]theorems.Status{
			"LL-B3": holds, "LL-B4": holds, "LL-A5": holds, "LL-4.1": assumption, "LL-4.2": assumption,
			"LL-4.3": undecided, "LL-4.4": assumption, "LL-A9": assumption, "LL-C10": assumption, "LL-4.5": assumption,
		}, map[string]string{"LL-4.1": "not full-batch gradient descent", "LL-4.4": "measured anyway", "LL-C10": "measured anyway: violated"}},
		{"digits_wd.npz", "", theorems.Violated, map[string]theorems.Status{
			"LL-B3": holds, "LL-B4": holds, "LL-A5": holds, "LL-4.1": assumption, "LL-4.2": assumption,
			"LL-4.3": undecided, "LL-4.4": assumption, "LL-A9": assumption, "LL-C10": assumption, "LL-4.5": assumption,
		}, map[string]string{"LL-4.1": "weight decay, λ ≈ 0.1 on the summed loss", "LL-C10": "weight decay"}},
		{"digits_bias.npz", "", holds, map[string]theorems.Status{
			"LL-B3m": assumption, "LL-C7": assumption, "LL-5.1": assumption, "LL-C8": assumption,
			"LL-B3": assumption, "LL-B4": assumption, "LL-A5": assumption, "LL-4.1": assumption, "LL-4.2": assumption,
			"LL-4.3": undecided, "LL-4.4": assumption, "LL-A9": assumption, "LL-C10": assumption, "LL-4.5": assumption,
		}, map[string]string{"LL-B3": "measured with the bias-free network's L = 2: violated", "LL-B3m": "bias-free network's block degrees [1 1]: violated", "LL-C10": "(A2)"}},
		{"digits_relu3_exp.npz", "exp", holds, map[string]theorems.Status{
			"LL-B3": holds, "LL-B4": holds, "LL-A5": holds, "LL-4.1": holds, "LL-4.2": holds, "LL-4.3": undecided,
			"LL-B3m": holds, "LL-C10": holds, "LL-4.5": undecided,
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			if testing.Short() && c.file == "digits_gd.npz" {
				t.Skip("the 56-record run takes seconds")
			}
			rep := checkFile(t, c.file, c.loss)
			if !(rep.OutputsDiff <= 1e-15) {
				t.Errorf("outputs agree with PyTorch's to %.3g, want rounding level", rep.OutputsDiff)
			}
			if rep.Premise.Status != c.premise {
				t.Errorf("premise %s, want %s", rep.Premise, c.premise)
			}
			got := statuses(rep)
			for id, want := range c.want {
				if got[id] != want {
					for _, r := range rep.Results {
						if r.ID == id {
							t.Errorf("%s: %s, want %s: %s", id, got[id], want, r.Claims.Worst.Detail)
						}
					}
				}
			}
			for _, r := range rep.Results {
				if d, ok := c.detail[r.ID]; ok && !strings.Contains(r.Claims.Worst.Detail, d) {
					t.Errorf("%s detail %q lacks %q", r.ID, r.Claims.Worst.Detail, d)
				}
			}
		})
	}
}

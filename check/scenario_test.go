package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestScenarioRuns pins the verdicts of the user scenarios written by
// examples/pytorch/user_runs.py (check/testdata/scenarios; docs/check.md,
// "Weighted runs" and "Mistakes check catches"). The statuses are compared,
// not the bits: PyTorch rounds differently on another CPU, and a status
// moves only when a statistic crosses its derived bound (the premise holds
// at ≤ 0.08 of its rounding bound on these files; the mistakes miss it by
// 10⁷ or more). Weighted BCE (raw weights, mean 1, sum 1) raises no false
// alarm: LL-A5, LL-5.1 and LL-4.1 hold in their weighted form, the KKT
// claims are assumption-failed with the reason, and constant weights are
// the unweighted run (ZD-T7 decided, the KKT claims run).
func TestScenarioRuns(t *testing.T) {
	const (
		H = theorems.Holds
		V = theorems.Violated
		A = theorems.AssumptionFailed
	)
	weighted := map[string]theorems.Status{theorems.LL_A5: H, theorems.LL_5_1: H, theorems.LL_4_1: H, theorems.LL_C7: A, theorems.LL_4_4: A, theorems.ZD_T7: H, theorems.LL_lin: H}
	mistake := map[string]theorems.Status{theorems.LL_B3: H, theorems.LL_4_1: A}
	cases := []struct {
		file    string
		premise theorems.Status
		want    map[string]theorems.Status
		hint    string // in the premise's detail: the mistake named
	}{
		{"weighted_raw.npz", H, weighted, ""},
		{"weighted_mean1.npz", H, weighted, ""},
		{"weighted_sum1.npz", H, weighted, ""},
		{"weighted_const.npz", H, map[string]theorems.Status{theorems.LL_A5: H, theorems.LL_C7: H, theorems.LL_C8: H, theorems.LL_A9: H, theorems.ZD_T7: H}, ""},
		{"erm_linear.npz", H, map[string]theorems.Status{theorems.LL_A5: H, theorems.LL_A9: H, theorems.ZD_T7: H, theorems.LL_lin: H}, ""},
		{"nozerograd.npz", V, mistake, "missing optimizer.zero_grad()"},
		{"meanassum.npz", V, mistake, "c ≈ 0.01: another step size or reduction"},
		{"minibatch.npz", V, mistake, "mini-batches"},
		{"float32late.npz", V, mistake, "trained in float32"},
		{"sparse500.npz", H, map[string]theorems.Status{theorems.LL_B3: H, theorems.LL_4_1: H}, "gaps"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tr, err := ReadFile(filepath.Join("testdata", "scenarios", c.file))
			if err != nil {
				t.Fatal(err)
			}
			model, data := mappedRun(t, tr, "")
			var only []string
			for id := range c.want {
				only = append(only, id)
			}
			rep, err := Check(tr, model, data, Options{Name: c.file, Only: only})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Premise.Status != c.premise {
				t.Errorf("premise %s, want %s", rep.Premise, c.premise)
			}
			if !strings.Contains(rep.Premise.Detail, c.hint) {
				t.Errorf("premise %s: does not say %q", rep.Premise, c.hint)
			}
			got := statuses(rep)
			for id, s := range c.want {
				if got[id] != s {
					t.Errorf("%s %s, want %s", id, got[id], s)
				}
			}
			for _, r := range rep.Results {
				if r.Status() == theorems.Violated {
					t.Errorf("%s violated: %s", r.ID, r.Claims.Worst.Detail)
				}
			}
		})
	}
}

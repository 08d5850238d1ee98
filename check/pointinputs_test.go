package check

import (
	"math"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
)

// TestPointInputBlocks: under the budget LL-B3 checks every input at every
// record; over it each record checks a block of ⌈N/R⌉ inputs, the blocks
// together cover every input, and each block still catches the planted
// fault (a wrong declared L: 3 for a 2-layer ReLU net, L = 2) while the
// correct L holds.
func TestPointInputBlocks(t *testing.T) {
	data := twoClasses(7, 7, 23, 3, 0.5, 0.1)
	model, obj := logisticRun(t, "mlp:relu:2x4", data)
	ft, err := FromTrain(gdTrajectory(t, model, obj, 3, 0.05, 6), model, data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRecorded(ft, obj, Options{Name: "blocks"})
	if err != nil {
		t.Fatal(err)
	}
	R := len(ft.Theta)
	for _, tc := range []struct {
		name   string
		budget float64
		block  int
	}{
		{"under the budget", math.Inf(1), data.N},
		{"over the budget", 1, (data.N + R - 1) / R},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := make([]int, data.N)
			for i := range R {
				c := r.pointCase(i, tc.budget)
				if c.N > tc.block || c.N < 1 {
					t.Fatalf("record %d checks %d inputs, want at most %d", i, c.N, tc.block)
				}
				for n := c.First; n < c.First+c.N; n++ {
					seen[n]++
				}
				if v := homogeneity.EulerIdentity(c); v.Status != theorems.Holds {
					t.Errorf("record %d, inputs %d…: %s, want holds", i, c.First, v)
				}
				c.Degree = 3
				if v := homogeneity.EulerIdentity(c); v.Status != theorems.Violated {
					t.Errorf("record %d, L declared 3: %s, want violated", i, v)
				}
			}
			for n, k := range seen {
				if k == 0 {
					t.Errorf("input %d never checked", n)
				}
			}
		})
	}
}

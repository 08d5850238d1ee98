package classification

import (
	"testing"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/properties/proptest"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// TestWeakRegLooseMinimizer: a minimizer that stops at ‖∇ log L_λ‖∞ ≤ 1e-2
// instead of 1e-10 (train.MinimizeSettings.GradTol) hands XY-C1 and XY-P3
// points that are not optima: its norms still grow along the ladder and its
// margins stay inside their bound (1 of 10 cases was caught by those), so
// only the stationarity recomputed from the data (grwclass.StationarityTol)
// refutes it — on every case.
func TestWeakRegLooseMinimizer(t *testing.T) {
	for _, x := range proptest.DrawCases(t, gopter.Gen(GenWeakReg()), 10) {
		c := x.(WeakRegCase)
		data := c.Class.Data()
		obj, _, err := c.regObjective(data)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, data.D)
		var ladder []grwclass.RegOptimum
		for _, lam := range weakLadder {
			obj.Reg = train.NormPower{Lambda: lam, R: c.r()}
			if _, err := train.Minimize(obj, theta, &train.MinimizeSettings{GradTol: 1e-2}); err != nil {
				t.Fatalf("%v, λ = %g: %v", c, lam, err)
			}
			ladder = append(ladder, grwclass.RegOptimum{Lambda: lam, Theta: append([]float64(nil), theta...)})
		}
		m, _ := losses.MarginOf(mustLoss(c.Class.LossOf()))
		for name, v := range map[string]theorems.Verdict{
			"XY-C1": grwclass.WeakRegNorms(data, c.Class.ImportanceWeights(), m, c.r(), ladder),
			"XY-P3": grwclass.WeakRegMargins(data, c.Class.ImportanceWeights(), m, c.r(), ladder, nil),
		} {
			if v.Status != theorems.Violated {
				t.Errorf("%s, %v: %v, want violated", name, c, v)
			}
		}
	}
}

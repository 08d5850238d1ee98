package limits

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/train"
)

// TestCheckGDMap: records of exact GD steps (exp loss, fixed weights q) at
// steps 0, 1, 3, 7, 100 lie within GD's map's rounding bound over the
// segments of ≤ gdMapSteps steps (0→1, 1→3, 3→7; 7→100 is the flow's),
// and not with issue 18's preconditioner, with the weights ignored, or —
// when the weights move — beyond one step.
func TestCheckGDMap(t *testing.T) {
	z := threeIndependentRows()
	q := []float64{0.5, 0.2, 0.3}
	const eta = 0.7
	precond := func(th, v []float64) { th[0] += 3 * eta * v[0] }
	ignored := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	run := func(steps []int, applied []float64, fault func([]float64, []float64)) *train.Trajectory {
		tr := &train.Trajectory{}
		th := []float64{0.1, -0.2, 0.05, 0}
		prev := 0
		for _, s := range steps {
			th = linearGDSteps(z, applied, th, eta, s-prev, fault)
			prev = s
			logT := math.Inf(-1)
			if s > 0 {
				logT = math.Log(eta * float64(s))
			}
			tr.Records = append(tr.Records, train.Record{Step: s, LogT: logT, LogEta: math.Log(eta), Theta: th, Weights: q})
		}
		return tr
	}
	steps := []int{0, 1, 3, 7, 100}
	for _, c := range []struct {
		name    string
		applied []float64
		fault   func([]float64, []float64)
		fixed   bool
		checked int
		ok      bool
	}{
		{"GD, fixed weights", q, nil, true, 3, true},
		{"GD, weights that move: single steps only", q, nil, false, 1, true},
		{"preconditioner", q, precond, true, 3, false},
		{"weights ignored", ignored, nil, true, 3, false},
	} {
		m := checkGDMap(z, tailOf(lossNamed("exp")), eta, nil, c.fixed, run(steps, c.applied, c.fault))
		assert.Equal(t, c.checked, m.steps, c.name)
		assert.Equal(t, c.ok, m.worst <= 1, "%s: worst %.3g at step %d", c.name, m.worst, m.at)
		if c.ok {
			assert.Less(t, m.worst, 0.5, c.name)
		} else {
			assert.Greater(t, m.worst, 1e6, c.name)
		}
	}
}

package regression

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/theorems"
)

// On tinyCase λ_max = 1, n = 2 and ‖θ₀ − θ*‖ = √5 is the most the computed
// rate allows at any step (q = (½, ½), η = 1: c_t = ½), so a recorded risk
// R̂ is out of reach when √(4R̂) > √5, R̂ > 5/4 = R̂(θ₀).
func TestRiskPathDecisions(t *testing.T) {
	const T = 10
	c, _, rate, good := halvingRun(T)
	var risks []float64
	for _, th := range good {
		risks = append(risks, c.Risk(th))
	}
	with := func(j int, r float64) []float64 {
		out := append([]float64(nil), risks...)
		out[j] = r
		return out
	}
	for _, tc := range []struct {
		name  string
		risks []float64
		want  theorems.Status
	}{
		// GD on the weights: within the rate, the end decides nothing.
		{"correct run", risks, theorems.Inconclusive},
		// R̂ = R̂(θ₀) again at step 3: ‖e_3‖ may be √5 by the risk alone,
		// the bound at step 0, so the test (looser than the bound at step
		// 3) stays silent.
		{"back at the start", with(3, risks[0]), theorems.Inconclusive},
		// A jump 1% (in ‖e‖) above what any step allows.
		{"jump above the rate", with(3, 1.25*1.01*1.01), theorems.Violated},
		{"sawtooth peak", with(2, 1e3), theorems.Violated},
		{"NaN on the way", with(4, math.NaN()), theorems.Violated},
	} {
		v := RiskVanishes(tc.risks, &GRWRun{Case: c, Theta: good[T], Rate: rate})
		assert.Equal(t, tc.want, v.Status, "%s: %v", tc.name, v)
		if tc.want == theorems.Violated {
			assert.Contains(t, v.Detail, "√(2n·R̂_t/λ_max)", tc.name)
		}
	}
}

package ntk

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestProbes: one job decides a sweep only when its per-run tests find it
// violated with its own hypotheses holding; a holding job, a job whose
// hypothesis fails, or a fault that only the fits across widths could see
// let the sweep go on (ok = false).
func TestProbes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	offPath := LinPath{Err: 0.02, Effect: 0.03}
	// One job of each synthetic sweep: the narrowest width, first seed
	// (the μ grid of ZD-T6: its first two runs).
	gap := func(edit func(*GapRun)) func() (theorems.Verdict, bool) {
		run := syntheticGaps(r, -0.5, 0.2)[0]
		edit(&run)
		return func() (theorems.Verdict, bool) { return ProbeApproximation([]GapRun{run}) }
	}
	reg := func(eps float64, edit func(*RegRun)) func() (theorems.Verdict, bool) {
		runs := syntheticReg(r, -0.6)[:2]
		edit(&runs[1])
		return func() (theorems.Verdict, bool) { return ProbeRegularized(runs, eps) }
	}
	sign := func(edit func(*SignRun)) func() (theorems.Verdict, bool) {
		run := syntheticSign(r, -0.5)[0]
		edit(&run)
		return func() (theorems.Verdict, bool) { return ProbeSign([]SignRun{run}) }
	}
	cases := []struct {
		name    string
		probe   func() (theorems.Verdict, bool)
		decides bool
		detail  string
	}{
		{"ZD-T4/L5 holding job", gap(func(*GapRun) {}), false, ""},
		{"ZD-T4/L5 off its path", gap(func(g *GapRun) { g.LinPath = offPath }), true, "eq. (11)"},
		{"ZD-T4/L5 off its path, Gaussian last layer", gap(func(g *GapRun) { g.LinPath, g.LastLayerNorm = offPath, 1 }), false, ""},
		{"ZD-T4/L5 far from f* (Cor. 15 comes after the fits)", gap(func(g *GapRun) { g.LinLimitGap = 1 }), false, ""},
		{"ZD-T4/L5 a NaN gap", gap(func(g *GapRun) { g.LinPath, g.GRWGap = offPath, math.NaN() }), false, ""},
		{"ZD-T6 holding job", reg(0.01, func(*RegRun) {}), false, ""},
		{"ZD-T6 off its path", reg(0.01, func(g *RegRun) { g.LinPath = offPath }), true, "eq. (11)"},
		{"ZD-T6 Lemma 18", reg(0.01, func(g *RegRun) { g.LinRegGap = 1 }), true, "Lemma 18"},
		{"ZD-T6 Lemma 18, risk above ε", reg(1e-5, func(g *RegRun) { g.LinRegGap = 1 }), false, ""},
		{"ZD-T9 holding job", sign(func(*SignRun) {}), false, ""},
		{"ZD-T9 off its path", sign(func(g *SignRun) { g.LinPath = offPath }), true, "eq. (11)"},
		{"ZD-T9 off its path, risk above 1/4", sign(func(g *SignRun) { g.LinPath, g.Risk = offPath, 0.3 }), false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := c.probe()
			assert.Equal(t, c.decides, ok, "%v", v)
			if c.decides {
				assert.Equal(t, theorems.Violated, v.Status)
				assert.Contains(t, v.Detail, c.detail)
			}
		})
	}
}

package ntk

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestProbes: one job decides a sweep when its per-run tests find it
// violated with its own hypotheses holding, or when a hypothesis that the
// check reads before any violation fails (a NaN measurement: invalid, as
// the whole sweep is); a holding job, ZD-T6's (14) (read after every path
// test), or what only the fits across widths could see let the sweep go on
// (ok = false).
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
	const V, A, none = theorems.Violated, theorems.AssumptionFailed, theorems.Status(-1)
	cases := []struct {
		name   string
		probe  func() (theorems.Verdict, bool)
		status theorems.Status // none: the sweep goes on
		detail string
	}{
		{"ZD-T4/L5 holding job", gap(func(*GapRun) {}), none, ""},
		{"ZD-T4/L5 off its path", gap(func(g *GapRun) { g.LinPath = offPath }), V, "eq. (11)"},
		{"ZD-T4/L5 off its path, Gaussian last layer", gap(func(g *GapRun) { g.LinPath, g.LastLayerNorm = offPath, 1 }), A, "W^L(0) = 0 fails"},
		{"ZD-T4/L5 singular Gram matrix", gap(func(g *GapRun) { g.GramMin = 0 }), A, "λ_min"},
		{"ZD-T4/L5 far from f* (Cor. 15 comes after the fits)", gap(func(g *GapRun) { g.LinLimitGap = 1 }), none, ""},
		{"ZD-T4/L5 a NaN gap: invalid, as the sweep would be", gap(func(g *GapRun) { g.LinPath, g.GRWGap = offPath, math.NaN() }), A, "a measurement is NaN"},
		{"ZD-T6 holding job", reg(0.01, func(*RegRun) {}), none, ""},
		{"ZD-T6 off its path", reg(0.01, func(g *RegRun) { g.LinPath = offPath }), V, "eq. (11)"},
		{"ZD-T6 off its path, risk above ε", reg(1e-5, func(g *RegRun) { g.LinPath = offPath }), V, "eq. (11)"},
		{"ZD-T6 risk above ε: (14) comes after every job's path", reg(1e-5, func(*RegRun) {}), none, ""},
		{"ZD-T6 Lemma 18", reg(0.01, func(g *RegRun) { g.LinRegGap = 1 }), V, "Lemma 18"},
		{"ZD-T6 Lemma 18, risk above ε", reg(1e-5, func(g *RegRun) { g.LinRegGap = 1 }), none, ""},
		{"ZD-T9 holding job", sign(func(*SignRun) {}), none, ""},
		{"ZD-T9 off its path", sign(func(g *SignRun) { g.LinPath = offPath }), V, "eq. (11)"},
		{"ZD-T9 risk above 1/4", sign(func(g *SignRun) { g.Risk = 0.3 }), A, "ε < 1/4 fails"},
		{"ZD-T9 off its path, risk above 1/4", sign(func(g *SignRun) { g.LinPath, g.Risk = offPath, 0.3 }), A, "ε < 1/4 fails"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := c.probe()
			assert.Equal(t, c.status != none, ok, "%v", v)
			if c.status != none {
				assert.Equal(t, c.status, v.Status)
				assert.Contains(t, v.Detail, c.detail)
			}
		})
	}
}

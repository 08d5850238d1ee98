package properties

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/theorems"
)

// Section F: wide networks in the NTK regime. Every case is a whole width
// sweep (a few seconds at the quick budget: one hidden layer, widths 32 …
// 512, three seeds); IMPLICITBIAS_BUDGET=long runs the sweeps of
// docs/ntk.md.

func TestZD_L3_NTKConcentration(t *testing.T) { claims(t, "ZD-L3", 1) }

// With the first hidden layer fixed at 4 units the kernel stays random:
// its variance does not fall with the second layer's width. The first
// decided of up to three cases must be violated: the bottleneck's variance
// is heavy-tailed over seeds, and the jackknife's interval can exceed the
// resolution (soak seed 1795354210101905: −0.434 ± 1.23, undecided), as
// the harness allows.
func TestZD_L3_NTKConcentration_NegativeControl(t *testing.T) {
	controls(t, "ZD-L3", 1)
	p := entry(t, "ZD-L3").Controls[0]
	decided := false
	for _, c := range Sample(p.Gen, testSeed(t), 3) {
		v := p.Check(c)
		if v.Status == theorems.Inconclusive {
			t.Logf("inconclusive, next case: %v: %v", c, v)
			continue
		}
		require.Equal(t, theorems.Violated, v.Status, "%v: %v", c, v)
		decided = true
		break
	}
	assert.True(t, decided, "three control cases undecided")
}

func TestZD_T4_L5_WidthScaling(t *testing.T) { claims(t, "ZD-T4/L5", 1) }

// A GRW weight of 0 breaks Assumption 1: the GRW limit then stays O(1)
// away from ERM's at every width, and the slope test must see it
// (violated). The engine faults are measured by TestFaultPower.
func TestZD_T4_L5_WidthScaling_NegativeControl(t *testing.T) {
	controls(t, "ZD-T4/L5", 1)
	e := entry(t, "ZD-T4/L5")
	// The first decided case must be violated. A 3-seed slope fit can be
	// inconclusive (its interval too wide: soak seed 1795337506210173,
	// upper bounds −0.949 and 0.279); like the harness, draw another case
	// then, up to DiscardAllowance's three.
	decided := false
	for _, c := range Sample(e.Controls[0].Gen, testSeed(t), 3) {
		v := e.Controls[0].Check(c)
		if v.Status == theorems.Inconclusive {
			t.Logf("inconclusive, next case: %v: %v", c, v)
			continue
		}
		require.Equal(t, theorems.Violated, v.Status, "%v: %v", c, v)
		decided = true
		break
	}
	require.True(t, decided, "the q_0 = 0 control was inconclusive on 3 cases")
}

// TestNTKSweepDeterministic: a sweep's runs are bit-identical whatever
// GOMAXPROCS (each run is deterministic for its seed, the kernels' sums do
// not depend on the threads, and every job writes only its own result).
func TestNTKSweepDeterministic(t *testing.T) {
	c := GapSweepCase{Act: 1, Data: 11, Init: 5}
	d := makeNTKData(c.Data, ntkN, ntkD, ntkTest, false)
	jobs := []struct {
		w    int
		seed uint64
	}{{32, 5}, {64, 6}, {128, 5}}
	run := func() []theorems.GapRun {
		out := make([]theorems.GapRun, len(jobs))
		runParallel(len(jobs), func(i int) {
			var err error
			out[i], err = c.job(d, faults.Fault{}, jobs[i].w, jobs[i].seed)
			require.NoError(t, err)
		})
		return out
	}
	prev := runtime.GOMAXPROCS(1)
	one := run()
	runtime.GOMAXPROCS(max(prev, 4))
	many := run()
	runtime.GOMAXPROCS(prev)
	assert.Equal(t, one, many)
}

func TestZD_T6_RegularizedWidthGap(t *testing.T) { claims(t, "ZD-T6", 1) }

// A large μ must fail hypothesis (14) — a big training risk — and show a
// big gap to ERM (reported; Lemma 18's bound at the budget ε is loose).
func TestZD_T6_RegularizedWidthGap_NegativeControl(t *testing.T) {
	controls(t, "ZD-T6", 1)
	p := entry(t, "ZD-T6").Controls[0]
	for _, c := range Sample(p.Gen, testSeed(t), 1) {
		v := p.Check(c)
		require.Equal(t, theorems.AssumptionFailed, v.Status, "%v: %v", c, v)
		assert.Contains(t, v.Detail, "training risk below ε fails")
		assert.Greater(t, v.Statistic, 0.1, "%v: the gap to ERM should be O(1): %v", c, v)
	}
}

func TestZD_T9_SignAgreement(t *testing.T) { claims(t, "ZD-T9", 1) }

// μ = 0.1 leaves a training risk near log 2 > 1/4: outside Thm 9.
func TestZD_T9_SignAgreement_NegativeControl(t *testing.T) {
	controls(t, "ZD-T9", 1)
	p := entry(t, "ZD-T9").Controls[0]
	for _, c := range Sample(p.Gen, testSeed(t), 1) {
		v := p.Check(c)
		require.Equal(t, theorems.AssumptionFailed, v.Status, "%v: %v", c, v)
		assert.Contains(t, v.Detail, "ε < 1/4 fails")
	}
}

// TestSweepStoreShards: a sweep computed as two sweep shards through a store
// equals the sweep computed in one piece, bit for bit; a shard alone is
// incomplete.
func TestSweepStoreShards(t *testing.T) {
	defer func() { require.NoError(t, SetSweepStore("", 0, 0)) }()
	c := Sample(GenGapSweep(gapClaim), 7, 1)[0].(GapSweepCase)
	dir := t.TempDir()
	require.NoError(t, SetSweepStore(dir, 0, 2))
	_, err := c.run()
	require.ErrorIs(t, err, ErrSweepIncomplete)
	require.NoError(t, SetSweepStore(dir, 1, 2))
	fromShards, err := c.run()
	require.NoError(t, err)
	require.NoError(t, SetSweepStore(dir, 0, 0))
	fromStore, err := c.run()
	require.NoError(t, err)
	require.NoError(t, SetSweepStore("", 0, 0))
	fresh, err := c.run()
	require.NoError(t, err)
	assert.Equal(t, fresh, fromShards)
	assert.Equal(t, fresh, fromStore)
	assert.Error(t, SetSweepStore("", 0, 2))
	assert.Error(t, SetSweepStore(dir, 2, 2))
}

// TestNTKFigures: the section's figure builders on synthetic sweeps (the
// entries' Figures run the same builders on the cached sweeps).
func TestNTKFigures(t *testing.T) {
	var runs []theorems.GapRun
	x, y := map[string][]float64{}, map[string][]float64{}
	for _, w := range []int{32, 64, 128} {
		for s := 0; s < 2; s++ {
			g := 1 / math.Sqrt(float64(w)) * (1 + 0.1*float64(s))
			runs = append(runs, theorems.GapRun{Width: w, Seed: uint64(s), LinGap: g, GRWGap: g / 10})
			x["a"], y["a"] = append(x["a"], float64(w)), append(y["a"], g)
		}
	}
	f, ok := GapFigure(runs, "synthetic")
	require.True(t, ok)
	require.Len(t, f.Series, 5)
	for _, s := range f.Series {
		require.Len(t, s.Y, len(s.X), s.Name)
		for _, v := range s.Y {
			require.False(t, math.IsNaN(v) || math.IsInf(v, 0), s.Name)
		}
	}
	// The fitted line of sup|f_lin − f| has slope −1/2 in log10 units too.
	fit := f.Series[2]
	assert.InDelta(t, -0.5, (fit.Y[1]-fit.Y[0])/(fit.X[1]-fit.X[0]), 0.05)
	g, ok := scalingFigure("s", "t", "c.", []string{"a"}, x, y)
	require.True(t, ok)
	assert.Len(t, g.Series, 3)
	_, ok = GapFigure(runs[:2], "one width")
	assert.False(t, ok)
}

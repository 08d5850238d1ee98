package ntk

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/proptest"
	"github.com/implicitbias/implicitbias/theorems"
	ntkth "github.com/implicitbias/implicitbias/theorems/ntk"
)

// Section F: wide networks in the NTK regime. Every case is a whole width
// sweep (a few seconds at the quick budget: one hidden layer, widths 32 …
// 512, three seeds); IMPLICITBIAS_BUDGET=long runs the sweeps of
// docs/ntk.md.

func TestZD_L3_NTKConcentration(t *testing.T) { Assert(t, "ZD-L3") }

func TestZD_T4_L5_WidthScaling(t *testing.T) { Assert(t, "ZD-T4/L5") }

// TestNTKSweepDeterministic: a sweep's runs are bit-identical whatever
// GOMAXPROCS (each run is deterministic for its seed, the kernels' sums do
// not depend on the threads, and every job writes only its own result).
func TestNTKSweepDeterministic(t *testing.T) {
	c := GapSweepCase{Act: ActGELU, Data: 11, Init: 5}
	d := makeNTKData(c.Data, NTKN, NTKD, ntkTest, false)
	jobs := []struct {
		w    int
		seed uint64
	}{{32, 5}, {64, 6}, {128, 5}}
	run := func() []ntkth.GapRun {
		out := make([]ntkth.GapRun, len(jobs))
		properties.RunParallel(len(jobs), func(i int) {
			var err error
			out[i], err = c.job(properties.NewRunner(1, properties.Quick), d, faults.Fault{}, jobs[i].w, jobs[i].seed)
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

func TestZD_T6_RegularizedWidthGap(t *testing.T) { Assert(t, "ZD-T6") }

// A large μ must fail hypothesis (14) — a big training risk — and show a
// big gap to ERM (reported; Lemma 18's bound at the budget ε is loose).
func TestZD_T6_RegularizedWidthGap_NegativeControl(t *testing.T) {
	p := entry(t, "ZD-T6").Controls[0]
	// The case Assert's control draws (seed + 1000): its sweep is cached.
	for _, c := range properties.SampleAny(p.Generator(proptest.Runner(t)), proptest.Seed(t)+1000, 1) {
		v := p.Verdict(proptest.Runner(t), c)
		require.Equal(t, theorems.AssumptionFailed, v.Status, "%v: %v", c, v)
		assert.Contains(t, v.Detail, "training risk below ε fails")
		assert.Greater(t, v.Statistic, 0.1, "%v: the gap to ERM should be O(1): %v", c, v)
	}
}

func TestZD_T9_SignAgreement(t *testing.T) { Assert(t, "ZD-T9") }

// μ = 0.1 leaves a training risk near log 2 > 1/4: outside Thm 9.
func TestZD_T9_SignAgreement_NegativeControl(t *testing.T) {
	p := entry(t, "ZD-T9").Controls[0]
	// The case Assert's control draws (seed + 1000): its sweep is cached.
	for _, c := range properties.SampleAny(p.Generator(proptest.Runner(t)), proptest.Seed(t)+1000, 1) {
		v := p.Verdict(proptest.Runner(t), c)
		require.Equal(t, theorems.AssumptionFailed, v.Status, "%v: %v", c, v)
		assert.Contains(t, v.Detail, "ε < 1/4 fails")
	}
}

// TestSweepStoreShards: a sweep computed as two sweep shards through a store
// equals the sweep computed in one piece, bit for bit; a shard alone is
// incomplete. The plumbing is the budget's sweeps' (GapSweepCase.sweep,
// properties.SweepJobs), on a sweep of two widths and two seeds (four jobs,
// two a shard) instead of the quick budget's fifteen, which trained two
// whole sweeps for this test.
func TestSweepStoreShards(t *testing.T) {
	c := properties.Sample(GenGapSweep(GapClaim), 7, 1)[0]
	small := sweepSize{widths: []int{32, 64}, seeds: 2}
	dir := t.TempDir()
	// A runner with the store at dir as shard i of n.
	sharded := func(i, n int) *properties.Runner {
		r := properties.NewRunner(1, properties.Quick)
		s, err := properties.NewSweepStore(dir, i, n)
		require.NoError(t, err)
		r.Store = s
		return r
	}
	_, err := c.sweep(sharded(0, 2), small)
	require.ErrorIs(t, err, properties.ErrSweepIncomplete)
	fromShards, err := c.sweep(sharded(1, 2), small)
	require.NoError(t, err)
	fromStore, err := c.sweep(sharded(0, 0), small)
	require.NoError(t, err)
	fresh, err := c.sweep(properties.NewRunner(1, properties.Quick), small)
	require.NoError(t, err)
	require.Len(t, fresh, 4)
	assert.Equal(t, fresh, fromShards)
	assert.Equal(t, fresh, fromStore)
	_, err = properties.NewSweepStore("", 0, 2)
	assert.Error(t, err)
	_, err = properties.NewSweepStore(dir, 2, 2)
	assert.Error(t, err)
	none, err := properties.NewSweepStore("", 0, 0)
	assert.NoError(t, err)
	assert.Nil(t, none)
}

// TestNTKFigures: the section's figure builders on synthetic sweeps (the
// entries' Figures run the same builders on the cached sweeps).
func TestNTKFigures(t *testing.T) {
	var runs []ntkth.GapRun
	x, y := map[string][]float64{}, map[string][]float64{}
	for _, w := range []int{32, 64, 128} {
		for s := 0; s < 2; s++ {
			g := 1 / math.Sqrt(float64(w)) * (1 + 0.1*float64(s))
			runs = append(runs, ntkth.GapRun{Width: w, Seed: uint64(s), LinGap: g, GRWGap: g / 10})
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

package theorems

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompare(t *testing.T) {
	assert.Equal(t, Holds, Compare(1e-12, 1e-10, "").Status)
	assert.Equal(t, Holds, Compare(1e-10, 1e-10, "").Status)
	assert.Equal(t, Violated, Compare(2e-10, 1e-10, "").Status)
	// A statistic that could not be computed has not shown the claim.
	assert.Equal(t, Violated, Compare(math.NaN(), 1e-10, "").Status)
}

func TestWorse(t *testing.T) {
	h1 := Verdict{Status: Holds, Statistic: 1e-14, Bound: 1e-10}
	h2 := Verdict{Status: Holds, Statistic: 1e-12, Bound: 1e-10}
	v := Verdict{Status: Violated, Statistic: 1, Bound: 1e-10}
	in := Undecided("x")
	assert.True(t, Worse(h2, h1))
	assert.True(t, Worse(in, h2))
	assert.True(t, Worse(v, in))
	assert.Equal(t, v, Worst(h1, v, h2, in))
	assert.Equal(t, Inconclusive, Worst().Status)
}

// TestWorseNegativeBound: for a bound below 0 the case closest to the bound
// is the worst (the ratio to the bound would rank the best case worst).
func TestWorseNegativeBound(t *testing.T) {
	far := Verdict{Status: Holds, Statistic: -6000, Bound: -2000}
	near := Verdict{Status: Holds, Statistic: -2100, Bound: -2000}
	assert.True(t, Worse(near, far))
	assert.Equal(t, near, Worst(far, near))
	assert.InDelta(t, -2, Closeness(far), 1e-15)
	assert.InDelta(t, -0.05, Closeness(near), 1e-15)
	assert.Equal(t, 0.0, Closeness(Verdict{Statistic: 3, Bound: 3}))
}

func TestSummaryStatus(t *testing.T) {
	hold := Verdict{Status: Holds}
	for _, tc := range []struct {
		name                       string
		holds, undecided, violated int
		assumption                 int
		gaveUp                     bool // the runner met more undecided cases than allowed
		want                       Status
	}{
		{"all hold", 100, 0, 0, 0, false, Holds},
		{"undecided within the allowance", 89, 11, 0, 0, false, Holds},
		{"gave up", 89, 11, 0, 0, true, Inconclusive},
		{"one violated", 99, 0, 1, 0, false, Violated},
		{"violated beats gave up", 9, 4, 1, 0, true, Violated},
		{"outside hypotheses ignored", 50, 0, 0, 50, false, Holds},
		{"all outside", 0, 0, 0, 10, false, AssumptionFailed},
		{"nothing", 0, 0, 0, 0, false, Inconclusive},
		{"only undecided", 0, 5, 0, 0, false, Inconclusive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Summary
			for i := 0; i < tc.holds; i++ {
				s.Add(hold, "h")
			}
			for i := 0; i < tc.undecided; i++ {
				s.Add(Undecided("u"), "u")
			}
			for i := 0; i < tc.violated; i++ {
				s.Add(Verdict{Status: Violated, Statistic: 1, Bound: 0.1}, "the bad case")
			}
			for i := 0; i < tc.assumption; i++ {
				s.Add(Assumption("a"), "a")
			}
			s.GaveUp = tc.gaveUp
			assert.Equal(t, tc.want, s.Status())
			if tc.violated > 0 {
				assert.Equal(t, "the bad case", s.WorstCase)
			}
		})
	}
}

func TestResultStatusNeedsControls(t *testing.T) {
	r := Result{Claims: Summary{Cases: 1, Holds: 1}, Controls: 2, ControlsCaught: 1}
	assert.Equal(t, Inconclusive, r.Status(), "a check whose control was missed has not shown anything")
	r.ControlsCaught = 2
	assert.Equal(t, Holds, r.Status())
}

func TestStatusText(t *testing.T) {
	for _, s := range []Status{Holds, Inconclusive, AssumptionFailed, Violated} {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back Status
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, s, back)
	}
	assert.Equal(t, "assumption-failed", AssumptionFailed.String())
	var s Status
	assert.Error(t, s.UnmarshalText([]byte("fine")))
}

func TestCatalogIDsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalog() {
		assert.False(t, seen[e.ID], e.ID)
		seen[e.ID] = true
		assert.NotEmpty(t, e.Claim)
		assert.NotEmpty(t, e.Source)
	}
	assert.Len(t, seen, 45)
	_, ok := Lookup("LL-B3")
	assert.True(t, ok)
}

// TestEngineStatuses: on another engine, an engine error makes the entry
// an engine error whatever held, a claim that could not run makes it not
// applicable only when nothing held, and neither is ever holds.
func TestEngineStatuses(t *testing.T) {
	ok, na, ee := Compare(0, 1, ""), Inapplicable("flow"), EngineFailed(errors.New("engine e: case c: crashed"))
	for _, c := range []struct {
		name string
		vs   []Verdict
		want Status
	}{
		{"not applicable", []Verdict{na}, NotApplicable},
		{"one claim ran", []Verdict{ok, ok, na}, Holds},
		{"engine error", []Verdict{ok, ee, ok}, EngineError},
		{"violated first", []Verdict{ee, Compare(2, 1, "")}, Violated},
	} {
		var s Summary
		for _, v := range c.vs {
			s.Add(v, "")
		}
		if got := s.Status(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

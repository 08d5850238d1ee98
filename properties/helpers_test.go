package properties

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/theorems"
)

// testSeed is the seed of the property tests: IMPLICITBIAS_SEED if set, a
// fresh one in soak mode (IMPLICITBIAS_SOAK set), 1 otherwise (CI). gopter
// prints it when a property fails.
func testSeed(t *testing.T) int64 {
	if s := os.Getenv("IMPLICITBIAS_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("IMPLICITBIAS_SEED=%q is not an integer", s)
		}
		return v
	}
	if os.Getenv("IMPLICITBIAS_SOAK") != "" {
		return time.Now().UnixNano()
	}
	return 1
}

func entry(t *testing.T, id string) Entry {
	for _, e := range Entries() {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no entry %s", id)
	return Entry{}
}

// discardRatio is gopter's MaxDiscardRatio for n cases: at most
// max(3, n/10) inconclusive cases, each replaced by a fresh case (gopter
// still needs n decided ones). The slow trajectory checks are honestly
// undecided on a few percent of cases — LL-4.4 on the linear model on 4 of
// 60 (ε falls like 1/log t; tripling the steps did not change that) — so a
// flat n/10 with n = 8 allowed none and the soak (scripts/soak) failed 5
// runs of 8 on one undecided case; with 3 allowed, 8 cases at a 7% rate
// fail about once in 200 runs.
func discardRatio(n int) float64 {
	return max(0.1, 3/float64(n))
}

// runProperty runs p over n generated cases with gopter; want decides
// whether a verdict passes. Inconclusive verdicts are discarded (neither
// passes nor catches); more than discardRatio(n)·n of them fail the
// property.
func runProperty(t *testing.T, p Property, n int, want func(theorems.Verdict) bool) {
	t.Helper()
	params := gopter.DefaultTestParametersWithSeed(testSeed(t))
	params.MinSuccessfulTests = n
	params.MaxDiscardRatio = discardRatio(n)
	props := gopter.NewProperties(params)
	props.Property(p.Name, forAll(func(c any) *gopter.PropResult {
		v := p.Check(c)
		// An inconclusive verdict is neither a claim's pass nor a
		// control's catch: discarded, at most discardRatio(n)·n of them, for claims
		// and controls alike. (Controls used to fail on one: the soak,
		// seed 1795317919953440, found ZD-T1's Adam control case whose
		// run ended 3% short of the interpolation tolerance, undecided.)
		if v.Status == theorems.Inconclusive {
			// Printed only if the test fails (too many of them).
			t.Logf("discarded, inconclusive: %v\n\ton %+v", v, c)
			return &gopter.PropResult{Status: gopter.PropUndecided}
		}
		// The verdict (statistic, bound, detail) is the label gopter prints
		// with the shrunk case when the property fails.
		return gopter.NewPropResult(want(v), v.String())
	}, p.Gen))
	props.TestingRun(t, gopter.ConsoleReporter(false))
}

// forAll is prop.ForAll for one generator, except that it shrinks only
// falsified cases. prop.ForAll shrinks every result that is not a success,
// undecided ones included: an inconclusive verdict then re-ran the check on
// a long chain of shrunk variants (each of them undecided too), which for a
// check that trains a network costs minutes and proves nothing. Shrinking
// keeps a shrunk candidate only while it still fails.
func forAll(check func(any) *gopter.PropResult, g gopter.Gen) gopter.Prop {
	return gopter.SaveProp(func(params *gopter.GenParameters) *gopter.PropResult {
		res := g(params)
		v, ok := res.Retrieve()
		if !ok {
			return &gopter.PropResult{Status: gopter.PropUndecided}
		}
		orig := fmt.Sprintf("%+v", v)
		r := check(v)
		failed := func(r *gopter.PropResult) bool {
			return r.Status == gopter.PropFalse || r.Status == gopter.PropError
		}
		shrinks := 0
		if failed(r) && res.Shrinker != nil {
			next := res.Shrinker(v)
			for shrinks < params.MaxShrinkCount {
				w, ok := next()
				if !ok {
					break
				}
				if wr := check(w); failed(wr) {
					v, r = w, wr
					shrinks++
					next = res.Shrinker(v)
				}
			}
		}
		return r.AddArgs(gopter.NewPropArg(res, shrinks, v, fmt.Sprintf("%+v", v), v, orig))
	})
}

// claim asserts that p holds on n cases.
func claim(t *testing.T, p Property, n int) {
	t.Helper()
	runProperty(t, p, n, func(v theorems.Verdict) bool { return v.Status == theorems.Holds })
}

// control asserts that the check reports violated or assumption-failed on
// every one of n cases of the negative control p.
func control(t *testing.T, p Property, n int) {
	t.Helper()
	runProperty(t, p, n, Caught)
}

// claims and controls run every claim and control of an entry as subtests.
func claims(t *testing.T, id string, n int) {
	for _, p := range entry(t, id).Claims {
		t.Run(p.Name, func(t *testing.T) { claim(t, p, n) })
	}
}

func controls(t *testing.T, id string, n int) {
	for _, p := range entry(t, id).Controls {
		t.Run(p.Name, func(t *testing.T) { control(t, p, n) })
	}
}

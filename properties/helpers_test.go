package properties

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/implicitbias/implicitbias/theorems"
)

// testSeed is the seed of the property tests: IMPLICITBIAS_SEED if set, a
// fresh one in soak mode (IMPLICITBIAS_SOAK set), 1 otherwise (CI). A failing
// property prints it.
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

// runProperty runs p over n decided cases by Decide, the rule `verify`
// applies too: an inconclusive verdict is neither a claim's pass nor a
// control's catch; the case is replaced by a fresh one, at most
// DiscardAllowance(n, p.Undecided) times, after which the property fails
// ("gave up"). A failing case is shrunk and printed with the seed that
// reproduces it (IMPLICITBIAS_SEED).
func runProperty(t *testing.T, p Property, n int, want func(theorems.Verdict) bool) {
	t.Helper()
	seed := testSeed(t)
	o := Decide(context.Background(), p.Name, p, seed, n, want, true)
	switch {
	case o.GaveUp:
		t.Fatalf("%s: gave up: %d of %d cases inconclusive, %d allowed (seed %d; IMPLICITBIAS_SEED=%d reproduces it)\n\tlast: %v",
			p.Name, o.Summary.Inconclusive, o.Summary.Cases, o.Allowance, seed, seed, o.Summary.Worst)
	case o.Failed != "":
		t.Fatalf("%s: falsified (seed %d; IMPLICITBIAS_SEED=%d reproduces it)\n\tcase: %s", p.Name, seed, seed, o.Failed)
	}
	if o.Summary.Inconclusive > 0 {
		t.Logf("%d inconclusive cases replaced (%d allowed)", o.Summary.Inconclusive, o.Allowance)
	}
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
		if p.Fault != "" {
			continue // measured by TestFaultPower
		}
		t.Run(p.Name, func(t *testing.T) { control(t, p, n) })
	}
}

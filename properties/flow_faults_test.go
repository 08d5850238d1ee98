package properties

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// flowFaultScale is the integrator fault of the flow checks' negative
// controls: train.Flow.ErrorScale = 1e-6, an error estimate that reports a
// millionth of the error the step-size controller should see.
const flowFaultScale = 1e-6

// flowFaultMinCaught is the share of cases a fault must be reported
// violated on at the quick budget (issue 18: ≥ 95%, inconclusive counting
// as a miss).
const flowFaultMinCaught = 0.95

// flowClaim returns the flow claim of entry id (the last claim: LL-G's
// first is pointwise) and whether it measures γ̃ with block norms.
func flowClaim(t *testing.T, id string) (Property, bool) {
	e := entry(t, id)
	return e.Claims[len(e.Claims)-1], id == "LL-G"
}

// flowFaultShare runs the flow claim of entry id on its quick number of
// cases (from the test seed) with the integrator's error estimate scaled
// by scale, and returns the verdicts' counts.
func flowFaultShare(t *testing.T, id string, scale float64) (map[theorems.Status]int, int) {
	p, multi := flowClaim(t, id)
	faulty := faultyFlowProperty(p.Name, p.Gen, multi, theorems.MarginMonotone, func(f *train.Flow) { f.ErrorScale = scale })
	params := gopter.DefaultGenParameters()
	params.Rng.Seed(testSeed(t))
	n := nb(entry(t, id).Cases)
	counts := map[theorems.Status]int{}
	for i := 0; i < n; {
		c, ok := p.Gen(params).Retrieve()
		if !ok {
			continue // a draw a filtered generator rejected
		}
		i++
		v := faulty.Check(c)
		counts[v.Status]++
		if v.Status != theorems.Violated {
			t.Logf("%s, ErrorScale %g, not caught: %v\n\ton %v", id, scale, v, c)
		}
	}
	return counts, n
}

// TestFlowIntegratorFault: the flow monotonicity checks (LL-4.1, LL-F,
// LL-G) run on the integrated flows of their own claims' cases, with the
// integrator's error estimate a million times too small
// (train.Flow.ErrorScale), report violated on at least 95% of them: their
// error bar is re-integrated independently (theorems/flowcompanion.go) and
// the median step's discrepancy exceeds IntegratorErrorFactor times the
// reported error. Without the fault, cases of the same generators are the
// claims (TestLL_4_1_FlowMonotonicity, …), which hold.
func TestFlowIntegratorFault(t *testing.T) {
	for _, id := range []string{"LL-4.1", "LL-F", "LL-G"} {
		t.Run(id, func(t *testing.T) {
			counts, n := flowFaultShare(t, id, flowFaultScale)
			caught := float64(counts[theorems.Violated]) / float64(n)
			t.Logf("%s with ErrorScale %g: %v of %d cases, caught %.3f", id, flowFaultScale, counts, n, caught)
			assert.GreaterOrEqual(t, caught, flowFaultMinCaught, "%s: %v", id, counts)
		})
	}
}

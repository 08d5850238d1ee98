package properties

import (
	"context"
	"testing"

	"github.com/implicitbias/implicitbias/faults"
)

// TestFaultPower runs every declared (fault, claim) pair of the fault
// registry at the quick budget: the claim's check must report violated on
// at least faults.MinPower of the pair's cases (inconclusive and
// assumption-failed cases are misses). `go test ./properties -run
// 'TestFaultPower/preconditioner'` runs one fault.
func TestFaultPower(t *testing.T) {
	byID := map[string]Entry{}
	for _, e := range Entries() {
		byID[e.ID] = e
	}
	seed := testSeed(t)
	for _, pr := range faults.Pairs() {
		t.Run(pr.Fault+"/"+pr.Claim, func(t *testing.T) {
			e, ok := byID[pr.Claim]
			if !ok {
				t.Fatalf("fault %s declares %s, which has no entry", pr.Fault, pr.Claim)
			}
			row, err := MeasurePower(context.Background(), e, pr.Fault, seed, Quick)
			if err != nil {
				t.Fatal(err)
			}
			if !row.OK() {
				t.Errorf("%s caught in %d of %d cases (%.0f%%, need %.0f%%; seed %d)\n\tbecause: %s\n\tfirst miss: %s",
					pr.Fault, row.Violated, row.Cases, 100*row.Caught, 100*faults.MinPower, seed, pr.Why, row.Missed)
			}
		})
	}
}

// TestEveryClaimHasAFault: every entry of sections B–F lists at least one
// engine fault among its controls (issue 18), and every declared pair
// names a checked entry.
func TestEveryClaimHasAFault(t *testing.T) {
	t.Skip("coverage of sections B–F is not complete yet: see docs/trust.md")
}

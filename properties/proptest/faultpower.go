package proptest

import (
	"context"
	"testing"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/properties"
)

// FaultPower runs every (fault, claim) pair that the family entries es
// (unbound: a family's Entries()) declare (Entry.Faults) at the test
// Runner's seed and budget: the claim's check must report violated on at
// least faults.MinPower of the pair's cases (MeasurePower: inconclusive
// and assumption-failed cases are misses), one subtest per pair
// (fault/claim). Each family's TestFaultPower calls it, so that a fault
// control reads the validity of its cases — the claim's verdict on the
// same case without the fault — from the Runner's cache the family's
// Assert tests fill (verify shares them the same way, within one run),
// instead of training every clean run again in another test process
// (issue 28). `go test ./properties/... -run
// 'TestFaultPower/preconditioner'` runs one fault.
func FaultPower(t *testing.T, es []properties.Entry) {
	t.Parallel() // the Runner's caches are safe for concurrent use, as in verify
	bound := properties.Bind(es)
	byID := map[string]properties.Entry{}
	for _, e := range bound {
		byID[e.ID] = e
	}
	r := Runner(t)
	for _, pr := range properties.FaultPairs(bound) {
		t.Run(pr.Fault+"/"+pr.Claim, func(t *testing.T) {
			t.Parallel()
			row, err := properties.MeasurePower(context.Background(), r, byID[pr.Claim], pr.Fault)
			if err != nil {
				t.Fatal(err)
			}
			if !row.OK() {
				t.Errorf("%s caught in %d of %d cases (%.0f%%, need %.0f%%; seed %d)\n\tbecause: %s\n\tfirst miss: %s",
					pr.Fault, row.Violated, row.Cases, 100*row.Caught, 100*faults.MinPower, r.Seed, pr.Why, row.Missed)
			}
		})
	}
}

package suite

import (
	"os"
	"testing"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/proptest"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/stretchr/testify/assert"
)

// rateSeed is the seed of the samples the declared rates were measured on.
const rateSeed = 1

// TestUndecidedRates re-measures the declared rates of inconclusive cases
// (Property.Undecided): each claim that declares one is checked on Of
// cases drawn with rateSeed, and the count of inconclusive verdicts must be
// the declared Count (the runs are deterministic). It trains hundreds of
// runs, so it runs only under IMPLICITBIAS_RATES=1; with IMPLICITBIAS_SEED
// set it measures on that seed instead and reports the count without
// asserting it.
func TestUndecidedRates(t *testing.T) {
	if os.Getenv("IMPLICITBIAS_RATES") == "" {
		t.Skip("set IMPLICITBIAS_RATES=1 to re-measure the declared rates of inconclusive cases")
	}
	seed, fresh := int64(rateSeed), os.Getenv("IMPLICITBIAS_SEED") != ""
	if fresh {
		seed = proptest.Seed(t)
	}
	for _, e := range Entries() {
		for _, prop := range e.Claims {
			p := prop.Meta()
			if p.Undecided.Of == 0 {
				continue
			}
			t.Run(e.ID+"/"+p.Name, func(t *testing.T) {
				count := 0
				for _, c := range properties.SampleAny(prop.Generator(proptest.Runner(t)), seed, p.Undecided.Of) {
					switch v := prop.Verdict(proptest.Runner(t), c); v.Status {
					case theorems.Inconclusive:
						count++
					case theorems.Holds:
					default:
						t.Errorf("%v: %v", c, v)
					}
				}
				t.Logf("seed %d: %d of %d inconclusive (declared %v, upper bound %.3g, allowance %d for %d cases)", seed, count, p.Undecided.Of, p.Undecided, p.Undecided.Upper(), properties.DiscardAllowance(e.Cases, p.Undecided), e.Cases)
				if !fresh {
					assert.Equal(t, p.Undecided.Count, count, "declared rate %v", p.Undecided)
				}
			})
		}
	}
}

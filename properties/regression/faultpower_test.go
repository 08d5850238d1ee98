package regression

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties/proptest"
)

// TestFaultPower measures the power of this family's declared (fault,
// claim) pairs in the process whose Assert tests train the claims' clean
// runs (proptest.FaultPower).
func TestFaultPower(t *testing.T) { proptest.FaultPower(t, Entries()) }

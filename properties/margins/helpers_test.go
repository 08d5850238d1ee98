package margins

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties/proptest"
)

// Assert checks the entry id of this family on verify's path
// (proptest.Assert).
func Assert(t *testing.T, id string) {
	t.Helper()
	proptest.Assert(t, Entries(), id)
}

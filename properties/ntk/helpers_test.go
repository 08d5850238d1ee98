package ntk

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/proptest"
)

// Assert checks the entry id of this family on verify's path
// (proptest.Assert).
func Assert(t *testing.T, id string) {
	t.Helper()
	proptest.Assert(t, Entries(), id)
}

// entry returns the runnable entry id of this family.
func entry(t *testing.T, id string) properties.Entry {
	t.Helper()
	return proptest.EntryOf(t, Entries(), id)
}

package suite

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/proptest"
)

// entry returns the runnable entry id of the catalog.
func entry(t *testing.T, id string) properties.Entry {
	t.Helper()
	return proptest.EntryOf(t, Entries(), id)
}

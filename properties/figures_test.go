package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFigureFuncs: every entry figure draws at least one non-empty series,
// and is attached to a registered entry.
func TestFigureFuncs(t *testing.T) {
	ids := map[string]bool{}
	for _, e := range Entries() {
		ids[e.ID] = true
		if _, ok := figureFuncs[e.ID]; ok {
			assert.NotNil(t, e.Figures, e.ID)
		}
	}
	for id, f := range figureFuncs {
		require.True(t, ids[id], "figure for unregistered entry %s", id)
		figs := f(1, Quick)
		require.NotEmpty(t, figs, id)
		for _, fig := range figs {
			assert.NotEmpty(t, fig.Title, id)
			require.NotEmpty(t, fig.Series, "%s %s", id, fig.Name)
			for _, s := range fig.Series {
				assert.NotEmpty(t, s.X, "%s %s %s", id, fig.Name, s.Name)
				assert.Len(t, s.Y, len(s.X))
			}
		}
	}
}

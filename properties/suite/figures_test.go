package suite

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFigureFuncs: the figures of the trajectory entries (each family's figures.go) draw
// at least one non-empty series each. Sections E and F draw theirs from
// long runs and sweeps (TestNTKFigures checks section F's builders).
func TestFigureFuncs(t *testing.T) {
	r := properties.NewRunner(1, properties.Quick)
	for _, id := range []string{"LL-4.1", "LL-4.3", "LL-4.4", "ZD-T1"} {
		e := entry(t, id)
		require.NotNil(t, e.Figures, id)
		figs := e.Figures(r)
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

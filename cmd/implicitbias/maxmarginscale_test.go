package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaxMarginFeatureScale: features of any size the CSV can hold give
// the margin of the data as given (γ = s·γ̃ for features s·x̃), the same
// direction, and no NaN (issue 21: 1e-160 leaked "json: unsupported value:
// NaN", 1e160 failed with a residual). Dual values beyond float64 are null,
// with dual_scaled holding those of the scaled problem.
func TestMaxMarginFeatureScale(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []float64{1e-300, 1e-160, 1e-20, 1, 1e20, 1e160, 1e300} {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			// x₁ = s·(3, 1), x₂ = s·(1, 3), labels +1, −1: the SVM direction is
			// (1, −1)/√2, margin s·√2.
			path := filepath.Join(dir, fmt.Sprintf("s%g.csv", s))
			require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf("1,%v,%v\n-1,%v,%v\n", 3*s, s, s, 3*s)), 0o644))
			code, out, errOut := runCLI("maxmargin", "--data", path)
			require.Equal(t, exitOK, code, errOut)
			assert.NotContains(t, out, "NaN")
			var doc struct {
				Margin     float64    `json:"margin"`
				Direction  []float64  `json:"direction"`
				Dual       []*float64 `json:"dual"`
				DualScaled []float64  `json:"dual_scaled"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
			assert.InDelta(t, math.Sqrt2, doc.Margin/s, 1e-12)
			assert.InDelta(t, 1/math.Sqrt2, doc.Direction[0], 1e-12)
			assert.InDelta(t, -1/math.Sqrt2, doc.Direction[1], 1e-12)
			for i, a := range doc.Dual {
				if a == nil {
					require.NotNil(t, doc.DualScaled, "a null dual needs dual_scaled")
					assert.Positive(t, doc.DualScaled[i])
				}
			}
		})
	}
}

package losses

// Constants shared by the tests of this package; the references and the
// comparison helpers are in internal/bigref.

import (
	"math"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

var (
	inf  = math.Inf(1)
	ninf = math.Inf(-1)
	nan  = math.NaN()
)

// refs memoizes the high-precision references of the accuracy tests (see
// internal/bigref/cache.go: by default every reference is computed and
// checked against the file; IMPLICITBIAS_BIGREF=cache reads it).
var refs = bigref.NewCache("testdata/bigref-cache.txt", true)

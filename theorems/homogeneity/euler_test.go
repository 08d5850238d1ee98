package homogeneity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// TestPointIdentitiesSameVerdicts: the one-pass PointIdentities gives the
// verdicts of EulerIdentity and MultiHomogeneity, bit for bit, on a
// homogeneous net (both hold), the same net with L declared wrong (LL-B3
// violated: the planted fault), block degrees declared wrong (LL-B3m
// violated), and a net with biases (both assumption-failed).
func TestPointIdentitiesSameVerdicts(t *testing.T) {
	const n, d = 7, 3
	r := rand.New(rand.NewPCG(4, 4))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	for _, tc := range []struct {
		name          string
		spec          string
		degree        float64
		blocks        []float64
		euler, multiS theorems.Status
	}{
		{"homogeneous", "mlp:relu:3x5", 0, nil, theorems.Holds, theorems.Holds},
		{"L declared wrong", "mlp:relu:3x5", 2, nil, theorems.Violated, theorems.Holds},
		{"blocks declared wrong", "mlp:relu:3x5", 0, []float64{1, 1, 2}, theorems.Holds, theorems.Violated},
		{"biases", "mlp:relu:3x5+bias", 0, nil, theorems.AssumptionFailed, theorems.AssumptionFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := models.Parse(tc.spec, d)
			if err != nil {
				t.Fatal(err)
			}
			theta := make([]float64, m.NumParams())
			m.Init(rand.New(rand.NewPCG(5, 5)), theta)
			c := PointCase{Model: m, Theta: theta, X: x, N: n, Degree: tc.degree, BlockDegrees: tc.blocks}
			e, mh := PointIdentities(c)
			we, wm := EulerIdentity(c), MultiHomogeneity(c)
			if !sameBits(e, we) || !sameBits(mh, wm) {
				t.Errorf("one pass %v / %v, separate %v / %v", e, mh, we, wm)
			}
			if e.Status != tc.euler || mh.Status != tc.multiS {
				t.Errorf("LL-B3 %s, LL-B3m %s; want %s, %s", e.Status, mh.Status, tc.euler, tc.multiS)
			}
		})
	}
}

// sameBits compares two verdicts field by field, the numbers by their bits
// (a NaN statistic equals itself).
func sameBits(a, b theorems.Verdict) bool {
	return a.Status == b.Status && a.Detail == b.Detail &&
		math.Float64bits(a.Statistic) == math.Float64bits(b.Statistic) && math.Float64bits(a.Bound) == math.Float64bits(b.Bound)
}

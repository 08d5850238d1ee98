package numerics

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// RandomUnit draws a direction uniform on the unit sphere of R^d: a
// standard normal vector, normalized (drawn again in the null event of a
// zero vector). The property families draw their data and shifts with it.
func RandomUnit(r *rand.Rand, d int) []float64 {
	for {
		x := make([]float64, d)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		if nrm := floats.Norm(x, 2); nrm > 0 {
			floats.Scale(1/nrm, x)
			return x
		}
	}
}

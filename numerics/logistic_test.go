package numerics_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
)

// TestLogisticRidge: the gradient vanishes at the result (to rounding),
// F there is the value returned, and no nearby point is lower.
func TestLogisticRidge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 50; trial++ {
		n, d := 2+r.IntN(10), 2+r.IntN(10)
		x, _, th0, q := randProblem(r, n, d)
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(2*r.IntN(2) - 1)
		}
		mu := math.Pow(10, -2+2*r.Float64())
		theta, f, err := numerics.LogisticRidge(x, n, d, y, q, th0, mu)
		require.NoError(t, err)
		F := func(th []float64) float64 {
			var s float64
			for i := 0; i < n; i++ {
				s += q[i] * numerics.Log1pExp(-y[i]*floats.Dot(x[i*d:(i+1)*d], th))
			}
			for j := range th {
				s += 0.5 * mu * (th[j] - th0[j]) * (th[j] - th0[j])
			}
			return s
		}
		assert.InDelta(t, F(theta), f, 1e-15*f)
		g := make([]float64, d)
		for j := range g {
			g[j] = mu * (theta[j] - th0[j])
		}
		var scale float64
		for i := 0; i < n; i++ {
			xi := x[i*d : (i+1)*d]
			m := y[i] * floats.Dot(xi, theta)
			floats.AddScaled(g, -q[i]*y[i]/(1+math.Exp(m)), xi)
			scale += q[i] * floats.Norm(xi, 2)
		}
		assert.Less(t, floats.Norm(g, 2), 1e-13*(scale+mu*floats.Norm(theta, 2)+1), "n=%d d=%d μ=%g", n, d, mu)
		p := make([]float64, d)
		for k := 0; k < 20; k++ {
			for j := range p {
				p[j] = theta[j] + 1e-4*r.NormFloat64()
			}
			assert.GreaterOrEqual(t, F(p), f)
		}
	}
	_, _, err := numerics.LogisticRidge([]float64{1}, 1, 1, []float64{1}, []float64{1}, nil, 0)
	assert.ErrorContains(t, err, "μ must be")
}

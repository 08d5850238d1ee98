package models_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
)

// TestMexicanHatGradient compares the closed-form gradient of LL App. I with
// central finite differences and checks Euler's identity ⟨θ, ∇h⟩ = L·h and
// homogeneity h(cθ) = c^L h(θ) at random points with r < 1.
func TestMexicanHatGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, variant := range []models.HatVariant{models.HatInvariant, models.HatLL, models.HatFlat} {
		for _, L := range []float64{0.01, 1, 2, 3.5} {
			m, err := models.NewMexicanHat(L, 2, variant)
			require.NoError(t, err)
			g := models.NewGrader(m)
			x := []float64{0.3, -0.7}
			grad := make([]float64, 3)
			for trial := 0; trial < 200; trial++ {
				theta := []float64{r.NormFloat64(), r.NormFloat64(), 0.3 * r.NormFloat64()}
				h := g.Grad(theta, x, 0, grad)
				want := fd.Gradient(nil, func(th []float64) float64 { return g.Value(th, x, 0) }, theta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				// Central differences: truncation h²|f‴|/6 plus rounding
				// ε|h|/step ≈ 1e-10 of the scale; 1e-7 leaves room for the
				// steep e^{−1/(1−r²)} near r = 1.
				scale := math.Max(floats.Norm(grad, 2), math.Abs(h))
				assert.LessOrEqual(t, floats.Distance(grad, want, 2)/scale, 1e-7, "L=%g variant=%d θ=%v", L, variant, theta)
				// Euler: ⟨θ, ∇h⟩ = L h to rounding (EulerBound).
				assert.InDelta(t, L*h, floats.Dot(theta, grad), 1e-12*floats.Norm(theta, 2)*floats.Norm(grad, 2)+1e-300)
				c := math.Exp(r.NormFloat64())
				scaled := append([]float64(nil), theta...)
				floats.Scale(c, scaled)
				assert.InDelta(t, math.Pow(c, L)*h, g.Value(scaled, x, 0), 1e-12*math.Pow(c, L)*math.Abs(h))
			}
		}
	}
}

// TestMexicanHatInvariantCurve checks the identity behind LL Thm I.1: on
// ψ = φ − 1/(1−r²) = 0 the flow's dψ/dt vanishes. With (u̇, v̇) the
// tangential velocity of θ̂ under dθ/dt = ∇h, dψ/dt = φ̇ − (2r/(1−r²)²)ṙ.
// It holds for the corrected twist (HatInvariant) and fails — by a
// relative amount of order 1 — for the twist printed in LL (HatLL): a
// finding about the paper, kept as a test.
func TestMexicanHatInvariantCurve(t *testing.T) {
	psidot := func(variant models.HatVariant, r0 float64) (psidot, scale, rdot, phidot float64) {
		m, err := models.NewMexicanHat(1, 1, variant)
		require.NoError(t, err)
		g := models.NewGrader(m)
		grad := make([]float64, 3)
		phi := 1 / (1 - r0*r0)
		theta := []float64{r0 * math.Cos(phi), r0 * math.Sin(phi), math.Sqrt(1 - r0*r0)}
		g.Grad(theta, []float64{0}, 0, grad)
		// ρ = 1: du/dt = ẋ − u⟨θ̂, θ̇⟩, the same for v.
		rad := floats.Dot(theta, grad)
		du := grad[0] - theta[0]*rad
		dv := grad[1] - theta[1]*rad
		u, v := theta[0], theta[1]
		rdot = (u*du + v*dv) / r0
		phidot = (u*dv - v*du) / (r0 * r0)
		a := 1 / (1 - r0*r0)
		return phidot - 2*r0*a*a*rdot, math.Abs(phidot) + math.Abs(2*r0*a*a*rdot), rdot, phidot
	}
	for _, r0 := range []float64{0.2, 0.4, 0.6, 0.8, 0.9} {
		p, scale, rdot, phidot := psidot(models.HatInvariant, r0)
		assert.InDelta(t, 0, p, 1e-12*scale, "r0=%g", r0)
		assert.Greater(t, rdot, 0.0)
		assert.Greater(t, phidot, 0.0)
		p, scale, _, _ = psidot(models.HatLL, r0)
		assert.Greater(t, math.Abs(p), 1e-3*scale, "LL's printed twist: r0=%g", r0)
	}
}

func TestMexicanHatModel(t *testing.T) {
	_, err := models.NewMexicanHat(0, 1, models.HatInvariant)
	assert.Error(t, err)
	_, err = models.NewMexicanHat(1, 0, models.HatInvariant)
	assert.Error(t, err)
	_, err = models.NewMexicanHat(1, 1, models.HatVariant(7))
	assert.Error(t, err)
	m, err := models.NewMexicanHat(2, 3, models.HatInvariant)
	require.NoError(t, err)
	assert.Equal(t, "mexicanhat:2", m.String())
	assert.Equal(t, 3, m.NumParams())
	assert.Equal(t, models.Degree{Homogeneous: true, Order: 2, Blocks: []float64{2}}, m.Degree())
	theta := make([]float64, 3)
	m.Init(rand.New(rand.NewPCG(3, 3)), theta)
	assert.InDelta(t, 1, floats.Norm(theta, 2), 1e-15)
	r := math.Hypot(theta[0], theta[1])
	psi := math.Remainder(math.Atan2(theta[1], theta[0])-1/(1-r*r), 2*math.Pi)
	assert.InDelta(t, 0, psi, 1e-12)
	// A batch: every sample gets h(θ), the gradient is Σ gOut ∇h.
	ws := m.NewWorkspace(4)
	out := m.Forward(ws, theta, make([]float64, 12), 4)
	assert.Len(t, out, 4)
	assert.Equal(t, out[0], out[3])
	grad := make([]float64, 3)
	m.Backward(ws, theta, []float64{1, 1, 1, 1}, grad)
	one := make([]float64, 3)
	models.NewGrader(m).Grad(theta, []float64{0, 0, 0}, 0, one)
	floats.Scale(4, one)
	assert.InDeltaSlice(t, one, grad, 1e-15)
	flat, _ := models.NewMexicanHat(2, 3, models.HatFlat)
	assert.Equal(t, "mexicanhat-flat:2", flat.String())
	ll, _ := models.NewMexicanHat(2, 3, models.HatLL)
	assert.Equal(t, "mexicanhat-ll:2", ll.String())
}

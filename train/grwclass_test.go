package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// separableData draws n unit vectors in d dimensions labelled by a random
// unit teacher with |⟨u, x⟩| ≥ 0.1.
func separableData(r *rand.Rand, n, d int) *dataset.Dataset {
	u := make([]float64, d)
	for i := range u {
		u[i] = r.NormFloat64()
	}
	floats.Scale(1/floats.Norm(u, 2), u)
	ds := &dataset.Dataset{N: n, D: d}
	x := make([]float64, d)
	for len(ds.Y) < n {
		for i := range x {
			x[i] = r.NormFloat64()
		}
		floats.Scale(1/floats.Norm(x, 2), x)
		if p := floats.Dot(u, x); math.Abs(p) >= 0.1 {
			ds.X = append(ds.X, x...)
			ds.Y = append(ds.Y, math.Copysign(1, p))
		}
	}
	return ds
}

func linearObjective(t *testing.T, ds *dataset.Dataset, loss string) *Objective {
	t.Helper()
	m, err := models.NewLinear(ds.D, 1)
	require.NoError(t, err)
	l, err := losses.ByName(loss)
	require.NoError(t, err)
	obj, err := NewObjective(m, l, ds)
	require.NoError(t, err)
	return obj
}

// TestMinimizeRegularized: the minimizer of the weakly regularized risk
// L(θ) + λ‖θ‖^r is stationary for ∇(𝓛 + R) itself (not only its log), for
// λ down to 1e-8, and its norm grows as λ falls (XY Claim 1).
func TestMinimizeRegularized(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, loss := range []string{"exp", "logistic"} {
		ds := separableData(r, 6, 3)
		obj := linearObjective(t, ds, loss)
		theta := make([]float64, 3)
		prev := 0.0
		for _, lam := range []float64{1e-1, 1e-2, 1e-4, 1e-6, 1e-8} {
			obj.Reg = NormPower{Lambda: lam, R: 2}
			res, err := Minimize(obj, theta, nil)
			require.NoError(t, err, "%s λ=%g", loss, lam)
			ev, err := obj.Evaluate(theta, true)
			require.NoError(t, err)
			assert.LessOrEqual(t, floats.Norm(ev.Dir, math.Inf(1)), DefaultMinimizeGradTol, "%s λ=%g", loss, lam)
			rho := floats.Norm(theta, 2)
			assert.Greater(t, rho, prev, "%s λ=%g: ‖θ_λ‖ non-decreasing as λ falls", loss, lam)
			prev = rho
			t.Logf("%s λ=%g: ‖θ‖ %.4g log(𝓛+R) %.6g in %d iterations", loss, lam, rho, res.LogObjective, res.Iterations)
		}
	}
	_, err := Minimize(linearObjective(t, separableData(r, 3, 2), "exp"), []float64{0}, nil)
	assert.Error(t, err)
}

// TestMinimizeOnBall: θ_R lies on the sphere and satisfies the KKT
// condition of the ball constraint, −∇𝓛 = μθ with μ ≥ 0, and projected GD
// with a constant step reaches the same point.
func TestMinimizeOnBall(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ds := separableData(r, 6, 3)
	obj := linearObjective(t, ds, "logistic")
	for _, radius := range []float64{1, 10, 100} {
		theta := []float64{1, 0, 0}
		res, err := MinimizeOnBall(obj, theta, radius, nil)
		require.NoError(t, err)
		assert.InDelta(t, radius, floats.Norm(theta, 2), 1e-12*radius)
		ev, err := obj.Evaluate(theta, true)
		require.NoError(t, err)
		cos := -floats.Dot(ev.Dir, theta) / (floats.Norm(ev.Dir, 2) * radius)
		assert.InDelta(t, 1, cos, 1e-12, "R=%g: −∇𝓛 ∥ θ", radius)
		t.Logf("R=%g: %d iterations, residual %.2g, μ %.3g, log 𝓛 %.6g", radius, res.Iterations, res.Residual, res.Multiplier, res.LogLoss)
		assert.LessOrEqual(t, res.Residual, 1e-9*radius)
		if radius == 1 {
			pgd, err := NewProjectedGD(1, radius)
			require.NoError(t, err)
			th := make([]float64, 3)
			_, err = Run(obj, pgd, th, Config{Steps: 20000, Every: 20000})
			require.NoError(t, err)
			floats.Sub(th, theta)
			assert.LessOrEqual(t, floats.Norm(th, 2), 1e-8)
		}
	}
	_, err := MinimizeOnBall(obj, []float64{1, 0, 0}, 0, nil)
	assert.Error(t, err)
	_, err = MinimizeOnBall(obj, make([]float64, 3), 1, nil)
	assert.Error(t, err)
	_, err = NewProjectedGD(1, -1)
	assert.Error(t, err)
}

// TestLearnedWeighting: the weights are g_i/Σg with g ∈ (1, 2), the model's
// step is the gradient of (1/n)Σ g(ψ, x_i)ℓ_i (central differences), and
// Update does not allocate.
func TestLearnedWeighting(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ds := separableData(r, 7, 3)
	psi0 := []float64{0.5, -1, 0.3}
	w, err := NewLearnedWeighting(0.1, psi0, 0.2)
	require.NoError(t, err)
	require.NoError(t, w.Start(ds))
	ll := make([]float64, ds.N)
	for i := range ll {
		ll[i] = -r.Float64() * 3
	}
	q := make([]float64, ds.N)
	require.NoError(t, w.Update(0, ll, q))
	onSimplex(t, q)
	assert.Less(t, floats.Max(q)/floats.Min(q), 2.0)
	risk := func(psi []float64, b float64) float64 {
		var s float64
		for i := 0; i < ds.N; i++ {
			s += (sigmoid(floats.Dot(psi, ds.Row(i))+b) + 1) * math.Exp(ll[i])
		}
		return s / float64(ds.N)
	}
	psi, b := w.Psi()
	const h = 1e-6
	for j := 0; j <= 3; j++ {
		p1, p2 := append([]float64(nil), psi0...), append([]float64(nil), psi0...)
		b1, b2 := 0.2, 0.2
		if j < 3 {
			p1[j] += h
			p2[j] -= h
		} else {
			b1, b2 = b1+h, b2-h
		}
		fd := (risk(p1, b1) - risk(p2, b2)) / (2 * h)
		var got float64
		if j < 3 {
			got = (psi0[j] - psi[j]) / 0.1
		} else {
			got = (0.2 - b) / 0.1
		}
		assert.InDelta(t, fd, got, 1e-8, "coordinate %d", j)
	}
	allocs := testing.AllocsPerRun(10, func() { _ = w.Update(1, ll, q) })
	assert.Zero(t, allocs)
	_, err = NewLearnedWeighting(0, nil, 0)
	assert.Error(t, err)
	bad, _ := NewLearnedWeighting(1, []float64{1}, 0)
	assert.Error(t, bad.Start(ds))
}

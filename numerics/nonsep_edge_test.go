package numerics_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// splitFields recomputes, from the data and the returned certificates, the
// figures Split documents: the signed points z_j = y_j x_j / max‖x‖, then
// MinMargin = min_S ⟨U, z_i⟩, ScMargin = max_Sc |⟨U, z_i⟩| and Residual =
// ‖Σ λ_j z_j‖/Σ λ_j.
func splitFields(x *mat.Dense, y []float64, sp *numerics.Split) (minM, scM, res float64) {
	n, d := x.Dims()
	var zmax float64
	for i := 0; i < n; i++ {
		zmax = math.Max(zmax, floats.Norm(x.RawRowView(i), 2))
	}
	z := func(i int) []float64 {
		v := append([]float64(nil), x.RawRowView(i)...)
		if zmax > 0 { // all-zero data: every z_j = 0
			floats.Scale(y[i]/zmax, v)
		}
		return v
	}
	minM = math.Inf(1)
	for _, i := range sp.S {
		minM = math.Min(minM, floats.Dot(sp.U, z(i)))
	}
	for _, i := range sp.Sc {
		scM = math.Max(scM, math.Abs(floats.Dot(sp.U, z(i))))
	}
	if len(sp.Sc) > 0 {
		c := make([]float64, d)
		for j := 0; j < n; j++ {
			floats.AddScaled(c, sp.Lambda[j], z(j))
		}
		res = floats.Norm(c, 2) / floats.Sum(sp.Lambda)
	}
	return minM, scM, res
}

// TestSplitFields: U is a unit vector, Lambda ≥ 1 on Sc and 0 on S, and
// MinMargin, ScMargin and Residual are what their doc says, recomputed from
// the certificates (to rounding, 1e-15); Residual is 0 when Sc is empty. On
// random mixed instances, separable data and data with zero rows.
func TestSplitFields(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	check := func(name string, x *mat.Dense, y []float64) *numerics.Split {
		t.Helper()
		sp, err := numerics.SplitSeparable(x, y, 0)
		require.NoError(t, err, name)
		if len(sp.S) > 0 {
			assert.InDelta(t, 1, floats.Norm(sp.U, 2), 1e-15, name)
		}
		for _, i := range sp.Sc {
			assert.GreaterOrEqual(t, sp.Lambda[i], 1.0, "%s: λ on Sc", name)
		}
		for _, i := range sp.S {
			assert.Equal(t, 0.0, sp.Lambda[i], "%s: λ on S", name)
		}
		minM, scM, res := splitFields(x, y, sp)
		assert.InDelta(t, minM, sp.MinMargin, 1e-15, "%s: MinMargin", name)
		assert.InDelta(t, scM, sp.ScMargin, 1e-15, "%s: ScMargin", name)
		assert.InDelta(t, res, sp.Residual, 1e-15, "%s: Residual", name)
		return sp
	}
	for it := 0; it < 20; it++ {
		x, y, _ := randomSplitData(r, 3, 6, 1+r.IntN(2))
		check("mixed", x, y)
	}
	// Triples a, b, −(a + b) (rounded: the vanishing combination's
	// residual is rounding, not 0) with Σλ ≈ 100, so Residual's
	// normalization by Σλ shows even at rounding level.
	x, y := splitTriples(r, 4, 10, 20)
	check("triples", x, y)
	sp := check("separable", mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1}), []float64{1, 1, 1})
	assert.Equal(t, 0.0, sp.Residual)
	check("zero rows", mat.NewDense(3, 2, []float64{1, 2, 0, 0, 0, 0}), []float64{1, 1, -1})
	sp = check("all zero", mat.NewDense(2, 2, nil), []float64{1, -1})
	assert.Equal(t, []int{0, 1}, sp.Sc)
	assert.Empty(t, sp.S)
}

// TestSplitScaleInvariance: the split depends on the data only up to
// scale (the threshold is relative to max‖x‖): the data ×1e6 and ×1e-6 give
// the same S and Sc as the data.
func TestSplitScaleInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for it := 0; it < 10; it++ {
		x, y, _ := randomSplitData(r, 3, 5, 1)
		want, err := numerics.SplitSeparable(x, y, 0)
		require.NoError(t, err)
		for _, c := range []float64{1e6, 1e-6} {
			var xs mat.Dense
			xs.Scale(c, x)
			got, err := numerics.SplitSeparable(&xs, y, 0)
			require.NoError(t, err, "scale %g", c)
			assert.Equal(t, want.S, got.S, "scale %g", c)
			assert.Equal(t, want.Sc, got.Sc, "scale %g", c)
		}
	}
}

// TestSplitBarelySeparable: samples separable by only 1e-4 of max‖x‖ —
// far above the threshold 1e-9 — next to one separable by a wide margin
// are all in S, with a certificate that proves it: each sample's unit
// certificate separates it by its distance to the cone, so their sum keeps
// a margin of order 1e-4/|S| on every sample (not 1e-12, as certificates
// weighted by their length would).
func TestSplitBarelySeparable(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 0, -1, 1e-4, 0, 1})
	sp, err := numerics.SplitSeparable(x, []float64{1, 1, 1}, 0)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, sp.S)
	assert.Greater(t, sp.MinMargin, 1e-6)
}

// TestSplitAmbiguous: a sample 1e-11·max‖x‖ away from the cone of the
// others is neither provably separable nor provably not (between rounding
// and the threshold 1e-9): SplitSeparable says so.
//
// Likewise two samples 1e-8 from opposite ((1, 0) and (−1, 1e-8), with
// (0, 1) and (−0.3, 1)): the data are separable (by u ≈ (5e-9, 1), margin
// 5e-9), but the certificates of S sum to one that separates sample 0 by 0:
// the split is not proved, and SplitSeparable reports that rather than
// return an unproved split.
func TestSplitAmbiguous(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 0, -1, 1e-11, 0, 1})
	_, err := numerics.SplitSeparable(x, []float64{1, 1, 1}, 0)
	assert.ErrorIs(t, err, numerics.ErrAmbiguousSplit)
	x = mat.NewDense(4, 2, []float64{1, 0, -1, 1e-8, 0, 1, -0.3, 1})
	_, err = numerics.SplitSeparable(x, []float64{1, 1, 1, 1}, 0)
	assert.ErrorIs(t, err, numerics.ErrAmbiguousSplit)
	assert.ErrorContains(t, err, "samples of S are separated by only")
}

// TestMinimizeNonSepDetails: the basis spans the samples' span (rank 1 for
// multiples of one direction, also at norm 1e4 where the SVD's rounding
// noise is 1e-12), the reported Hessian eigenvalue, gradient and objective
// are those of F at θ̃ (on the line θ = t·v̂, F(t) = 2e^{−st} + e^{2st} +
// e^{3st}, whose derivatives are closed-form), and Iterations counts the Newton steps (≥ 1 from 0).
func TestMinimizeNonSepDetails(t *testing.T) {
	for _, s := range []float64{1, 1e4} {
		// Multiples of v̂ = (0.6, 0.8), not exactly representable: the SVD's
		// second singular value is rounding noise, ~1e-16·σ₁.
		x := mat.NewDense(3, 2, []float64{0.6 * s, 0.8 * s, -2 * 0.6 * s, -2 * 0.8 * s, 3 * 0.6 * s, 3 * 0.8 * s})
		y := []float64{1, 1, -1} // z = s·v̂, −2s·v̂, −3s·v̂
		w := []float64{2, 1, 1}
		mn, err := numerics.MinimizeNonSep(x, y, w)
		require.NoError(t, err, "s = %g", s)
		r, _ := mn.Basis.Dims()
		assert.Equal(t, 1, r, "s = %g: rank", s)
		assert.GreaterOrEqual(t, mn.Iterations, 1)
		// F(t) = 2e^{−st} + e^{2st} + e^{3st} on θ = t·v̂: check the
		// stationarity and the curvature at θ̃ against this closed form.
		th := 0.6*mn.Theta[0] + 0.8*mn.Theta[1]
		fp := -2*s*math.Exp(-s*th) + 2*s*math.Exp(2*s*th) + 3*s*math.Exp(3*s*th)
		fpp := 2*s*s*math.Exp(-s*th) + 4*s*s*math.Exp(2*s*th) + 9*s*s*math.Exp(3*s*th)
		f := 2*math.Exp(-s*th) + math.Exp(2*s*th) + math.Exp(3*s*th)
		assert.InDelta(t, 0, fp, 1e-12*s, "s = %g", s)
		assert.InDelta(t, fpp, mn.HessMinEig, 1e-12*fpp, "s = %g", s)
		assert.InDelta(t, f, mn.Objective, 1e-14*f, "s = %g", s)
		assert.LessOrEqual(t, mn.GradNorm, 1e-12*s)
	}
}

// TestSplitLarge: a larger instance (100 separable samples and 100
// triples in 6 dimensions, N = 400) splits as constructed: the rounding
// allowance of the verification, 1e3·N·ε, covers the rounding of sums over
// N NNLS solutions (the certificate is 9e-16 on Sc here: more than an
// allowance of 1e3·ε/N would let pass).
func TestSplitLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 4))
	x, y := splitTriples(r, 6, 100, 100)
	sp, err := numerics.SplitSeparable(x, y, 0)
	require.NoError(t, err)
	want := make([]int, 300)
	for i := range want {
		want[i] = 100 + i
	}
	assert.Equal(t, want, sp.Sc)
}

// splitTriples draws nSep unit vectors labelled by a unit u with margin
// ≥ 0.05 and k triples a, b, −(a + b) in u⟂, labelled +1: non-separable
// exactly on the triples (a + b + (−(a + b)) = 0), through a combination
// with coefficients (1, 1, 1) that is zero only up to the rounding of a + b.
func splitTriples(r *rand.Rand, d, nSep, k int) (*mat.Dense, []float64) {
	u := unit(r, d)
	var rows [][]float64
	var y []float64
	for len(rows) < nSep {
		x := unit(r, d)
		if p := floats.Dot(u, x); math.Abs(p) >= 0.05 {
			rows = append(rows, x)
			y = append(y, math.Copysign(1, p))
		}
	}
	for p := 0; p < k; p++ {
		a, b := unit(r, d), unit(r, d)
		floats.AddScaled(a, -floats.Dot(a, u), u)
		floats.AddScaled(b, -floats.Dot(b, u), u)
		c := make([]float64, d)
		floats.AddTo(c, a, b)
		floats.Scale(-1, c)
		rows = append(rows, a, b, c)
		y = append(y, 1, 1, 1)
	}
	x := mat.NewDense(len(rows), d, nil)
	for i, row := range rows {
		x.SetRow(i, row)
	}
	return x, y
}

// TestMinimizeNonSepRandom: on random non-separable sets — pairs z_k
// (label +1) and c_k·z_k (label −1), c_k ∈ [0.1, 10], weights spread over
// six decades, so that the Newton steps from 0 are long and must be
// shortened — θ̃ is stationary: the gradient of F = Σ w_i e^{−y_i⟨θ, x_i⟩},
// recomputed here, vanishes to 1e-9 of Σ w_i|x_i| (the terms' scale), and
// Objective is F(θ̃).
func TestMinimizeNonSepRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for it := 0; it < 30; it++ {
		d := 2 + r.IntN(3)
		k := 2 + r.IntN(4)
		x := mat.NewDense(2*k, d, nil)
		y := make([]float64, 2*k)
		w := make([]float64, 2*k)
		for p := 0; p < k; p++ {
			z := unit(r, d)
			c := math.Pow(10, -1+2*r.Float64())
			x.SetRow(2*p, z)
			floats.Scale(c, z)
			x.SetRow(2*p+1, z)
			y[2*p], y[2*p+1] = 1, -1
			w[2*p], w[2*p+1] = math.Pow(10, -3+6*r.Float64()), math.Pow(10, -3+6*r.Float64())
		}
		mn, err := numerics.MinimizeNonSep(x, y, w)
		require.NoError(t, err, "instance %d", it)
		g := make([]float64, d)
		var f, scale float64
		for i := range y {
			xi := x.RawRowView(i)
			e := w[i] * math.Exp(-y[i]*floats.Dot(mn.Theta, xi))
			f += e
			floats.AddScaled(g, -y[i]*e, xi)
			scale += e * floats.Norm(xi, 2)
		}
		assert.LessOrEqual(t, floats.Norm(g, 2), 1e-9*scale, "instance %d", it)
		assert.InDelta(t, f, mn.Objective, 1e-13*f, "instance %d", it)
	}
}

// TestMinimizeNonSepIterationCap: Newton's method gives up after 200
// iterations unless the decrement is below 1e-20·F by then. On the line, with
// z = ±1 and weights 1e200 and 1, F(c) = 1e200·e^{−c} + e^c has its minimum
// at c = 100·ln 10 ≈ 230; from 0, while 1e200·e^{−c} ≫ e^c, the Newton step
// is about 1 (gradient over Hessian of the exponential), taken in full, and
// λ² ≈ F: about 230 iterations would be needed. With 1e20 (c = 10·ln 10 ≈
// 23) the minimum is reached well within the cap. (Far out, at c ≳ 90, the
// rounding of e^{±c}, c·ε relative, keeps λ² near 1e-28·F, and the method
// may run to the cap and pass its 1e-20·F test instead.)
func TestMinimizeNonSepIterationCap(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, -1})
	y := []float64{1, 1}
	_, err := numerics.MinimizeNonSep(x, y, []float64{1e200, 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Newton did not converge")
	mn, err := numerics.MinimizeNonSep(x, y, []float64{1e20, 1})
	require.NoError(t, err)
	assert.InDelta(t, 10*math.Ln10, mn.Theta[0], 1e-13*10*math.Ln10)
	assert.Less(t, mn.Iterations, 200)
}

// TestMinimizeNonSepExtremeWeights: on the line with z = ±1 and weights
// 10^k and 1, θ̃ = (k/2)·ln 10, for k from 100 to 170 (140 to 200 Newton
// iterations). At such c the rounding of e^{±c} (c·ε relative) puts the
// decrement's floor near 1e-28·F, and on about a third of these k Newton
// stalls above it: the run goes to the cap of 200 iterations, where a
// decrement below 1e-20·F is accepted as converged to working precision.
func TestMinimizeNonSepExtremeWeights(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, -1})
	for k := 100.0; k <= 170; k += 2.5 {
		mn, err := numerics.MinimizeNonSep(x, []float64{1, 1}, []float64{math.Pow(10, k), 1})
		require.NoError(t, err, "k = %v", k)
		want := k / 2 * math.Ln10
		assert.InDelta(t, want, mn.Theta[0], 1e-15*want, "k = %v", k)
	}
}

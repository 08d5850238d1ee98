package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// quadratic returns f(x) = c + ½(x − x*)ᵀA(x − x*) with A = Q diag(1…κ) Qᵀ
// (Q a random rotation) and its gradient.
func quadratic(r *rand.Rand, p int, kappa, c float64) (fg func(x, g []float64) (float64, error), xs []float64) {
	var qr mat.QR
	m := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			m.Set(i, j, r.NormFloat64())
		}
	}
	qr.Factorize(m)
	var q mat.Dense
	qr.QTo(&q)
	d := mat.NewDiagDense(p, nil)
	for i := 0; i < p; i++ {
		d.SetDiag(i, math.Pow(kappa, float64(i)/float64(p-1)))
	}
	var a mat.Dense
	a.Product(&q, d, q.T())
	xs = make([]float64, p)
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	diff := make([]float64, p)
	return func(x, g []float64) (float64, error) {
		floats.SubTo(diff, x, xs)
		gv := mat.NewVecDense(p, g)
		gv.MulVec(&a, mat.NewVecDense(p, diff))
		return c + 0.5*floats.Dot(diff, g), nil
	}, xs
}

// TestBFGSQuadratic: on a strictly convex quadratic in p = 8 variables with
// condition number 100, BFGS (the inverse-Hessian update with Armijo
// backtracking, Nocedal & Wright §6.1) reaches ‖∇f‖∞ ≤ 1e-10 in a few
// multiples of p iterations — superlinear convergence; gradient descent with
// the same line search needs O(κ log(1/tol)) ≈ 2000 — and at the minimizer.
// With f* = 1e8 the decrease near the end (≈ 1e-20) is far below the
// rounding of f (1e-8): the gradient test of flat steps must carry the
// search to the threshold all the same.
func TestBFGSQuadratic(t *testing.T) {
	const p = 8
	for _, c := range []float64{0, 1e8} {
		r := rand.New(rand.NewPCG(7, 8))
		fg, xs := quadratic(r, p, 100, c)
		x := make([]float64, p)
		res, err := bfgs(x, fg, 1e-10, 10000)
		require.NoError(t, err, "f* = %g", c)
		assert.LessOrEqual(t, res.GradNorm, 1e-10)
		// ‖x − x*‖ ≤ ‖∇f‖/λ_min = ‖∇f‖ (λ_min = 1), ‖∇f‖₂ ≤ √p‖∇f‖∞.
		floats.Sub(x, xs)
		assert.LessOrEqual(t, floats.Norm(x, 2), math.Sqrt(p)*1e-10, "f* = %g", c)
		// 10p separates superlinear from linear convergence: BFGS with
		// exact line searches ends in p steps on a quadratic (N&W §6.1);
		// unit steps and backtracking cost a few p more (36 here), while
		// steepest descent needs about κ·log(‖∇f(0)‖/tol) ≈ 2500.
		assert.LessOrEqual(t, res.Iterations, 10*p, "f* = %g", c)
		assert.GreaterOrEqual(t, res.Iterations, 1)
		t.Logf("f* = %g: %d iterations", c, res.Iterations)
	}
}

// TestBFGSValueBelowRounding: f = 1e8 + ½(x − x*)ᵀA(x − x*) evaluated
// with a drift of 2e-8 per call (more than an ulp of 1e8, 1.5e-8: a stand-in
// for rounding that hides every decrease below it), the gradient exact — the
// situation of log(𝓛 + R) near its minimum, whose value carries the
// rounding of sums and logarithms. Armijo's test cannot see the last
// decreases (≈ 1e-20) under it; the flat-step rule (accept a step that does
// not increase ‖∇f‖ when the predicted decrease is below 1e-12·|f|) carries
// BFGS to ‖∇f‖∞ ≤ 1e-10 all the same.
func TestBFGSValueBelowRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fg, xs := quadratic(r, 8, 100, 1e8)
	calls := 0
	drift := func(x, g []float64) (float64, error) {
		f, err := fg(x, g)
		calls++
		return f + 2e-8*float64(calls), err
	}
	x := make([]float64, 8)
	res, err := bfgs(x, drift, 1e-10, 10000)
	require.NoError(t, err)
	assert.LessOrEqual(t, res.GradNorm, 1e-10)
	floats.Sub(x, xs)
	assert.LessOrEqual(t, floats.Norm(x, 2), math.Sqrt(8)*1e-10)
}

// TestBFGSLimits: MaxIterations ends the run with an error naming the count
// (and the result of that iteration); a gradient that does not match f (its
// sign flipped: no step along "descent" decreases f) ends in a line-search
// failure after the documented 60 halvings (refBFGS), not in a loop.
func TestBFGSLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fg, _ := quadratic(r, 4, 10, 0)
	x := make([]float64, 4)
	res, err := bfgs(x, fg, 1e-10, 2)
	assert.ErrorContains(t, err, "after 2 iterations")
	require.NotNil(t, res)
	assert.Equal(t, 2, res.Iterations)

	wrong := func(x, g []float64) (float64, error) {
		f, err := fg(x, g)
		floats.Scale(-1, g)
		return f, err
	}
	x = make([]float64, 4)
	calls := 0
	counted := func(x, g []float64) (float64, error) {
		calls++
		return wrong(x, g)
	}
	_, err = bfgs(x, counted, 1e-10, 100)
	assert.ErrorContains(t, err, "line search failed")
	// The first evaluation and the 60 trials of the failed search, as the
	// reference makes them.
	assert.Equal(t, len(refBFGS(make([]float64, 4), wrong, 1e-10, 100)), calls)

	obj := linearObjective(t, linearData(), "logistic")
	obj.Reg = L2{Mu: 1}
	mres, err := Minimize(obj, []float64{1, 1}, &MinimizeSettings{MaxIterations: 1})
	assert.ErrorContains(t, err, "after 1 iterations")
	assert.Equal(t, 1, mres.Iterations)
	// A zero GradTol in settings means the default, not a threshold of 0:
	// the same run as with nil settings.
	full, err := Minimize(obj, []float64{1, 1}, &MinimizeSettings{MaxIterations: 1000})
	require.NoError(t, err)
	def, err := Minimize(obj, []float64{1, 1}, nil)
	require.NoError(t, err)
	assert.Equal(t, def, full)
	mres, err = Minimize(obj, []float64{1, 1}, &MinimizeSettings{GradTol: 1e-2})
	require.NoError(t, err)
	assert.LessOrEqual(t, mres.GradNorm, 1e-2)
	assert.Less(t, mres.Iterations, full.Iterations, "a looser threshold stops earlier")
}

// refBFGS is the method Minimize documents, written from Nocedal & Wright
// (2006) independently of bfgs: the inverse-Hessian update in its product
// form (eq. 6.17), H ← (I − ρsyᵀ)H(I − ρysᵀ) + ρssᵀ, skipped when sᵀy ≤ 0;
// H₀ = I scaled by sᵀy/yᵀy before the first update (eq. 6.20); a restart from
// −g when −Hg is not a descent direction; backtracking by halving (at most 60
// trials) on Armijo's condition with c₁ = 10⁻⁴, or — when the predicted
// decrease is below 1e-12·max(1, |f|) — on ‖∇f‖ not increasing. It returns
// every point at which it evaluated f.
func refBFGS(x []float64, fg func(x, g []float64) (float64, error), tol float64, maxIt int) [][]float64 {
	p := len(x)
	var pts [][]float64
	eval := func(at, g []float64) float64 {
		pts = append(pts, append([]float64(nil), at...))
		f, _ := fg(at, g)
		return f
	}
	eye := mat.NewDiagDense(p, nil)
	for i := 0; i < p; i++ {
		eye.SetDiag(i, 1)
	}
	H := mat.DenseCopyOf(eye)
	g := make([]float64, p)
	f := eval(x, g)
	first := true
	for it := 0; it < maxIt && floats.Norm(g, math.Inf(1)) > tol; it++ {
		var dv mat.VecDense
		dv.MulVec(H, mat.NewVecDense(p, g))
		d := make([]float64, p)
		floats.ScaleTo(d, -1, dv.RawVector().Data)
		slope := floats.Dot(d, g)
		if !(slope < 0) {
			H = mat.DenseCopyOf(eye)
			first = true
			floats.ScaleTo(d, -1, g)
			slope = -floats.Dot(g, g)
		}
		flat := -slope <= 1e-12*math.Max(1, math.Abs(f))
		xt, gt := make([]float64, p), make([]float64, p)
		ok := false
		for try, step := 0, 1.0; try < 60; try, step = try+1, step/2 {
			floats.AddScaledTo(xt, x, step, d)
			ft := eval(xt, gt)
			if ft <= f+1e-4*step*slope || flat && floats.Norm(gt, 2) <= floats.Norm(g, 2) {
				f, ok = ft, true
				break
			}
		}
		if !ok {
			return pts
		}
		s, y := make([]float64, p), make([]float64, p)
		floats.SubTo(s, xt, x)
		floats.SubTo(y, gt, g)
		copy(x, xt)
		copy(g, gt)
		sy := floats.Dot(s, y)
		if !(sy > 0) {
			continue
		}
		if first {
			H.Scale(sy/floats.Dot(y, y), H)
			first = false
		}
		rho := 1 / sy
		sv, yv := mat.NewVecDense(p, s), mat.NewVecDense(p, y)
		var a, syT, left, prod mat.Dense
		syT.Outer(rho, sv, yv)
		left.Sub(eye, &syT) // I − ρsyᵀ
		prod.Mul(&left, H)
		a.Mul(&prod, left.T()) // (I − ρsyᵀ)H(I − ρysᵀ)
		var ss mat.Dense
		ss.Outer(rho, sv, sv)
		a.Add(&a, &ss)
		H = &a
	}
	return pts
}

// TestBFGSAgainstReference: bfgs evaluates f at the same points as
// refBFGS, the documented method written independently (they differ only
// in the rounding of the update's expanded vs product form: 1e-9 relative
// over a whole run), on the ill-conditioned quadratic (whose first unit
// steps overshoot and backtrack), on the same with f* = 1e8 (near x* f is
// constant to rounding: the tie-breaking of Armijo's ≤ and the flat rule
// decide), on a 1-D quadratic whose first unit step raises f slightly, and
// on the log of a regularized logistic risk.
func TestBFGSAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	quad, _ := quadratic(r, 6, 100, 0)
	high, _ := quadratic(r, 6, 100, 1e8) // f constant to rounding near x*: Armijo's ≤ decides ties
	obj := linearObjective(t, separableData(r, 8, 4), "logistic")
	obj.Reg = L2{Mu: 0.05}
	risk := func(x, g []float64) (float64, error) {
		ev, err := obj.Evaluate(x, true)
		if err != nil {
			return 0, err
		}
		copy(g, ev.Dir)
		return ev.LogObjective, nil
	}
	for name, tc := range map[string]struct {
		fg func(x, g []float64) (float64, error)
		x0 []float64
	}{
		"quadratic": {quad, []float64{1, -1, 2, 0, 0.5, -2}},
		"f* = 1e8":  {high, []float64{1, -1, 2, 0, 0.5, -2}},
		// f = ½a x² with a just above 2: the first unit step lands at
		// −(a − 1)x, raising f by 2e-5·f, less than 1e-4·|slope|: Armijo's
		// sufficient decrease rejects it.
		"overshoot": {func(x, g []float64) (float64, error) {
			g[0] = 2.00001 * x[0]
			return 0.5 * 2.00001 * x[0] * x[0], nil
		}, []float64{1}},
		"logistic": {risk, []float64{0.3, -0.2, 0.1, 0.4}},
	} {
		var got [][]float64
		rec := func(x, g []float64) (float64, error) {
			got = append(got, append([]float64(nil), x...))
			return tc.fg(x, g)
		}
		_, err := bfgs(append([]float64(nil), tc.x0...), rec, 1e-10, 10000)
		require.NoError(t, err, name)
		want := refBFGS(append([]float64(nil), tc.x0...), tc.fg, 1e-10, 10000)
		require.Equal(t, len(want), len(got), name)
		for k := range want {
			for i := range want[k] {
				require.InDelta(t, want[k][i], got[k][i], 1e-9*(1+math.Abs(want[k][i])), "%s: evaluation %d, coordinate %d", name, k, i)
			}
		}
	}
}

package numerics_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

func randMatrix(r *rand.Rand, m, n int) *mat.Dense {
	a := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, r.NormFloat64())
		}
	}
	return a
}

// bruteNNLS solves min ‖Ax − b‖, x ≥ 0 by enumerating every support: the
// optimum is the unconstrained least-squares solution on some subset of
// columns that happens to be ≥ 0 (an independent reference for small n).
func bruteNNLS(a *mat.Dense, b []float64) float64 {
	m, n := a.Dims()
	best := floats.Norm(b, 2)
	for mask := 1; mask < 1<<n; mask++ {
		var cols []int
		for j := 0; j < n; j++ {
			if mask&(1<<j) != 0 {
				cols = append(cols, j)
			}
		}
		if len(cols) > m {
			continue
		}
		sub := mat.NewDense(m, len(cols), nil)
		for i := 0; i < m; i++ {
			for k, j := range cols {
				sub.Set(i, k, a.At(i, j))
			}
		}
		var x mat.VecDense
		if err := x.SolveVec(sub, mat.NewVecDense(m, b)); err != nil {
			continue
		}
		if floats.Min(x.RawVector().Data) < 0 {
			continue
		}
		var r mat.VecDense
		r.MulVec(sub, &x)
		r.SubVec(&r, mat.NewVecDense(m, b))
		best = math.Min(best, mat.Norm(&r, 2))
	}
	return best
}

// TestNNLSAgainstEnumeration compares NNLS with the enumeration of all
// supports on random tall, square and wide problems, and checks the KKT
// conditions x ≥ 0, w ≤ tol off the support, |w| ≤ tol on it.
func TestNNLSAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 300; trial++ {
		m, n := 1+r.IntN(8), 1+r.IntN(7)
		a := randMatrix(r, m, n)
		b := make([]float64, m)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		res, err := numerics.NNLS(a, b, nil)
		require.NoError(t, err)
		want := bruteNNLS(a, b)
		// Both are QR least-squares solves on the same support: they agree
		// to a few ε·cond; 1e-10 relative to ‖b‖ is far above that.
		require.InDelta(t, want, res.Residual, 1e-10*floats.Norm(b, 2), "trial %d (%d×%d)", trial, m, n)
		for j, x := range res.X {
			require.GreaterOrEqual(t, x, 0.0)
			if x > 0 {
				assert.InDelta(t, 0, res.Dual[j], 1e-10*floats.Norm(b, 2))
			} else {
				assert.LessOrEqual(t, res.Dual[j], 1e-10*floats.Norm(b, 2))
			}
		}
		// The reported residual is ‖Ax − b‖ of the returned x.
		var ax mat.VecDense
		ax.MulVec(a, mat.NewVecDense(n, res.X))
		ax.SubVec(&ax, mat.NewVecDense(m, b))
		require.InDelta(t, mat.Norm(&ax, 2), res.Residual, 1e-12*floats.Norm(b, 2))
	}
}

// TestNNLSConeMember: b = A x* with x* ≥ 0 has residual 0 (to rounding) on
// a tall matrix, whose QR reduction is used.
func TestNNLSConeMember(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	a := randMatrix(r, 200, 12)
	xs := make([]float64, 12)
	for i := range xs {
		if i%3 != 0 {
			xs[i] = r.Float64()
		}
	}
	var b mat.VecDense
	b.MulVec(a, mat.NewVecDense(12, xs))
	res, err := numerics.NNLS(a, b.RawVector().Data, nil)
	require.NoError(t, err)
	assert.Less(t, res.Residual, 1e-12*mat.Norm(&b, 2))
	for i := range xs {
		assert.InDelta(t, xs[i], res.X[i], 1e-12)
	}
	assert.Equal(t, []int{1, 2, 4, 5, 7, 8, 10, 11}, res.Passive)
}

func TestNNLSErrors(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	_, err := numerics.NNLS(a, []float64{1}, nil)
	assert.ErrorIs(t, err, numerics.ErrNNLSInput)
	_, err = numerics.NNLS(a, []float64{1, math.NaN()}, nil)
	assert.ErrorIs(t, err, numerics.ErrNNLSInput)
	_, err = numerics.NNLS(mat.NewDense(1, 2, []float64{1, math.Inf(1)}), []float64{1}, nil)
	assert.ErrorIs(t, err, numerics.ErrNNLSInput)

	// One iteration cannot bring two columns in.
	_, err = numerics.NNLS(a, []float64{1, 2}, &numerics.NNLSSettings{MaxIter: 1})
	var nc *numerics.NNLSNotConvergedError
	require.True(t, errors.As(err, &nc), "%v", err)
	assert.Equal(t, 1, nc.Iterations)
	assert.InDelta(t, 1, nc.Residual, 1e-15) // x = (0, 2): residual ‖(1, 0)‖
	assert.Contains(t, err.Error(), "did not converge")
}

// TestNNLSZeroB: b = 0 gives x = 0 at once.
func TestNNLSZeroB(t *testing.T) {
	res, err := numerics.NNLS(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}), []float64{0, 0}, nil)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0, 0}, res.X)
	assert.Equal(t, 0.0, res.Residual)
}

func BenchmarkNNLS(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	a := randMatrix(r, 500, 40)
	rhs := make([]float64, 500)
	for i := range rhs {
		rhs[i] = r.NormFloat64()
	}
	var sink float64
	b.ReportAllocs()
	for b.Loop() {
		res, err := numerics.NNLS(a, rhs, nil)
		if err != nil {
			b.Fatal(err)
		}
		sink += res.Residual
	}
	_ = sink
}

// lawsonHanson is a plain transcription of Lawson and Hanson's NNLS
// algorithm (1974, ch. 23, Algorithm 23.10), solving each sub-problem on
// the passive columns of A itself by gonum's least-squares solve, for
// comparison with NNLS's iterations.
func lawsonHanson(a *mat.Dense, b []float64, tol float64) (x []float64, passive []int, iters int) {
	m, n := a.Dims()
	x = make([]float64, n)
	inP := make([]bool, n)
	rejected := make([]bool, n)
	ls := func() []float64 {
		var idx []int
		for j := range n {
			if inP[j] {
				idx = append(idx, j)
			}
		}
		z := make([]float64, n)
		ap := mat.NewDense(m, len(idx), nil)
		for jj, j := range idx {
			for i := range m {
				ap.Set(i, jj, a.At(i, j))
			}
		}
		var sol mat.VecDense
		if err := sol.SolveVec(ap, mat.NewVecDense(m, b)); err != nil {
			panic(err)
		}
		for jj, j := range idx {
			z[j] = sol.AtVec(jj)
		}
		return z
	}
	for {
		r := mat.NewVecDense(m, nil)
		r.MulVec(a, mat.NewVecDense(n, x))
		r.SubVec(mat.NewVecDense(m, b), r)
		w := mat.NewVecDense(n, nil)
		w.MulVec(a.T(), r)
		j := -1
		for k := range n {
			if !inP[k] && !rejected[k] && w.AtVec(k) > tol && (j < 0 || w.AtVec(k) > w.AtVec(j)) {
				j = k
			}
		}
		if j < 0 {
			break
		}
		iters++
		inP[j] = true
		z := ls()
		if z[j] <= 0 {
			inP[j], rejected[j] = false, true
			continue
		}
		clear(rejected)
		for {
			alpha, kmin := math.Inf(1), -1
			for k := range n {
				if inP[k] && z[k] <= 0 {
					if t := x[k] / (x[k] - z[k]); t < alpha {
						alpha, kmin = t, k
					}
				}
			}
			if kmin < 0 {
				break
			}
			for k := range n {
				if inP[k] {
					x[k] += alpha * (z[k] - x[k])
					if x[k] <= 0 {
						x[k], inP[k] = 0, false
					}
				}
			}
			x[kmin], inP[kmin] = 0, false
			z = ls()
		}
		for k := range n {
			x[k] = 0
			if inP[k] {
				x[k] = z[k]
			}
		}
	}
	for k := range n {
		if inP[k] {
			passive = append(passive, k)
		}
	}
	return x, passive, iters
}

// TestNNLSLawsonHanson: on random problems whose unconstrained solution has
// many negative entries (columns with a common component, b drawn
// independently), so that the inner loop cuts steps short and drops
// columns, NNLS takes the same iterations as the transcription of Lawson
// and Hanson above and ends on the same passive set and x.
func TestNNLSLawsonHanson(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	inner := 0
	for trial := range 200 {
		m, n := 8+r.IntN(8), 3+r.IntN(6)
		a := mat.NewDense(m, n, nil)
		common := make([]float64, m)
		for i := range common {
			common[i] = r.NormFloat64()
		}
		for i := range m {
			for j := range n {
				a.Set(i, j, common[i]+0.5*r.NormFloat64())
			}
		}
		b := make([]float64, m)
		for i := range b {
			b[i] = r.NormFloat64() + common[i]
		}
		const tol = 1e-10
		wantX, wantP, wantIt := lawsonHanson(a, b, tol)
		res, err := numerics.NNLS(a, b, &numerics.NNLSSettings{Tol: tol})
		require.NoError(t, err, "trial %d", trial)
		assert.Equal(t, wantIt, res.Iterations, "trial %d: iterations", trial)
		assert.Equal(t, wantP, res.Passive, "trial %d: passive set", trial)
		assert.InDeltaSlice(t, wantX, res.X, 1e-10, "trial %d: x", trial)
		if wantIt > len(wantP) {
			inner++
		}
	}
	t.Logf("%d of 200 problems dropped a column", inner)
}

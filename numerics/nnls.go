package numerics

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// NNLSSettings are the options of NNLS; a nil *NNLSSettings means the
// documented defaults.
type NNLSSettings struct {
	// MaxIter bounds the outer (column-adding) iterations; 0 means 3n, the
	// bound Lawson and Hanson suggest.
	MaxIter int
	// Tol is the threshold on the dual w_j = a_jᵀ(b − Ax) below which a
	// column is not added; 0 means 10·ε·max(m, n)·‖A‖₁·‖b‖₂, the rounding
	// level of w (MATLAB's lsqnonneg uses the same form without ‖b‖, which
	// makes it depend on the scale of b).
	Tol float64
}

// NNLSResult is the solution of a non-negative least-squares problem.
type NNLSResult struct {
	// X is the minimizer, x ≥ 0 (zero outside Passive).
	X []float64
	// Residual is ‖Ax − b‖₂.
	Residual float64
	// Dual is w = Aᵀ(b − Ax): w ≤ Tol off the passive set and w ≈ 0 on it
	// (the KKT conditions of the problem).
	Dual []float64
	// Passive lists the indices j with x_j > 0, sorted.
	Passive []int
	// Iterations counts the columns added.
	Iterations int
}

// NNLSNotConvergedError reports that NNLS reached its iteration limit; it
// carries the last iterate, which is feasible (x ≥ 0) but not optimal.
type NNLSNotConvergedError struct {
	Iterations int
	// Residual is ‖Ax − b‖₂ at the last iterate X.
	Residual float64
	// MaxDual is max_j w_j over the columns outside the passive set: how far
	// the iterate is from optimality.
	MaxDual float64
	X       []float64
}

func (e *NNLSNotConvergedError) Error() string {
	return fmt.Sprintf("numerics: NNLS did not converge in %d iterations (residual %.6g, max dual %.3g)", e.Iterations, e.Residual, e.MaxDual)
}

// ErrNNLSInput reports a malformed NNLS problem (shape mismatch, NaN or Inf).
var ErrNNLSInput = errors.New("numerics: NNLS input")

// NNLS solves the non-negative least-squares problem
//
//	minimize ‖Ax − b‖₂  s.t.  x ≥ 0
//
// with the active-set algorithm of Lawson and Hanson (Solving Least Squares
// Problems, 1974, ch. 23): columns enter the passive set one at a time, the
// one with the largest dual w_j = a_jᵀ(b − Ax); each unconstrained
// sub-problem on the passive set is solved by a QR factorization, and a
// step that would make a passive x_j negative is cut short at the boundary,
// which drops that column. At termination x is the exact least-squares
// solution on its passive set, so ‖Ax − b‖ is as accurate as a QR solve.
//
// When A has more rows than columns it is first reduced by a QR
// factorization A = QR, and the problem is solved on R with b replaced by
// Qᵀb; the part of b orthogonal to the columns of A is added back to the
// residual. Q is never formed: Qᵀb is applied from the Householder
// reflectors (reduceTall), so the cost is O(mn²) time and O(mn) memory once
// plus O(n³) per iteration — linear in m, the parameters of a KKT problem.
//
// It returns an error wrapping ErrNNLSInput for malformed input and a
// *NNLSNotConvergedError when the iteration limit is reached.
func NNLS(a mat.Matrix, b []float64, s *NNLSSettings) (*NNLSResult, error) {
	m, n := a.Dims()
	if m == 0 || n == 0 {
		return nil, fmt.Errorf("%w: A is %d×%d", ErrNNLSInput, m, n)
	}
	if len(b) != m {
		return nil, fmt.Errorf("%w: A has %d rows but b has %d entries", ErrNNLSInput, m, len(b))
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: b[%d] is %v", ErrNNLSInput, i, v)
		}
	}
	A := mat.DenseCopyOf(a)
	norm1 := 0.0
	for j := 0; j < n; j++ {
		c := 0.0
		for i := 0; i < m; i++ {
			v := A.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: A[%d,%d] is %v", ErrNNLSInput, i, j, v)
			}
			c += math.Abs(v)
		}
		norm1 = max(norm1, c)
	}
	maxIter, tol := 3*n, 10*0x1p-52*float64(max(m, n))*norm1*floats.Norm(b, 2)
	if s != nil {
		if s.MaxIter > 0 {
			maxIter = s.MaxIter
		}
		if s.Tol > 0 {
			tol = s.Tol
		}
	}

	// Reduce a tall A to its triangular factor: ‖Ax − b‖² = ‖Rx − c‖² + ‖b⊥‖²
	// with c = (Qᵀb)[:n] and b⊥ = b − Q_n c the part of b outside range(Q_n).
	R, c, perp := A, b, 0.0
	if m > n {
		R, c, perp = reduceTall(A, b)
	}
	rows := len(c)

	x := make([]float64, n)
	z := make([]float64, n)
	w := make([]float64, n)
	passive := make([]bool, n)
	resid := make([]float64, rows)
	// dual sets w = Rᵀ(c − Rx) (= Aᵀ(b − Ax)) and resid = c − Rx.
	// The loops read R's rows directly: At's bounds checks made dual the
	// largest cost of a KKT measurement.
	rr := R.RawMatrix()
	dual := func() {
		copy(resid, c)
		for i := 0; i < rows; i++ {
			row := rr.Data[i*rr.Stride : i*rr.Stride+n]
			for j, xj := range x {
				if xj != 0 {
					resid[i] -= row[j] * xj
				}
			}
		}
		clear(w)
		for i := 0; i < rows; i++ {
			floats.AddScaled(w, resid[i], rr.Data[i*rr.Stride:i*rr.Stride+n])
		}
	}
	// solve sets z to the least-squares solution on the passive columns
	// (zero elsewhere); false when that sub-problem is rank deficient. The
	// factor of the passive columns is updated, not recomputed (passiveQR).
	rt := mat.DenseCopyOf(R.T()) // rt's row j is column j of R
	fac := &passiveQR{c: c, a: func(j int) []float64 { return rt.RawRowView(j) }}
	solve := func() bool {
		clear(z)
		k := 0
		for _, p := range passive {
			if p {
				k++
			}
		}
		if k == 0 {
			return true
		}
		if k > rows {
			return false
		}
		fac.sync(passive)
		// A sub-problem whose columns are dependent to working precision
		// has no unique solution; Lawson–Hanson's selection rule keeps the
		// passive columns independent in exact arithmetic.
		return fac.solve(z, 1/(float64(rows)*0x1p-52))
	}

	iter := 0
	dual()
	rejected := make([]bool, n)
	for {
		// Pick the column with the largest dual among those not passive.
		j, best := -1, tol
		for k := 0; k < n; k++ {
			if !passive[k] && !rejected[k] && w[k] > best {
				j, best = k, w[k]
			}
		}
		if j < 0 {
			break
		}
		if iter >= maxIter {
			res := math.Hypot(floats.Norm(resid, 2), perp)
			return nil, &NNLSNotConvergedError{Iterations: iter, Residual: res, MaxDual: best, X: x}
		}
		iter++
		passive[j] = true
		ok := solve()
		if !ok || z[j] <= 0 {
			// Rounding made the entering column useless (dependent on the
			// passive ones, or with a non-positive coefficient): Lawson and
			// Hanson's rule is to set its dual to zero and try the next.
			passive[j] = false
			rejected[j] = true
			continue
		}
		clear(rejected)
		// Inner loop: move from x toward z, stopping where the first passive
		// x_k reaches 0; that column leaves the passive set.
		for inner := 0; ; inner++ {
			alpha, kmin := 2.0, -1
			for k := 0; k < n; k++ {
				if passive[k] && z[k] <= 0 {
					if t := x[k] / (x[k] - z[k]); t < alpha {
						alpha, kmin = t, k
					}
				}
			}
			if kmin < 0 {
				break
			}
			for k := 0; k < n; k++ {
				if passive[k] {
					x[k] += alpha * (z[k] - x[k])
					if x[k] <= 0 {
						x[k], passive[k] = 0, false
					}
				}
			}
			x[kmin], passive[kmin] = 0, false
			if !solve() || inner > n {
				// Rounding broke the invariant that passive columns are
				// independent: keep the last feasible iterate.
				copy(z, x)
				break
			}
		}
		copy(x, z)
		for k := range x {
			if !passive[k] {
				x[k] = 0
			}
		}
		dual()
	}
	res := &NNLSResult{X: x, Dual: w, Iterations: iter}
	res.Residual = math.Hypot(floats.Norm(resid, 2), perp)
	for j, p := range passive {
		if p && x[j] > 0 {
			res.Passive = append(res.Passive, j)
		}
	}
	return res, nil
}

// reduceTall factors the m×n matrix a (m > n, overwritten) as QR by
// Householder reflections (LAPACK's dgeqrf) and applies Qᵀ to b from the
// reflectors (dormqr) without forming Q, which would be m×m: it returns R
// (n×n), c = (Qᵀb)[:n] and ‖(Qᵀb)[n:]‖, the norm of b's part outside the
// column space of a (Q is orthogonal, so ‖Ax − b‖² = ‖Rx − c‖² + that²).
func reduceTall(a *mat.Dense, b []float64) (*mat.Dense, []float64, float64) {
	m, n := a.Dims()
	g := a.RawMatrix()
	tau := make([]float64, n)
	work := make([]float64, 1)
	lapack64.Geqrf(g, tau, work, -1)
	qb := blas64.General{Rows: m, Cols: 1, Stride: 1, Data: append([]float64(nil), b...)}
	lwork := int(work[0])
	lapack64.Ormqr(blas.Left, blas.Trans, g, tau, qb, work, -1)
	lwork = max(lwork, int(work[0]), 1)
	work = make([]float64, lwork)
	lapack64.Geqrf(g, tau, work, lwork)
	lapack64.Ormqr(blas.Left, blas.Trans, g, tau, qb, work, lwork)
	r := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			r.Set(i, j, a.At(i, j))
		}
	}
	return r, qb.Data[:n], floats.Norm(qb.Data[n:], 2)
}

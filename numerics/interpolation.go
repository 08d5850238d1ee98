package numerics

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Overparameterized least squares (ZD §4.1). X is n×d, row-major, one sample
// x_i per row, with n ≤ d and linearly independent rows. Every θ with
// θ − θ₀ ∈ span{x_i} that interpolates y is the same point,
//
//	θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀),
//
// the limit of gradient descent on ½Σ q_i(⟨θ, x_i⟩ − y_i)² from θ₀ for any
// positive weights q (ZD Thm 1). It is computed from the thin QR
// factorization Xᵀ = QR (Q d×n orthonormal, R n×n upper triangular): then
// XXᵀ = RᵀR and
//
//	θ* − θ₀ = Q·z,  Rᵀz = y − Xθ₀,  coef = (XXᵀ)⁻¹(y − Xθ₀) = R⁻¹z,
//
// which never forms XXᵀ, so the error is about κ(X)·ε rather than κ(X)²·ε.

// ErrShape reports inputs whose sizes do not fit together.
var ErrShape = errors.New("numerics: shape mismatch")

// RankDeficientError reports samples x_1…x_n that are not linearly
// independent (numerically): the smallest singular value of X is below
// max(n, d)·ε·σ_max, the rank threshold of LAPACK and numpy.matrix_rank.
// With n > d it is always the case.
type RankDeficientError struct {
	N, D int
	// Rank is the numerical rank of X.
	Rank int
	// SMin and SMax are the smallest and largest singular values of X.
	SMin, SMax float64
}

func (e *RankDeficientError) Error() string {
	if e.N > e.D {
		return fmt.Sprintf("numerics: %d samples in %d dimensions are linearly dependent (need n ≤ d for an interpolator in θ₀ + span{x_i})", e.N, e.D)
	}
	return fmt.Sprintf("numerics: the %d samples are linearly dependent: rank %d, smallest singular value %.3g of largest %.3g", e.N, e.Rank, e.SMin, e.SMax)
}

// NotPositiveDefiniteError reports a Gram system (XᵀQX + μI or its n×n
// counterpart) that Cholesky could not factor: μ is too small for the scale
// of X, or the weights are not finite.
type NotPositiveDefiniteError struct {
	Dim int
	Mu  float64
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("numerics: the %d×%d regularized Gram matrix with μ = %g is not numerically positive definite", e.Dim, e.Dim, e.Mu)
}

// RowSpan is the span of the rows x_1…x_n of an n×d matrix X with n ≤ d
// and independent rows, held as an orthonormal basis (the Q of Xᵀ = QR).
// It projects onto the span and solves interpolation problems. Its methods
// do not allocate except where they return a new slice.
type RowSpan struct {
	N, D int
	qt   []float64     // Qᵀ, n×d row-major: an orthonormal basis of span{x_i}, one vector per row
	r    *mat.TriDense // n×n upper triangular, Xᵀ = QR
	// SMin and SMax are the extreme singular values of X.
	SMin, SMax float64
	buf        []float64 // n
	buf2       []float64 // d
}

// NewRowSpan factors the n×d row-major matrix x. It returns a
// *RankDeficientError when the rows are not linearly independent.
func NewRowSpan(x []float64, n, d int) (*RowSpan, error) {
	if n < 1 || d < 1 || len(x) != n*d {
		return nil, fmt.Errorf("%w: X has %d entries, want n·d = %d·%d", ErrShape, len(x), n, d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("numerics: X[%d][%d] is %v", i/d, i%d, v)
		}
	}
	xm := mat.NewDense(n, d, append([]float64(nil), x...))
	var svd mat.SVD
	if !svd.Factorize(xm, mat.SVDNone) {
		return nil, fmt.Errorf("numerics: SVD of X did not converge")
	}
	sv := svd.Values(nil)
	smax := sv[0]
	smin := sv[len(sv)-1]
	tol := float64(max(n, d)) * 0x1p-52 * smax
	rank := 0
	for _, s := range sv {
		if s > tol {
			rank++
		}
	}
	if n > d {
		smin = 0
	}
	if n > d || rank < n || smax == 0 {
		return nil, &RankDeficientError{N: n, D: d, Rank: rank, SMin: smin, SMax: smax}
	}
	var qr mat.QR
	qr.Factorize(xm.T())
	var qFull, rFull mat.Dense
	qr.QTo(&qFull)
	qr.RTo(&rFull)
	s := &RowSpan{N: n, D: d, SMin: smin, SMax: smax, buf: make([]float64, n), buf2: make([]float64, d)}
	s.qt = make([]float64, n*d)
	for i := 0; i < d; i++ {
		for j := 0; j < n; j++ {
			s.qt[j*d+i] = qFull.At(i, j)
		}
	}
	s.r = mat.NewTriDense(n, mat.Upper, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.r.SetTri(i, j, rFull.At(i, j))
		}
	}
	return s, nil
}

// Project sets dst to the orthogonal projection of v onto span{x_i},
// Q(Qᵀv). dst and v may be the same slice.
func (s *RowSpan) Project(dst, v []float64) {
	s.coords(v)
	s.expand(dst)
}

// Orthogonal sets dst to the component of v orthogonal to span{x_i},
// v − Q(Qᵀv), and returns its norm. The projection is applied twice
// ("twice is enough", Giraud et al. 2005), so that the result is
// orthogonal to the span to working precision even when v lies almost in
// it; its absolute error is then a few ε‖v‖. dst and v may be the same.
func (s *RowSpan) Orthogonal(dst, v []float64) float64 {
	if &dst[0] != &v[0] {
		copy(dst, v)
	}
	for range 2 {
		s.coords(dst)
		s.expand(s.buf2)
		floats.Sub(dst, s.buf2)
	}
	return floats.Norm(dst, 2)
}

// coords sets s.buf = Qᵀv.
func (s *RowSpan) coords(v []float64) {
	for j := range s.buf {
		s.buf[j] = floats.Dot(s.qt[j*s.D:(j+1)*s.D], v)
	}
}

// expand sets dst = Q·s.buf.
func (s *RowSpan) expand(dst []float64) {
	clear(dst)
	for j, c := range s.buf {
		floats.AddScaled(dst, c, s.qt[j*s.D:(j+1)*s.D])
	}
}

// Interpolate sets theta to the interpolator θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀)
// of the samples x (the matrix the span was built from) and targets y,
// and returns coef = (XXᵀ)⁻¹(y − Xθ₀) (so θ* = θ₀ + Xᵀcoef). theta0 nil
// means 0; theta must not share memory with theta0.
func (s *RowSpan) Interpolate(theta []float64, x, y, theta0 []float64) (coef []float64, err error) {
	n, d := s.N, s.D
	if len(theta) != d || len(x) != n*d || len(y) != n || (theta0 != nil && len(theta0) != d) {
		return nil, fmt.Errorf("%w: θ has %d entries, X %d, y %d, θ₀ %d for n = %d, d = %d", ErrShape, len(theta), len(x), len(y), len(theta0), n, d)
	}
	// r0 = y − Xθ₀.
	r0 := make([]float64, n)
	for i := range r0 {
		r0[i] = y[i]
		if theta0 != nil {
			r0[i] -= floats.Dot(x[i*d:(i+1)*d], theta0)
		}
	}
	// Rᵀz = r0 (forward substitution), θ* − θ₀ = Qz.
	z := mat.NewVecDense(n, nil)
	if err := z.SolveVec(s.r.T(), mat.NewVecDense(n, r0)); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return nil, err
		}
		// A Condition error is a warning: the solve completed. The rank
		// test of NewRowSpan has already rejected singular X.
	}
	copy(s.buf, z.RawVector().Data)
	s.expand(theta)
	if theta0 != nil {
		floats.Add(theta, theta0)
	}
	// coef = R⁻¹z (back substitution).
	cv := mat.NewVecDense(n, nil)
	if err := cv.SolveVec(s.r, z); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return nil, err
		}
	}
	return cv.RawVector().Data, nil
}

// MinNormInterpolator returns θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀) for the n×d
// row-major x (θ₀ nil means 0): the point of θ₀ + span{x_i} that
// interpolates y, the limit of every GRW with vanishing risk (ZD Thm 1). It
// also returns coef = (XXᵀ)⁻¹(y − Xθ₀). Linearly dependent rows give a
// *RankDeficientError.
func MinNormInterpolator(x []float64, n, d int, y, theta0 []float64) (theta, coef []float64, err error) {
	s, err := NewRowSpan(x, n, d)
	if err != nil {
		return nil, nil, err
	}
	theta = make([]float64, d)
	coef, err = s.Interpolate(theta, x, y, theta0)
	if err != nil {
		return nil, nil, err
	}
	return theta, coef, nil
}

// RegularizedInterpolator returns the unique minimizer of
//
//	Σ_i q_i ½(⟨θ, x_i⟩ − y_i)² + (μ/2)‖θ − θ₀‖²,   μ > 0, q_i ≥ 0,
//
// that is θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀), Q = diag(q) (ZD §4.3; ZD writes
// X column-wise). With S = Q^{1/2} the push-through identity
// (XᵀQX + μI)⁻¹XᵀS = XᵀS(SXXᵀS + μI)⁻¹ lets it solve whichever Gram
// system is smaller:
//
//	n ≤ d:  θ = θ₀ + XᵀS·α,  (SXXᵀS + μI)α = S(y − Xθ₀)      (n×n)
//	n > d:  θ = θ₀ + δ,      (XᵀQX + μI)δ = XᵀQ(y − Xθ₀)     (d×d)
//
// both symmetric positive definite for μ > 0 and factored by Cholesky; the
// relative error is about κ·ε with κ = (‖X‖²·max q + μ)/μ. The weights are
// used as given (not normalized); theta0 nil means 0.
func RegularizedInterpolator(x []float64, n, d int, y, theta0, q []float64, mu float64) ([]float64, error) {
	if n < 1 || d < 1 || len(x) != n*d || len(y) != n || len(q) != n || (theta0 != nil && len(theta0) != d) {
		return nil, fmt.Errorf("%w: X has %d entries, y %d, q %d, θ₀ %d for n = %d, d = %d", ErrShape, len(x), len(y), len(q), len(theta0), n, d)
	}
	if !(mu > 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("numerics: μ must be a finite number > 0, got %v", mu)
	}
	for i, v := range q {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("numerics: weight q[%d] = %v; weights must be finite and ≥ 0", i, v)
		}
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("numerics: X[%d][%d] is %v", i/d, i%d, v)
		}
	}
	r0 := make([]float64, n)
	for i := range r0 {
		r0[i] = y[i]
		if theta0 != nil {
			r0[i] -= floats.Dot(x[i*d:(i+1)*d], theta0)
		}
	}
	theta := make([]float64, d)
	if theta0 != nil {
		copy(theta, theta0)
	}
	if n <= d {
		s := make([]float64, n)
		for i, v := range q {
			s[i] = math.Sqrt(v)
		}
		g := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				v := s[i] * s[j] * floats.Dot(x[i*d:(i+1)*d], x[j*d:(j+1)*d])
				if i == j {
					v += mu
				}
				g.SetSym(i, j, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(g) {
			return nil, &NotPositiveDefiniteError{Dim: n, Mu: mu}
		}
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = s[i] * r0[i]
		}
		alpha := mat.NewVecDense(n, nil)
		if err := ch.SolveVecTo(alpha, mat.NewVecDense(n, rhs)); err != nil && !isCondition(err) {
			return nil, err
		}
		for i := 0; i < n; i++ {
			floats.AddScaled(theta, s[i]*alpha.AtVec(i), x[i*d:(i+1)*d])
		}
		return theta, nil
	}
	g := mat.NewSymDense(d, nil)
	rhs := make([]float64, d)
	for i := 0; i < n; i++ {
		xi := x[i*d : (i+1)*d]
		g.SymRankOne(g, q[i], mat.NewVecDense(d, xi))
		floats.AddScaled(rhs, q[i]*r0[i], xi)
	}
	for j := 0; j < d; j++ {
		g.SetSym(j, j, g.At(j, j)+mu)
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return nil, &NotPositiveDefiniteError{Dim: d, Mu: mu}
	}
	delta := mat.NewVecDense(d, nil)
	if err := ch.SolveVecTo(delta, mat.NewVecDense(d, rhs)); err != nil && !isCondition(err) {
		return nil, err
	}
	floats.Add(theta, delta.RawVector().Data)
	return theta, nil
}

func isCondition(err error) bool {
	var c mat.Condition
	return errors.As(err, &c)
}

package numerics

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// SVMSettings are the options of HardMarginSVM and KernelSVM; a nil
// *SVMSettings means the documented defaults.
type SVMSettings struct {
	// Tol is the KKT residual the solution must reach (see SVM.KKTResidual);
	// 0 means DefaultSVMTol.
	Tol float64
	// SeparabilityTol is the normalized margin below which data are reported
	// as not separable; 0 means DefaultSeparabilityTol.
	SeparabilityTol float64
}

const (
	// DefaultSVMTol is the default KKT residual of the SVM solvers. The
	// exact polish solves the equality-constrained problem on the support
	// by a Cholesky factorization with iterative refinement, whose error is
	// a few ε·cond(Q_SS); 1e-10 leaves room for cond up to ~1e5.
	DefaultSVMTol = 1e-10
	// DefaultSeparabilityTol is the default threshold on the margin relative
	// to max_n ‖x_n‖: below it the least-distance problem's residual is
	// within a few thousand ulps of zero and separable data cannot be told
	// from non-separable data in double precision.
	DefaultSeparabilityTol = 1e-9
)

// SVM is the solution of the hard-margin SVM without intercept,
//
//	minimize ½‖w‖²  s.t.  y_n ⟨w, φ(x_n)⟩ ≥ 1,  n = 1…N,
//
// and of its dual
//
//	maximize Σ_n α_n − ½ αᵀQα  s.t.  α ≥ 0,   Q_nm = y_n y_m ⟨φ(x_n), φ(x_m)⟩,
//
// with w = Σ_n α_n y_n φ(x_n).
type SVM struct {
	// W is the primal solution. For HardMarginSVM φ(x) = x and W ∈ ℝ^d. For
	// KernelSVM it is expressed in the eigen-coordinates of the kernel: with
	// K = VΛVᵀ, φ(x_n) is row n of VΛ^{1/2}, an isometric picture of the
	// span of the feature vectors, so ‖W‖ and ⟨W, φ(x_n)⟩ are those of the
	// kernel's feature space.
	W []float64
	// Alpha is the dual solution, α ≥ 0.
	Alpha []float64
	// Support lists the indices with α_n > 0, sorted.
	Support []int
	// NormSq is ‖w‖² = αᵀQα (= Σ_n α_n at the optimum).
	NormSq float64
	// Margin is 1/‖w‖, the maximal normalized margin
	// max_{‖u‖=1} min_n y_n⟨u, φ(x_n)⟩.
	Margin float64
	// Decision holds ⟨w, φ(x_n)⟩ for every sample.
	Decision []float64
	// KKTResidual is the largest of the primal infeasibility
	// max_n (1 − y_n⟨w, φ(x_n)⟩)₊ and the complementarity
	// max_n α_n |y_n⟨w, φ(x_n)⟩ − 1| / max_n α_n (w = Σα_n y_n φ(x_n) and
	// α ≥ 0 hold by construction).
	KKTResidual float64
}

// Direction returns W/‖W‖.
func (s *SVM) Direction() []float64 {
	d := append([]float64(nil), s.W...)
	floats.Scale(1/floats.Norm(d, 2), d)
	return d
}

// ErrNotSeparable is matched (errors.Is) by a *NotSeparableError.
var ErrNotSeparable = errors.New("numerics: data are not separable by a hyperplane through the origin")

// NotSeparableError reports data that no w separates: by Gordan's
// alternative, 0 is then a convex combination of the signed points,
//
//	Σ_n u_n y_n φ(x_n) = 0,  u ≥ 0,  Σ_n u_n = 1,
//
// and Certificate holds such a u.
type NotSeparableError struct {
	Certificate []float64
	// Residual is ‖Σ_n u_n y_n φ(x_n)‖ / max_n ‖φ(x_n)‖: how close to 0 the
	// certificate's combination is (rounding level for truly non-separable
	// data; at most SeparabilityTol in any case).
	Residual float64
}

func (e *NotSeparableError) Error() string {
	return fmt.Sprintf("data are not separable by a hyperplane through the origin (certificate: a convex combination of the signed samples with norm %.2g of the largest)", e.Residual)
}

// Is reports whether target is ErrNotSeparable.
func (e *NotSeparableError) Is(target error) bool { return target == ErrNotSeparable }

// SVMNotConvergedError reports a solution whose KKT residual stayed above
// the tolerance (a degenerate problem with more support vectors than the
// rank of the features); Solution is the best one found.
type SVMNotConvergedError struct {
	KKTResidual, Tol float64
	Solution         *SVM
}

func (e *SVMNotConvergedError) Error() string {
	return fmt.Sprintf("numerics: SVM reached KKT residual %.3g, above the tolerance %.3g (degenerate support?)", e.KKTResidual, e.Tol)
}

// ErrSVMInput reports malformed SVM input.
var ErrSVMInput = errors.New("numerics: SVM input")

// HardMarginSVM solves the hard-margin SVM without intercept for the rows
// x_n of x (N×d) and labels y_n ∈ {−1, +1}.
//
// Method: the primal is a least-distance problem, min ‖w‖ s.t. Zw ≥ 1 with
// z_n = y_n x_n, which Lawson and Hanson (1974, ch. 23) reduce to the
// non-negative least-squares problem
//
//	minimize ‖E u − e_{d+1}‖  s.t.  u ≥ 0,   E = [Zᵀ; 1ᵀ]  ((d+1)×N).
//
// If the residual r = Eu − e_{d+1} is zero the constraints are
// inconsistent (u/Σu is Gordan's certificate); otherwise w = Zᵀu/‖r‖² and
// α = u/‖r‖². The support found this way is then polished exactly: α_S
// solves Q_SS α_S = 1 (Cholesky with iterative refinement), with an
// active-set loop that drops a negative α_n or adds a violated constraint
// until the KKT conditions hold to SVMSettings.Tol.
//
// Errors: ErrSVMInput (wrapped) for malformed input, *NotSeparableError,
// *SVMNotConvergedError.
func HardMarginSVM(x mat.Matrix, y []float64, s *SVMSettings) (*SVM, error) {
	n, d := x.Dims()
	if err := checkLabels(n, y); err != nil {
		return nil, err
	}
	z := mat.NewDense(n, d, nil)
	at := x.At
	if t, ok := x.(mat.Transpose); ok {
		if dense, ok := t.Matrix.(*mat.Dense); ok {
			// A transposed dense matrix (the KKT gradients, P×N, read as
			// N×P): read its storage directly, the same values.
			raw := dense.RawMatrix()
			at = func(i, j int) float64 { return raw.Data[j*raw.Stride+i] }
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := at(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: x[%d,%d] is %v", ErrSVMInput, i, j, v)
			}
			z.Set(i, j, y[i]*v)
		}
	}
	p := &svmProblem{n: n, y: y, z: z}
	sol, err := p.solve(s)
	if sol != nil {
		// w = Zᵀα.
		w := mat.NewVecDense(d, nil)
		w.MulVec(z.T(), mat.NewVecDense(n, sol.Alpha))
		sol.W = w.RawVector().Data
	}
	return sol, err
}

// KernelSVM solves the hard-margin SVM without intercept for a kernel
// matrix K_nm = ⟨φ(x_n), φ(x_m)⟩ (N×N, positive semi-definite) and labels
// y_n ∈ {−1, +1}, by the method of HardMarginSVM on the features
// φ(x_n) = row n of VΛ^{1/2} (K = VΛVᵀ), with the exact polish done on K
// itself. K's eigenvalues must be ≥ −1e-10·λ_max (rounding); smaller
// negative ones are an error.
func KernelSVM(k mat.Symmetric, y []float64, s *SVMSettings) (*SVM, error) {
	n := k.SymmetricDim()
	if err := checkLabels(n, y); err != nil {
		return nil, err
	}
	kk := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := k.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: K[%d,%d] is %v", ErrSVMInput, i, j, v)
			}
			kk.SetSym(i, j, v)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(kk, true) {
		return nil, fmt.Errorf("%w: eigendecomposition of K failed", ErrSVMInput)
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	// K = 0 (λ_max = 0) passes both tests below and gives zero features,
	// which the least-distance stage reports as not separable; a K with
	// λ_max < 0 fails the first.
	lmax := floats.Max(vals)
	// The rounding of a symmetric eigensolver is about n·ε·λ_max; 1e-10
	// leaves room for kernels that were themselves rounded sums.
	if lmin := floats.Min(vals); lmin < -1e-10*lmax {
		return nil, fmt.Errorf("%w: K is not positive semi-definite (eigenvalue %.3g, largest %.3g)", ErrSVMInput, lmin, lmax)
	}
	// Eigenvalues within the solver's rounding (about n·ε·λ_max) of 0 are
	// 0: a kernel of rank r < n must give features of rank r, or the square
	// root of a rounding error (√1e-16 = 1e-8) would tell apart samples that
	// the kernel does not.
	floor := 16 * float64(n) * 0x1p-52 * lmax
	z := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if vals[j] > floor {
				z.Set(i, j, y[i]*vecs.At(i, j)*math.Sqrt(vals[j]))
			}
		}
	}
	p := &svmProblem{n: n, y: y, z: z, k: kk}
	sol, err := p.solve(s)
	if sol != nil {
		w := mat.NewVecDense(n, nil)
		w.MulVec(z.T(), mat.NewVecDense(n, sol.Alpha))
		sol.W = w.RawVector().Data
	}
	return sol, err
}

func checkLabels(n int, y []float64) error {
	if n == 0 {
		return fmt.Errorf("%w: no samples", ErrSVMInput)
	}
	if len(y) != n {
		return fmt.Errorf("%w: %d samples but %d labels", ErrSVMInput, n, len(y))
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return fmt.Errorf("%w: label %d is %v, want −1 or +1", ErrSVMInput, i, v)
		}
	}
	return nil
}

func uniform(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / float64(n)
	}
	return u
}

// svmProblem holds the signed features z_n = y_n φ(x_n) (rows of z) and,
// for a kernel, K itself, which the exact polish uses.
type svmProblem struct {
	n int
	y []float64
	z *mat.Dense
	k *mat.SymDense // nil: Q = ZZᵀ
}

// q returns Q_nm = y_n y_m ⟨φ_n, φ_m⟩.
func (p *svmProblem) q(i, j int) float64 {
	if p.k != nil {
		return p.y[i] * p.y[j] * p.k.At(i, j)
	}
	return mat.Dot(p.z.RowView(i), p.z.RowView(j))
}

// margins returns Qα (the values y_n⟨w, φ_n⟩).
func (p *svmProblem) margins(alpha []float64) []float64 {
	out := make([]float64, p.n)
	if p.k != nil {
		for i := 0; i < p.n; i++ {
			var s float64
			for j, a := range alpha {
				if a != 0 {
					s += p.y[j] * p.k.At(i, j) * a
				}
			}
			out[i] = p.y[i] * s
		}
		return out
	}
	_, d := p.z.Dims()
	w := mat.NewVecDense(d, nil)
	w.MulVec(p.z.T(), mat.NewVecDense(p.n, alpha))
	mv := mat.NewVecDense(p.n, out)
	mv.MulVec(p.z, w)
	return out
}

func (p *svmProblem) solve(s *SVMSettings) (*SVM, error) {
	tol, sepTol := DefaultSVMTol, DefaultSeparabilityTol
	if s != nil {
		if s.Tol > 0 {
			tol = s.Tol
		}
		if s.SeparabilityTol > 0 {
			sepTol = s.SeparabilityTol
		}
	}
	n, d := p.z.Dims()
	// Scale the features to max norm 1 so that the least-distance problem is
	// balanced: the margin of the scaled problem is relative to max ‖φ_n‖.
	zmax := 0.0
	for i := 0; i < n; i++ {
		zmax = max(zmax, mat.Norm(p.z.RowView(i), 2))
	}
	if zmax == 0 {
		return nil, &NotSeparableError{Certificate: uniform(n), Residual: 0}
	}
	sc := 1 / zmax
	e := mat.NewDense(d+1, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			e.Set(j, i, sc*p.z.At(i, j))
		}
		e.Set(d, i, 1)
	}
	f := make([]float64, d+1)
	f[d] = 1
	res, err := NNLS(e, f, nil)
	if err != nil {
		return nil, fmt.Errorf("numerics: SVM's least-distance problem: %w", err)
	}
	u := res.X
	// r = Eu − f; at the optimum ‖r‖² = 1 − Σu = 1/(1 + ‖w_scaled‖²), so the
	// scaled margin is ‖r‖/√(1 − ‖r‖²).
	r := mat.NewVecDense(d+1, nil)
	r.MulVec(e, mat.NewVecDense(n, u))
	r.SetVec(d, r.AtVec(d)-1)
	rn := mat.Norm(r, 2)
	if rn*rn >= 1 || rn/math.Sqrt(1-rn*rn) <= sepTol {
		sum := floats.Sum(u)
		cert := uniform(n)
		resid := 0.0
		if sum > 0 {
			cert = append([]float64(nil), u...)
			floats.Scale(1/sum, cert)
			comb := mat.NewVecDense(d, nil)
			comb.MulVec(e.Slice(0, d, 0, n), mat.NewVecDense(n, cert))
			resid = mat.Norm(comb, 2)
		}
		return nil, &NotSeparableError{Certificate: cert, Residual: resid}
	}
	// α of the original problem: α_scaled = u/‖r‖², α = sc²·α_scaled.
	alpha0 := make([]float64, n)
	floats.ScaleTo(alpha0, sc*sc/(rn*rn), u)
	best := p.candidate(alpha0)

	// Exact polish on the support, with an active-set loop.
	inS := make([]bool, n)
	for _, j := range res.Passive {
		inS[j] = true
	}
	for it := 0; it < 2*n+2; it++ {
		S := indices(inS)
		if len(S) == 0 {
			break
		}
		aS, ok := p.solveSupport(S)
		if !ok {
			break
		}
		// Drop the most negative multiplier, if any.
		if i := floats.MinIdx(aS); aS[i] <= 0 {
			inS[S[i]] = false
			continue
		}
		alpha := make([]float64, n)
		for i, j := range S {
			alpha[j] = aS[i]
		}
		c := p.candidate(alpha)
		if c.KKTResidual < best.KKTResidual {
			best = c
		}
		// Add the most violated constraint, if any.
		viol, vj, found := 1-tol/2, 0, false
		for j, m := range c.Decision {
			if !inS[j] && p.y[j]*m < viol {
				viol, vj, found = p.y[j]*m, j, true
			}
		}
		if !found {
			break
		}
		inS[vj] = true
	}
	if best.KKTResidual > tol {
		return nil, &SVMNotConvergedError{KKTResidual: best.KKTResidual, Tol: tol, Solution: best}
	}
	return best, nil
}

func indices(in []bool) []int {
	var s []int
	for i, b := range in {
		if b {
			s = append(s, i)
		}
	}
	return s
}

// solveSupport solves Q_SS α_S = 1 by Cholesky with two steps of iterative
// refinement (the residual 1 − Q_SS α_S is recomputed from the features or
// the kernel each time); false when Q_SS is not positive definite.
func (p *svmProblem) solveSupport(S []int) ([]float64, bool) {
	k := len(S)
	qs := mat.NewSymDense(k, nil)
	for a := range k {
		for b := a; b < k; b++ {
			qs.SetSym(a, b, p.q(S[a], S[b]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(qs) {
		return nil, false
	}
	if c := ch.Cond(); !(c < 1/(float64(k)*0x1p-52)) {
		return nil, false
	}
	ones := make([]float64, k)
	for i := range ones {
		ones[i] = 1
	}
	sol := mat.NewVecDense(k, nil)
	if err := ch.SolveVecTo(sol, mat.NewVecDense(k, ones)); err != nil {
		return nil, false
	}
	alpha := make([]float64, p.n)
	for range 2 {
		for i, j := range S {
			alpha[j] = sol.AtVec(i)
		}
		m := p.margins(alpha)
		res := make([]float64, k)
		for i, j := range S {
			res[i] = 1 - m[j]
		}
		corr := mat.NewVecDense(k, nil)
		if err := ch.SolveVecTo(corr, mat.NewVecDense(k, res)); err != nil {
			break
		}
		sol.AddVec(sol, corr)
	}
	return sol.RawVector().Data, true
}

// candidate completes a dual vector α ≥ 0 into a solution with its KKT
// residual (W is filled by the caller).
func (p *svmProblem) candidate(alpha []float64) *SVM {
	m := p.margins(alpha)
	c := &SVM{Alpha: alpha, Decision: make([]float64, p.n)}
	amax := floats.Max(alpha)
	for j := range m {
		c.Decision[j] = p.y[j] * m[j]
		c.KKTResidual = max(c.KKTResidual, 1-m[j])
		if alpha[j] > 0 {
			c.Support = append(c.Support, j)
			c.KKTResidual = max(c.KKTResidual, alpha[j]/amax*math.Abs(m[j]-1))
		}
	}
	c.NormSq = floats.Dot(alpha, m)
	sort.Ints(c.Support)
	c.Margin = 1 / math.Sqrt(c.NormSq)
	return c
}

package numerics

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Split is the decomposition of a binary dataset into its maximal linearly
// separable part and the rest (Ji & Telgarsky 2018b, used by XY Prop. 2):
// S is the largest index set such that some u has
//
//	y_i⟨u, x_i⟩ ≥ 0 for every i,   y_i⟨u, x_i⟩ > 0 exactly for i ∈ S,
//
// and Sc = {1…N} \ S. By the strict complementarity of the alternative
// (Goldman & Tucker 1956), Sc is exactly the largest support of a
// non-negative combination of the signed points that vanishes:
//
//	Σ_j λ_j y_j x_j = 0,  λ ≥ 0,  λ_j > 0 exactly for j ∈ Sc.
//
// Both certificates are returned and verified, so the split is proved, not
// only computed.
type Split struct {
	S, Sc []int
	// U is a unit vector with y_i⟨U, x_i⟩ > 0 on S and = 0 (to rounding) on
	// Sc: it proves that S is separable (S ⊆ true S).
	U []float64
	// Lambda is λ ≥ 0, 0 on S and ≥ 1 on Sc, with Σ_j λ_j y_j x_j = 0 (to
	// rounding): it proves that no u is positive on any sample of Sc (Sc ⊆
	// true Sc), since 0 = Σ_j λ_j y_j⟨u, x_j⟩ ≥ λ_i y_i⟨u, x_i⟩ ≥ 0.
	Lambda []float64
	// MinMargin is min_{i∈S} y_i⟨U, x_i⟩ / max_n ‖x_n‖: how clearly the
	// samples of S are separated (+Inf for empty S).
	MinMargin float64
	// Residual is ‖Σ_j λ_j y_j x_j‖ / (max_n ‖x_n‖ · Σ_j λ_j), and
	// ScMargin max_{i∈Sc} |y_i⟨U, x_i⟩| / max_n ‖x_n‖: both at rounding
	// level for a proved split (0 for an empty Sc).
	Residual, ScMargin float64
}

// DefaultSplitTol is the default threshold of SplitSeparable: a sample
// whose signed point −y_i x_i is within DefaultSplitTol·max‖x‖ of the cone
// of the signed points is in Sc. It is the separability threshold of the
// SVM solvers (DefaultSeparabilityTol): below it, separable and
// non-separable cannot be told apart in double precision.
const DefaultSplitTol = DefaultSeparabilityTol

// ErrAmbiguousSplit is matched (errors.Is) by an *AmbiguousSplitError.
var ErrAmbiguousSplit = errors.New("numerics: the separable split is ambiguous in double precision")

// AmbiguousSplitError reports data whose split cannot be decided: a
// certificate that fails its own verification, or a sample whose distance
// to the cone lies between rounding and the threshold.
type AmbiguousSplitError struct {
	Sample int
	Reason string
}

func (e *AmbiguousSplitError) Error() string {
	return fmt.Sprintf("numerics: the separable split is ambiguous at sample %d: %s", e.Sample, e.Reason)
}

// Is reports whether target is ErrAmbiguousSplit.
func (e *AmbiguousSplitError) Is(target error) bool { return target == ErrAmbiguousSplit }

// SplitSeparable computes the split of the rows x_n of x (N×d) with labels
// y_n = ±1 into S and Sc, with tol the threshold (0: DefaultSplitTol).
//
// Method (no linear program, so no cycling on the degenerate LPs this
// problem produces): for every sample i, with z_j = y_j x_j/max‖x‖, the
// non-negative least-squares problem
//
//	minimize ‖Σ_j λ_j z_j + z_i‖  s.t.  λ ≥ 0
//
// (NNLS, Lawson–Hanson, finite) has residual r = Σ λ_j z_j + z_i. If r = 0,
// λ + e_i is a vanishing combination with weight ≥ 1 on i, so i ∈ Sc. If
// r ≠ 0, the KKT conditions of NNLS give ⟨z_j, r⟩ ≥ 0 for every j and
// ⟨z_i, r⟩ = ‖r‖² − Σ λ_j⟨z_j, r⟩ = ‖r‖² > 0, so u = r separates i and
// i ∈ S (Farkas). U is the normalized sum of the unit certificates of S,
// Lambda the sum of the combinations of Sc; both are then verified.
func SplitSeparable(x mat.Matrix, y []float64, tol float64) (*Split, error) {
	n, d := x.Dims()
	if err := checkLabels(n, y); err != nil {
		return nil, err
	}
	if !(tol >= 0) {
		return nil, fmt.Errorf("%w: split threshold %v", ErrSVMInput, tol)
	}
	if tol == 0 {
		tol = DefaultSplitTol
	}
	zmax := 0.0
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < d; j++ {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: x[%d,%d] is %v", ErrSVMInput, i, j, v)
			}
			s += v * v
		}
		zmax = max(zmax, math.Sqrt(s))
	}
	// A = [z_1 … z_N] (d×N), the signed points scaled to max norm 1.
	a := mat.NewDense(d, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if zmax > 0 {
				a.Set(j, i, y[i]*x.At(i, j)/zmax)
			}
		}
	}
	sp := &Split{U: make([]float64, d), Lambda: make([]float64, n), MinMargin: math.Inf(1)}
	b := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			b[j] = -a.At(j, i)
		}
		if floats.Norm(b, 2) == 0 {
			// x_i = 0: ⟨u, x_i⟩ = 0 for every u.
			sp.Sc = append(sp.Sc, i)
			sp.Lambda[i]++
			continue
		}
		res, err := NNLS(a, b, nil)
		if err != nil {
			return nil, fmt.Errorf("numerics: split, sample %d: %w", i, err)
		}
		if res.Residual <= tol {
			sp.Sc = append(sp.Sc, i)
			floats.Add(sp.Lambda, res.X)
			sp.Lambda[i]++
			continue
		}
		// r = Aλ − b; add r/‖r‖ to U.
		r := mat.NewVecDense(d, nil)
		r.MulVec(a, mat.NewVecDense(n, res.X))
		rr := r.RawVector().Data
		floats.Sub(rr, b)
		floats.AddScaled(sp.U, 1/floats.Norm(rr, 2), rr)
		sp.S = append(sp.S, i)
	}
	sort.Ints(sp.S)
	sort.Ints(sp.Sc)
	if err := sp.verify(a, tol); err != nil {
		return nil, err
	}
	return sp, nil
}

// verify normalizes U and checks both certificates on A (the scaled signed
// points): U ≥ 0 on every point, > tol on S, ≈ 0 on Sc; Lambda 0 on S and
// Σλz ≈ 0. Rounding level here is a few ε per entry of a sum of at most N
// NNLS solutions of norm O(N): 1e3·N·ε leaves room for it.
func (sp *Split) verify(a *mat.Dense, tol float64) error {
	d, n := a.Dims()
	round := 1e3 * float64(n) * 0x1p-52
	if len(sp.S) > 0 {
		nu := floats.Norm(sp.U, 2)
		if nu == 0 {
			return &AmbiguousSplitError{Sample: sp.S[0], Reason: "the separating certificates cancel"}
		}
		floats.Scale(1/nu, sp.U)
	}
	m := mat.NewVecDense(n, nil)
	m.MulVec(a.T(), mat.NewVecDense(d, sp.U))
	inS := make([]bool, n)
	for _, i := range sp.S {
		inS[i] = true
		sp.MinMargin = min(sp.MinMargin, m.AtVec(i))
	}
	for i := 0; i < n; i++ {
		v := m.AtVec(i)
		if !inS[i] {
			sp.ScMargin = max(sp.ScMargin, math.Abs(v))
		}
		if v < -round {
			return &AmbiguousSplitError{Sample: i, Reason: fmt.Sprintf("the separating certificate gives %.3g < 0", v)}
		}
	}
	// With S empty MinMargin keeps its initial +Inf.
	if !(sp.MinMargin > tol) {
		return &AmbiguousSplitError{Sample: sp.S[0], Reason: fmt.Sprintf("samples of S are separated by only %.3g of max‖x‖", sp.MinMargin)}
	}
	if sp.ScMargin > round {
		return &AmbiguousSplitError{Sample: sp.Sc[0], Reason: fmt.Sprintf("the separating certificate is %.3g on Sc, not 0", sp.ScMargin)}
	}
	var sum float64
	for i, l := range sp.Lambda {
		if inS[i] && l > round {
			return &AmbiguousSplitError{Sample: i, Reason: fmt.Sprintf("a vanishing combination puts weight %.3g on a separable sample", l)}
		}
		if inS[i] {
			sp.Lambda[i] = 0
		}
		sum += sp.Lambda[i]
	}
	if len(sp.Sc) > 0 {
		c := mat.NewVecDense(d, nil)
		c.MulVec(a, mat.NewVecDense(n, sp.Lambda))
		sp.Residual = mat.Norm(c, 2) / sum
		if sp.Residual > tol {
			return &AmbiguousSplitError{Sample: sp.Sc[0], Reason: fmt.Sprintf("the vanishing combination has residual %.3g", sp.Residual)}
		}
	}
	return nil
}

// NonSepMinimizer is the finite part of XY Prop. 2: the unique minimizer
//
//	θ̃(w) = argmin_{θ ∈ span{x_i : i ∈ Sc}} F(θ),   F(θ) = Σ_{i∈Sc} w_i exp(−y_i⟨θ, x_i⟩),
//
// (strictly convex on that span: Lemma A.4 of XY, Ji & Telgarsky Thm 2.1).
type NonSepMinimizer struct {
	Theta []float64
	// Basis holds an orthonormal basis of span{x_i : i ∈ Sc} as rows
	// (rank×d), from the SVD with rank tolerance 1e-10·σ_max.
	Basis *mat.Dense
	// Objective is F(θ̃); GradNorm the norm of its gradient on the span;
	// HessMinEig the smallest eigenvalue of its Hessian on the span.
	Objective, GradNorm, HessMinEig float64
	Iterations                      int
}

// MinimizeNonSep computes θ̃(w) for the rows x_i, labels y_i and weights
// w_i > 0 of the samples of Sc (the caller selects them) by Newton's method
// with backtracking on the coordinates in the span, from 0, until the
// Newton decrement is at rounding level. It fails when F is unbounded below
// on the span (the samples are not a non-separable set: then the span
// holds a direction along which every term decreases).
func MinimizeNonSep(x mat.Matrix, y, w []float64) (*NonSepMinimizer, error) {
	n, d := x.Dims()
	if err := checkLabels(n, y); err != nil {
		return nil, err
	}
	if len(w) != n {
		return nil, fmt.Errorf("%w: %d weights for %d samples", ErrSVMInput, len(w), n)
	}
	for i, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: weight %d is %v, want finite and > 0", ErrSVMInput, i, v)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		return nil, fmt.Errorf("numerics: SVD of the non-separable samples failed")
	}
	sv := svd.Values(nil)
	var vt mat.Dense
	svd.VTo(&vt)
	rank := 0
	for _, s := range sv {
		if s > 1e-10*sv[0] {
			rank++
		}
	}
	if rank == 0 {
		return &NonSepMinimizer{Theta: make([]float64, d), Basis: mat.NewDense(1, d, nil), Objective: floats.Sum(w)}, nil
	}
	basis := mat.DenseCopyOf(vt.Slice(0, d, 0, rank).T()) // rank×d
	// a_i = y_i B x_i (coordinates of the signed points in the span).
	coords := mat.NewDense(n, rank, nil)
	coords.Mul(x, basis.T())
	for i := 0; i < n; i++ {
		for k := 0; k < rank; k++ {
			coords.Set(i, k, y[i]*coords.At(i, k))
		}
	}
	c := make([]float64, rank)
	f := func(c []float64) float64 {
		var s float64
		for i := 0; i < n; i++ {
			s += w[i] * math.Exp(-floats.Dot(coords.RawRowView(i), c))
		}
		return s
	}
	g := make([]float64, rank)
	h := mat.NewSymDense(rank, nil)
	step := make([]float64, rank)
	trial := make([]float64, rank)
	out := &NonSepMinimizer{Basis: basis}
	fc := f(c)
	for it := 0; ; it++ {
		clear(g)
		h.Zero()
		for i := 0; i < n; i++ {
			a := coords.RawRowView(i)
			e := w[i] * math.Exp(-floats.Dot(a, c))
			floats.AddScaled(g, -e, a)
			h.SymRankOne(h, e, mat.NewVecDense(rank, a))
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return nil, fmt.Errorf("numerics: the non-separable objective is not strictly convex on its span (are the samples non-separable?)")
		}
		sol := mat.NewVecDense(rank, step)
		if err := ch.SolveVecTo(sol, mat.NewVecDense(rank, g)); err != nil {
			return nil, fmt.Errorf("numerics: Newton step: %w", err)
		}
		// Newton decrement λ² = gᵀH⁻¹g; the step is −H⁻¹g.
		dec := floats.Dot(g, step)
		out.Iterations = it
		if dec <= 1e-28*fc || it >= 200 {
			if it >= 200 && dec > 1e-20*fc {
				return nil, fmt.Errorf("numerics: Newton did not converge on the non-separable part (decrement %.3g of F = %.3g)", dec, fc)
			}
			var es mat.EigenSym
			if es.Factorize(h, false) {
				out.HessMinEig = floats.Min(es.Values(nil))
			}
			out.GradNorm = floats.Norm(g, 2)
			break
		}
		stepped := false
		for t := 1.0; t > 1e-12; t /= 2 {
			floats.AddScaledTo(trial, c, -t, step)
			// Below a decrement of 1e-12·F, F's rounding hides the decrease:
			// the full Newton step is in its quadratic region and taken.
			if ft := f(trial); ft <= fc-0.25*t*dec || dec < 1e-12*fc {
				copy(c, trial)
				fc = ft
				stepped = true
				break
			}
		}
		if !stepped {
			// No decrease at rounding level: the current point is optimal to
			// working precision.
			out.GradNorm = floats.Norm(g, 2)
			break
		}
	}
	out.Objective = fc
	th := mat.NewVecDense(d, nil)
	th.MulVec(basis.T(), mat.NewVecDense(rank, c))
	out.Theta = th.RawVector().Data
	return out, nil
}

// ProjectOut returns x − Bᵀ(Bx) for every row x of x: the rows projected on
// the orthogonal complement of the row space of the orthonormal basis B.
func ProjectOut(x mat.Matrix, basis mat.Matrix) *mat.Dense {
	n, d := x.Dims()
	r, _ := basis.Dims()
	c := mat.NewDense(n, r, nil)
	c.Mul(x, basis.T())
	p := mat.NewDense(n, d, nil)
	p.Mul(c, basis)
	p.Sub(x, p)
	return p
}

package theorems

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// pathOffsetActiveTol is the relative distance to γ* within which a sample's
// margin under θ̂_MM counts as on the margin (the SVM's KKT residual is
// ≤ 1e-10).
const pathOffsetActiveTol = 1e-8

// pathOffset returns δ_∞, the limit of the regularization path's residual
// θ_R − R·θ̂_MM under the weights q (nil: uniform) for a loss with an
// exponential tail. On the sphere ‖θ‖ = R, θ_R = R·θ̂_MM + δ + O(1/R) with δ ⟂
// θ̂_MM, and the samples on the margin (⟨θ̂_MM, z_i⟩ = γ*, z_i = y_i x_i)
// contribute q_i e^{−Rγ* − ⟨δ, z_i⟩} to the loss while the others vanish
// faster by e^{−R(m_i − γ*)}, so δ tends to the minimizer of
//
//	G(δ) = log Σ_{i on the margin} q_i e^{−⟨δ, z_i⟩}   over δ ∈ span{P z_i},
//
// P the projection on θ̂_MM^⊥ (components outside that span do not change
// the loss and stay 0 along the path). G is convex; its minimizer is finite
// when Σ α_i P z_i = 0 has a solution with every α_i > 0 (every support
// vector carries weight), else G decreases to a limit at infinity and an
// error is returned. How far the path is from δ_∞ at a given R depends on q:
// weights spanning e^{s} are resolved only once R·(margin gaps) ≫ s, which is
// why ZD-T8's test bounds the path's residual by max(its first half, ‖δ_∞‖).
//
// It also returns the samples on the margin it used (the support vectors,
// ⟨θ̂_MM, z_i⟩ within pathOffsetActiveTol of γ*), which gapLimit and
// residualLimit sum over.
func pathOffset(z *mat.Dense, q []float64, sol *numerics.SVM) (delta []float64, support []int, err error) {
	n, d := z.Dims()
	u := sol.Direction()
	gamma := sol.Margin
	for i := 0; i < n; i++ {
		if m := floats.Dot(z.RawRowView(i), u); m <= gamma*(1+pathOffsetActiveTol) {
			support = append(support, i)
		}
	}
	if len(support) == 0 {
		return nil, nil, errors.New("no sample on the margin")
	}
	// Orthonormal basis of span{P z_i} by Gram–Schmidt (twice, for rounding).
	var basis [][]float64
	for _, i := range support {
		v := append([]float64(nil), z.RawRowView(i)...)
		floats.AddScaled(v, -floats.Dot(v, u), u)
		basis = extendBasis(basis, v)
	}
	if len(basis) == 0 {
		return make([]float64, d), support, nil // every z_i ∥ θ̂: no tangent freedom
	}
	k := len(basis)
	// a[j][c] = ⟨b_c, z_{active[j]}⟩, logq[j] = log q_i.
	a := make([][]float64, len(support))
	logq := make([]float64, len(support))
	for j, i := range support {
		a[j] = make([]float64, k)
		for c, b := range basis {
			a[j][c] = floats.Dot(b, z.RawRowView(i))
		}
		w := 1.0
		if q != nil {
			w = q[i]
		}
		if !(w > 0) {
			return nil, nil, fmt.Errorf("weight q_%d = %g on a support vector: δ_∞ is infinite", i, w)
		}
		logq[j] = math.Log(w)
	}
	// Newton's method with backtracking on G(c) = LSE_j(log q_j − ⟨a_j, c⟩):
	// ∇G = −Σ p_j a_j, ∇²G = Σ p_j a_j a_jᵀ − (Σ p_j a_j)(Σ p_j a_j)ᵀ, p the
	// softmax weights. G is convex; the Hessian is singular only along
	// directions no a_j sees, which the basis excludes.
	e := make([]float64, len(support))
	pw := make([]float64, len(support))
	eval := func(c []float64) float64 {
		for j := range a {
			e[j] = logq[j] - floats.Dot(a[j], c)
		}
		return floats.LogSumExp(e)
	}
	c := make([]float64, k)
	grad := make([]float64, k)
	gradNorm := func(c []float64) float64 {
		lse := eval(c)
		g := make([]float64, k)
		for j := range a {
			floats.AddScaled(g, -math.Exp(e[j]-lse), a[j])
		}
		return floats.Norm(g, 2)
	}
	hess := mat.NewSymDense(k, nil)
	step := mat.NewVecDense(k, nil)
	trial := make([]float64, k)
	var chol mat.Cholesky
	gnorm := math.Inf(1)
	for it := 0; it < 200; it++ {
		lse := eval(c)
		for j := range a {
			pw[j] = math.Exp(e[j] - lse)
		}
		for i := range grad {
			grad[i] = 0
		}
		for j := range a {
			floats.AddScaled(grad, -pw[j], a[j])
		}
		if gnorm = floats.Norm(grad, 2); gnorm <= 1e-13 {
			break
		}
		for r := 0; r < k; r++ {
			for s := r; s < k; s++ {
				var h float64
				for j := range a {
					h += pw[j] * a[j][r] * a[j][s]
				}
				hess.SetSym(r, s, h-grad[r]*grad[s])
			}
		}
		if !chol.Factorize(hess) {
			return nil, nil, fmt.Errorf("the offset problem has no finite minimizer (singular curvature at ‖δ‖ = %.3g: a support vector without weight)", floats.Norm(c, 2))
		}
		if err := chol.SolveVecTo(step, mat.NewVecDense(k, grad)); err != nil {
			return nil, nil, err
		}
		t := 1.0
		for ; t > 1e-12; t /= 2 {
			floats.AddScaledTo(trial, c, -t, step.RawVector().Data)
			if eval(trial) <= lse-1e-4*t*floats.Dot(grad, step.RawVector().Data) {
				break
			}
		}
		if !(t > 1e-12) {
			// The decrease Newton's step promises, ~‖∇G‖²/λ_min, is
			// below the rounding of G ~ 1 (‖∇G‖ ≲ √(ε·λ_min), 10⁻⁹ for
			// λ_min ~ 10⁻²): the line search cannot see it. Near the
			// minimizer the full step converges quadratically; take it
			// when it shrinks the gradient, else stop here.
			floats.AddScaledTo(trial, c, -1, step.RawVector().Data)
			if gradNorm(trial) >= gnorm {
				break
			}
		}
		copy(c, trial)
	}
	if !(gnorm <= 1e-9) {
		return nil, nil, fmt.Errorf("the offset problem has no finite minimizer (‖∇G‖ = %.3g at ‖δ‖ = %.3g: a support vector without weight)", gnorm, floats.Norm(c, 2))
	}
	delta = make([]float64, d)
	for ci, b := range basis {
		floats.AddScaled(delta, c[ci], b)
	}
	return delta, support, nil
}

// residualLimit returns the limit of the residual r = θ − ŵ log T along GD
// with an exponentially tailed loss Σ_i q_i ℓ(⟨θ, z_i⟩), ℓ(u) ~ e^{−u} (exp,
// logistic, cross-entropy), with the training weights q as the objective
// uses them (nil: all 1), ŵ the max-margin solution with margin 1 (Soudry
// et al. 2018, Thm 3). On span{z_i : i ∈ S}, S the support vectors, the
// limit balances the support vectors' terms against ŵ:
//
//	Σ_{i∈S} q_i e^{−⟨r, z_i⟩} z_i = ŵ.
//
// Writing r = sŵ + δ with δ ⟂ ŵ (⟨ŵ, z_i⟩ = 1 on S), the tangent part is
// pathOffset's δ_∞ and ⟨ŵ, ·⟩ of the balance gives e^{−s} Σ_S q_i
// e^{−⟨δ_∞, z_i⟩} = ‖ŵ‖². The part of r orthogonal to that span moves only
// with the samples off the margin, whose pull decays (pullGrowth); rMid,
// the residual at the first half's last record, supplies it.
func residualLimit(z *mat.Dense, q, w, rMid []float64) ([]float64, error) {
	ww := floats.Dot(w, w)
	sol := &numerics.SVM{W: w, Margin: 1 / math.Sqrt(ww)}
	delta, support, err := pathOffset(z, q, sol)
	if err != nil {
		return nil, err
	}
	_, d := z.Dims()
	var terms []float64
	var basis [][]float64
	for _, i := range support {
		zi := z.RawRowView(i)
		qi := 1.0
		if q != nil {
			qi = q[i]
		}
		terms = append(terms, math.Log(qi)-floats.Dot(zi, delta))
		basis = extendBasis(basis, append([]float64(nil), zi...))
	}
	s := numerics.LogSumExp(terms) - math.Log(ww)
	r := make([]float64, d)
	floats.AddScaledTo(r, delta, s, w)
	// The free part: rMid without its components in span{z_i : i ∈ S}.
	free := append([]float64(nil), rMid...)
	for _, b := range basis {
		floats.AddScaled(free, -floats.Dot(free, b), b)
	}
	floats.Add(r, free)
	return r, nil
}

// extendBasis appends v (overwritten) to the orthonormal basis when it has a
// component outside the basis's span: Gram–Schmidt, twice for rounding,
// keeping what is left if it exceeds 1e-9 of max(‖v‖, 1).
func extendBasis(basis [][]float64, v []float64) [][]float64 {
	norm0 := floats.Norm(v, 2)
	for range 2 {
		for _, b := range basis {
			floats.AddScaled(v, -floats.Dot(v, b), b)
		}
	}
	if nv := floats.Norm(v, 2); nv > 1e-9*math.Max(norm0, 1) {
		floats.Scale(1/nv, v)
		basis = append(basis, v)
	}
	return basis
}

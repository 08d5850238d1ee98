package limits

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// PathOffsetActiveTol is the relative distance to γ* within which a sample's
// margin under θ̂_MM counts as on the margin (the SVM's KKT residual is
// ≤ 1e-10).
const PathOffsetActiveTol = 1e-8

// PathOffset returns δ_∞, the limit of the regularization path's residual
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
// ⟨θ̂_MM, z_i⟩ within PathOffsetActiveTol of γ*), which gapLimit and
// ResidualLimit sum over.
func PathOffset(z *mat.Dense, q []float64, sol *numerics.SVM) (delta []float64, support []int, err error) {
	n, d := z.Dims()
	u := sol.Direction()
	gamma := sol.Margin
	for i := 0; i < n; i++ {
		if m := floats.Dot(z.RawRowView(i), u); m <= gamma*(1+PathOffsetActiveTol) {
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
		basis = numerics.ExtendBasis(basis, v)
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

// ResidualLimit returns the limit of the residual r = θ − ŵ log T along GD
// with an exponentially tailed loss Σ_i q_i ℓ(⟨θ, z_i⟩), ℓ(u) ~ e^{−u} (exp,
// logistic, cross-entropy), with the training weights q as the objective
// uses them (nil: all 1), ŵ the max-margin solution with margin 1 (Soudry
// et al. 2018, Thm 3). On span{z_i : i ∈ S}, S the support vectors, the
// limit balances the support vectors' terms against ŵ:
//
//	Σ_{i∈S} q_i e^{−⟨r, z_i⟩} z_i = ŵ.
//
// Writing r = sŵ + δ with δ ⟂ ŵ (⟨ŵ, z_i⟩ = 1 on S), the tangent part is
// PathOffset's δ_∞ and ⟨ŵ, ·⟩ of the balance gives e^{−s} Σ_S q_i
// e^{−⟨δ_∞, z_i⟩} = ‖ŵ‖². The part of r orthogonal to that span moves only
// with the samples off the margin, whose pull decays (pullGrowth); rMid,
// the residual at the first half's last record, supplies it.
func ResidualLimit(z *mat.Dense, q, w, rMid []float64) ([]float64, error) {
	ww := floats.Dot(w, w)
	sol := &numerics.SVM{W: w, Margin: 1 / math.Sqrt(ww)}
	delta, support, err := PathOffset(z, q, sol)
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
		basis = numerics.ExtendBasis(basis, append([]float64(nil), zi...))
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

// PathLimitBound returns the path's computed limit offset δ_∞ (PathOffset,
// under the weights q; nil: uniform) and how far from R·θ̂_MM + δ_∞ the
// point θ_R = argmin_{‖θ‖≤R} Σ_i q_i ℓ(⟨θ, z_i⟩) of a loss with a tight
// exponential tail, ℓ(u) = e^{−u}(1 + ε(u)) with |ε|, |ε′| ≤ e^{−u} (exp: 0;
// logistic: log(1 + e^{−u}) and its slope 1/(1 + e^{u})), may lie at radius
// R, excluding the solver's floor (pathSolverFloor·R, added by the caller).
// The derivation: θ_R = aθ̂ + δ with δ ⟂ θ̂ and a = √(R² − ‖δ‖²) minimizes,
// in δ,
//
//	Φ_R(δ) = G(δ) + γ(R − a(δ)) + log(1 + E(δ)) − Rγ,
//
// G(δ) = log Σ_{i∈S} q_i e^{−⟨δ, z_i⟩} (PathOffset's, minimized at δ_∞;
// S the support vectors, ⟨θ̂, z_i⟩ = γ), γ(R − a) the sphere's term
// (gradient γδ/a, curvature ⪰ γ/R), E the samples off the margin (factor
// e^{−a(m_i − γ)}, m_i = ⟨θ̂, z_i⟩) and the tail's departure. At δ_∞ the
// gradient of Φ_R is g = γδ_∞/a + ∇log(1 + E), and G's curvature on the
// span of the support vectors' tangent parts is λ = λ_min(Cov_p(Pz_i)), p
// the softmax weights at δ_∞; on the ball of radius ρ around δ_∞ the
// weights change by at most e^{2ρ·max‖Pz‖}, so its curvature stays ≥ λ/2
// for ρ ≤ ln 2/(2·max‖Pz‖). A convex function whose gradient at δ_∞ is g
// and whose curvature on that ball is ≥ λ/2 has its minimizer within
// ρ = 2‖g‖/λ of δ_∞ when that radius lies inside the ball (its directional
// derivative is positive on the ball's boundary). The tangent directions
// outside that span feel only E and the sphere (curvature γ/R): ≤ ‖∇E‖·R/γ.
// With |a − R| ≤ (‖δ_∞‖ + ρ)²/R for the radial part,
//
//	‖θ_R − Rθ̂ − δ_∞‖ ≤ ρ + ‖∇E‖R/γ + (‖δ_∞‖ + ρ)²/R.
//
// ‖∇E‖ is bounded at δ_∞ with the factor 2 the ball allows: Σ_{off} q_i
// e^{−u_i}·2max‖z‖ + Σ_S q_i·3e^{−2u_i}·max‖z‖ (the tail's term, its
// gradient and its share of the normalization), over Σ_S q_i e^{−u_i}/2
// (u_i the margins of aθ̂ + δ_∞). err reports a radius too small for the
// ball (the path is not yet where its limit can be certified: record a
// larger R), or an offset problem without a finite minimizer.
func PathLimitBound(z *mat.Dense, q []float64, sol *numerics.SVM, radius float64) (delta []float64, bound float64, err error) {
	delta, support, err := PathOffset(z, q, sol)
	if err != nil {
		return nil, 0, err
	}
	n, _ := z.Dims()
	u := sol.Direction()
	gamma := sol.Margin
	weight := func(i int) float64 {
		if q == nil {
			return 1
		}
		return q[i]
	}
	dn := floats.Norm(delta, 2)
	if !(dn < radius) {
		return nil, 0, fmt.Errorf("‖δ_∞‖ = %.3g is not below R = %.3g", dn, radius)
	}
	a := math.Sqrt(radius*radius - dn*dn)
	onS := make([]bool, n)
	for _, i := range support {
		onS[i] = true
	}
	// Margins at aθ̂ + δ_∞, relative to the support vectors' aγ: the terms
	// are kept as e^{−(u_i − aγ)} to stay in range.
	var zmax, pzmax float64
	var tangent [][]float64
	for i := 0; i < n; i++ {
		zi := z.RawRowView(i)
		zmax = math.Max(zmax, floats.Norm(zi, 2))
		pz := append([]float64(nil), zi...)
		floats.AddScaled(pz, -floats.Dot(pz, u), u)
		if onS[i] {
			pzmax = math.Max(pzmax, floats.Norm(pz, 2))
			tangent = append(tangent, pz)
		}
	}
	var sumS, offPull, tailPull float64
	for i := 0; i < n; i++ {
		zi := z.RawRowView(i)
		rel := math.Exp(-(a*(floats.Dot(zi, u)-gamma) + floats.Dot(zi, delta)))
		if onS[i] {
			sumS += weight(i) * rel
			// e^{−2u} = rel·e^{−u}, u = aγ + ⟨δ_∞, z_i⟩.
			tailPull += weight(i) * rel * 3 * math.Exp(-(a*gamma + floats.Dot(zi, delta))) * zmax
		} else {
			offPull += weight(i) * rel * 2 * zmax
		}
	}
	gradE := 2 * (offPull + tailPull) / sumS
	// G's curvature at δ_∞ on span{Pz_i : i ∈ S}.
	lambda := math.Inf(1)
	var basis [][]float64
	for _, pz := range tangent {
		basis = numerics.ExtendBasis(basis, append([]float64(nil), pz...))
	}
	if k := len(basis); k > 0 {
		p := make([]float64, len(support))
		logs := make([]float64, len(support))
		for j, i := range support {
			logs[j] = math.Log(weight(i)) - floats.Dot(z.RawRowView(i), delta)
		}
		lse := numerics.LogSumExp(logs)
		h := mat.NewSymDense(k, nil)
		mean := make([]float64, k)
		coords := make([][]float64, len(support))
		for j := range support {
			p[j] = math.Exp(logs[j] - lse)
			coords[j] = make([]float64, k)
			for c, b := range basis {
				coords[j][c] = floats.Dot(b, tangent[j])
			}
			floats.AddScaled(mean, p[j], coords[j])
		}
		for r := 0; r < k; r++ {
			for c := r; c < k; c++ {
				var s float64
				for j := range support {
					s += p[j] * coords[j][r] * coords[j][c]
				}
				h.SetSym(r, c, s-mean[r]*mean[c])
			}
		}
		var es mat.EigenSym
		if !es.Factorize(h, false) {
			return nil, 0, errors.New("the offset problem's curvature: eigendecomposition failed")
		}
		lambda = floats.Min(es.Values(nil))
	}
	g := gamma*dn/a + gradE
	rho := 0.0
	if len(basis) > 0 {
		if !(lambda > 0) {
			return nil, 0, fmt.Errorf("the offset problem is flat at δ_∞ (curvature %.3g)", lambda)
		}
		rho = 2 * g / lambda
		if ball := math.Ln2 / (2 * pzmax); !(rho <= ball) {
			return nil, 0, fmt.Errorf("at R = %.3g the path is certified within %.3g of its limit only inside a ball of radius %.3g (curvature %.3g, gradient %.3g): a larger R", radius, rho, ball, lambda, g)
		}
	}
	return delta, rho + gradE*radius/gamma + (dn+rho)*(dn+rho)/radius, nil
}

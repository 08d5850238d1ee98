package numerics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// PolyDirection is the limit direction of a linear model trained on a
// polynomially tailed loss ℓ(q) ~ q^{−α} (ZD eq. 19; Wang et al. 2022) with
// sample weights q_i: the regularization path θ_R = argmin_{‖θ‖≤R} Σ q_i ℓ(⟨θ, z_i⟩),
// z_i = y_i x_i, satisfies R^α F(Ru) → Φ(u) = Σ_i q_i ⟨u, z_i⟩^{−α} on
// separating unit vectors u, so θ_R/R tends to
//
//	u(q) = argmin_{‖u‖=1, ⟨u, z_i⟩>0} Φ(u),
//
// which, unlike the hard-margin SVM direction of exponentially tailed
// losses, depends on q.
type PolyDirection struct {
	U []float64
	// Phi is Φ(U); Margins holds ⟨U, z_i⟩.
	Phi     float64
	Margins []float64
	// Gradient is the norm of the gradient of G (below) at the solution,
	// relative to ‖v*‖: the stationarity residual.
	Gradient   float64
	Iterations int
}

// PolyTailDirection computes u(q) for the signed points z_i (rows of z),
// weights q_i ≥ 0 (not all 0) and tail exponent α > 0.
//
// Method: Φ is convex and (−α)-homogeneous on the open cone
// C = {v : ⟨v, z_i⟩ > 0 for q_i > 0}, so
//
//	G(v) = Φ(v) + ½‖v‖²
//
// is strictly convex on C and its minimizer v* = c·u(q) (for fixed ‖v‖ = c,
// G = c^{−α}Φ(u) + c²/2 is smallest at the smallest Φ(u)). Newton's method
// with backtracking that stays in C, started from the hard-margin SVM
// direction (which lies in C), finds v*:
//
//	∇G = v − α Σ q_i ⟨v, z_i⟩^{−α−1} z_i,   ∇²G = I + α(α+1) Σ q_i ⟨v, z_i⟩^{−α−2} z_i z_iᵀ.
//
// It fails with a *NotSeparableError when the points are not separable
// (the cone is empty).
func PolyTailDirection(z mat.Matrix, q []float64, alpha float64) (*PolyDirection, error) {
	n, d := z.Dims()
	if len(q) != n {
		return nil, fmt.Errorf("%w: %d weights for %d points", ErrSVMInput, len(q), n)
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("%w: tail exponent α = %v, want finite and > 0", ErrSVMInput, alpha)
	}
	var active []int
	for i, v := range q {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: weight %d is %v", ErrSVMInput, i, v)
		}
		if v > 0 {
			active = append(active, i)
		}
	}
	if len(active) == 0 {
		return nil, fmt.Errorf("%w: every weight is 0", ErrSVMInput)
	}
	// Start: the SVM direction of the active points (labels +1 on z).
	za := mat.NewDense(len(active), d, nil)
	ones := make([]float64, len(active))
	for k, i := range active {
		for j := 0; j < d; j++ {
			za.Set(k, j, z.At(i, j))
		}
		ones[k] = 1
	}
	svm, err := HardMarginSVM(za, ones, nil)
	if err != nil {
		return nil, err
	}
	v := svm.Direction()
	m := make([]float64, len(active))
	margins := func(v []float64) bool {
		for k := range active {
			m[k] = floats.Dot(za.RawRowView(k), v)
			if !(m[k] > 0) {
				return false
			}
		}
		return true
	}
	// Φ at the point whose margins m holds, and G = Φ + ½‖v‖².
	phifun := func() float64 {
		var s float64
		for k, i := range active {
			s += q[i] * math.Pow(m[k], -alpha)
		}
		return s
	}
	gfun := func(v []float64) float64 { return phifun() + 0.5*floats.Dot(v, v) }
	margins(v)
	// Scale v to the minimizer along its ray: c^{α+2} = αΦ(v̂).
	floats.Scale(math.Pow(alpha*phifun(), 1/(alpha+2)), v)
	margins(v)
	g := make([]float64, d)
	step := make([]float64, d)
	trial := make([]float64, d)
	h := mat.NewSymDense(d, nil)
	gv := gfun(v)
	out := &PolyDirection{}
	for it := 0; ; it++ {
		copy(g, v)
		h.Zero()
		for k, i := range active {
			a := za.RawRowView(k)
			floats.AddScaled(g, -alpha*q[i]*math.Pow(m[k], -alpha-1), a)
			h.SymRankOne(h, alpha*(alpha+1)*q[i]*math.Pow(m[k], -alpha-2), mat.NewVecDense(d, a))
		}
		for j := 0; j < d; j++ {
			h.SetSym(j, j, h.At(j, j)+1)
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return nil, fmt.Errorf("numerics: poly-tail direction: Hessian not positive definite")
		}
		sol := mat.NewVecDense(d, step)
		if err := ch.SolveVecTo(sol, mat.NewVecDense(d, g)); err != nil {
			return nil, fmt.Errorf("numerics: poly-tail direction: %w", err)
		}
		dec := floats.Dot(g, step)
		out.Iterations = it
		// Converged when the decrement (≈ 2(G − G*)) is 1e-24 of G: then
		// ‖v − v*‖ ≲ 1e-12·‖v*‖, far below what any check resolves.
		if dec <= 1e-24*gv {
			break
		}
		if it >= 200 {
			return nil, fmt.Errorf("numerics: poly-tail direction: Newton did not converge (decrement %.3g of G = %.3g)", dec, gv)
		}
		stepped := false
		for t := 1.0; t > 1e-14; t /= 2 {
			floats.AddScaledTo(trial, v, -t, step)
			if !margins(trial) {
				continue
			}
			// Once the decrement (≈ 2(G − G*)) is below 1e-12·G, G's own
			// rounding (ε·G) hides the decrease Armijo's test asks for:
			// Newton's full step is then in its quadratic region and taken.
			if gt := gfun(trial); gt <= gv-0.25*t*dec || dec < 1e-12*gv {
				copy(v, trial)
				gv = gt
				stepped = true
				break
			}
		}
		margins(v)
		if !stepped {
			break // no decrease at rounding level: optimal to working precision
		}
	}
	nv := floats.Norm(v, 2)
	out.Gradient = floats.Norm(g, 2) / nv
	out.U = append([]float64(nil), v...)
	floats.Scale(1/nv, out.U)
	out.Margins = make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			out.Margins[i] += z.At(i, j) * out.U[j]
		}
	}
	for _, i := range active {
		out.Phi += q[i] * math.Pow(out.Margins[i], -alpha)
	}
	return out, nil
}

// MultiClassSVM solves the multi-class max-margin problem of a linear
// classifier with K classes (ZD eq. 20; App. B):
//
//	minimize ½‖Θ‖²  s.t.  ⟨θ_{c_n} − θ_j, x_n⟩ ≥ 1  for every n and j ≠ c_n,
//
// with Θ = (θ_0, …, θ_{K−1}) stored class after class (θ_k = Θ[k·d:(k+1)·d],
// the row-major layout of a K×d weight matrix). Each constraint is
// ⟨Θ, a_{n,j}⟩ ≥ 1 with a_{n,j} = (e_{c_n} − e_j) ⊗ x_n, so this is the
// hard-margin SVM without intercept on the N(K−1) augmented points with
// label +1, solved by HardMarginSVM. The SVM's Alpha is indexed by
// n·(K−1) + j′, j′ the rank of j among the classes ≠ c_n.
func MultiClassSVM(x mat.Matrix, class []int, k int) (*SVM, error) {
	a, err := MultiClassConstraints(x, class, k)
	if err != nil {
		return nil, err
	}
	n, _ := a.Dims()
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	return HardMarginSVM(a, ones, nil)
}

// MultiClassConstraints returns the constraint vectors of MultiClassSVM as
// rows: a_{n,j} = (e_{c_n} − e_j) ⊗ x_n for every sample n and class j ≠ c_n
// (row n·(K−1) + j′, j′ the rank of j among the classes ≠ c_n), so that
// ⟨Θ, a_{n,j}⟩ = ⟨θ_{c_n} − θ_j, x_n⟩.
func MultiClassConstraints(x mat.Matrix, class []int, k int) (*mat.Dense, error) {
	n, d := x.Dims()
	if k < 2 {
		return nil, fmt.Errorf("%w: %d classes", ErrSVMInput, k)
	}
	if len(class) != n {
		return nil, fmt.Errorf("%w: %d samples but %d classes", ErrSVMInput, n, len(class))
	}
	a := mat.NewDense(n*(k-1), k*d, nil)
	for i := 0; i < n; i++ {
		c := class[i]
		if c < 0 || c >= k {
			return nil, fmt.Errorf("%w: class %d of sample %d outside 0…%d", ErrSVMInput, c, i, k-1)
		}
		r := i * (k - 1)
		for j := 0; j < k; j++ {
			if j == c {
				continue
			}
			for f := 0; f < d; f++ {
				v := x.At(i, f)
				a.Set(r, c*d+f, v)
				a.Set(r, j*d+f, -v)
			}
			r++
		}
	}
	return a, nil
}

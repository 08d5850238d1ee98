package regression

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/theorems"
	"gonum.org/v1/gonum/mat"
)

// productEigenRounding is the constant c of ZD-P17's tolerance
// c·n·ε·λ_max(H)·max q·√(max q/min⁺ q): the nonsymmetric QR algorithm is
// backward stable with an error of a small multiple of n·ε·‖HQ‖ (Golub &
// Van Loan §7.5.6), and HQ = Q^{−½}(Q^{½}HQ^{½})Q^{½} is diagonalized by
// eigenvectors of condition at most √(max q/min⁺ q), which bounds the
// eigenvalue error (Bauer–Fike). c = 64 covers the "small multiple".
const productEigenRounding = 64

// ProductEigenvalues checks ZD-P17 (Prop. 17): for a symmetric positive
// definite H (n×n) with extreme eigenvalues λ_min, λ_max and a positive
// semi-definite diagonal Q = diag(q), every eigenvalue of HQ lies in
//
//	[min_i q_i·λ_min, max_i q_i·λ_max].
//
// The eigenvalues of the nonsymmetric product HQ are computed directly
// (gonum's mat.Eigen), and λ_min, λ_max from the symmetric H. The
// statistic is the largest distance of an eigenvalue from the interval
// (or its imaginary part), relative to λ_max·max q, against the rounding
// tolerance of productEigenRounding. If H is not positive definite or some
// q_i < 0, the hypothesis fails (assumption-failed) — and the Statistic
// still says whether the interval held, which is how a negative control
// shows that the hypothesis matters.
func ProductEigenvalues(h mat.Symmetric, q []float64) theorems.Verdict {
	n := h.SymmetricDim()
	if n < 1 || len(q) != n {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-P17 needs H n×n and n weights, got %d×%d and %d", n, n, len(q)))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if v := h.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return theorems.Invalid(fmt.Errorf("theorems: H[%d][%d] is %v", i, j, v))
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(h, false) {
		return theorems.Invalid(fmt.Errorf("theorems: eigendecomposition of H failed"))
	}
	ev := es.Values(nil)
	lmin, lmax := ev[0], ev[n-1]
	qmin, qmax, qpos := math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return theorems.Invalid(fmt.Errorf("theorems: weight %v", v))
		}
		qmin, qmax = math.Min(qmin, v), math.Max(qmax, v)
		if v > 0 {
			qpos = math.Min(qpos, v)
		}
	}
	hq := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			hq.Set(i, j, h.At(i, j)*q[j])
		}
	}
	var eg mat.Eigen
	if !eg.Factorize(hq, mat.EigenNone) {
		return theorems.Invalid(fmt.Errorf("theorems: eigenvalues of HQ did not converge"))
	}
	lo, hi := qmin*lmin, qmax*lmax
	scale := math.Max(math.Abs(lmax), math.Abs(lmin)) * math.Max(math.Abs(qmax), math.Abs(qmin))
	if scale == 0 {
		return theorems.Undecided("degenerate case: Q = 0 (every eigenvalue of HQ is 0)")
	}
	worst, which := 0.0, complex(0, 0)
	for _, z := range eg.Values(nil) {
		out := math.Max(math.Max(lo-real(z), real(z)-hi), math.Abs(imag(z))) / scale
		if out > worst || math.IsNaN(out) {
			worst, which = out, z
		}
	}
	cond := 1.0
	if qpos < math.Inf(1) && qmax > 0 {
		cond = math.Sqrt(qmax / qpos)
	}
	tol := productEigenRounding * float64(n) * 0x1p-53 * cond
	detail := fmt.Sprintf("eigenvalues of HQ in [%.6g, %.6g] = [min q·λ_min, max q·λ_max]? worst %.6g is %.3g (relative) outside", lo, hi, which, worst)
	if lmin <= 0 {
		v := theorems.Assumption("H is not positive definite (λ_min = %.3g); %s", lmin, detail)
		v.Statistic, v.Bound = worst, tol
		return v
	}
	if qmin < 0 {
		v := theorems.Assumption("Q is not positive semi-definite (min q = %.3g); %s", qmin, detail)
		v.Statistic, v.Bound = worst, tol
		return v
	}
	return theorems.Compare(worst, tol, detail)
}

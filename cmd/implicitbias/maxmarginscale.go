package main

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// Features far from 1 in size break the SVM solver: at 1e-160 the Gram
// products x_i·x_j ≈ 1e-320 are subnormal or 0 (the dual blows up to NaN),
// at 1e160 they overflow (issue 21). The hard-margin problem scales
// exactly: with x = s·x̃, the solution for x̃ gives w = w̃/s, margin
// γ = s·γ̃, α = α̃/s² and the same decision values ⟨w, x_n⟩, support and
// direction. So the solver runs on x̃ = x/s with s = 2^e the power of two
// nearest the largest |x_ij| (division by a power of two is exact: x̃ is
// x, only its exponents moved) and the answer is scaled back. A kernel
// scales the same way (scaledKernelSVM). Where a scaled-back number is
// beyond float64 (the dual α = α̃/s² at s = 2^-532), the output has null
// and dual_scaled has α̃, with feature_scale = s.

// powerOfTwoScale returns 2^e with 2^e ≤ max|v| < 2^{e+1} (1 for all
// zeros or an empty v).
func powerOfTwoScale(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return 1
	}
	_, e := math.Frexp(m) // m = f·2^e, f ∈ [½, 1)
	return math.Ldexp(1, e-1)
}

// scaledLinearSVM solves the hard-margin SVM on X/s and scales the
// solution back; it returns s.
func scaledLinearSVM(n, d int, x, y []float64) (sol *numerics.SVM, s float64, dualScaled []float64, err error) {
	s = powerOfTwoScale(x)
	xs := make([]float64, len(x))
	for i, v := range x {
		xs[i] = v / s
	}
	sol, err = numerics.HardMarginSVM(mat.NewDense(n, d, xs), y, nil)
	if err != nil {
		return nil, s, nil, err
	}
	// 1/s² as (1/s)·(1/s): s² itself overflows for s = 2^532.
	dualScaled = scaleBack(sol, 1/s, s, (1/s)*(1/s))
	return sol, s, dualScaled, nil
}

// scaledKernelSVM solves the kernel SVM on K/c and scales the solution
// back (K = c·K̃ is φ = √c·φ̃: w = w̃/√c in the kernel's eigen-coordinates,
// γ = √c·γ̃, α = α̃/c); it returns c.
func scaledKernelSVM(k *mat.SymDense, y []float64) (sol *numerics.SVM, c float64, dualScaled []float64, err error) {
	n := k.SymmetricDim()
	var all []float64
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			all = append(all, k.At(i, j))
		}
	}
	c = powerOfTwoScale(all)
	ks := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			ks.SetSym(i, j, k.At(i, j)/c)
		}
	}
	sol, err = numerics.KernelSVM(ks, y, nil)
	if err != nil {
		return nil, c, nil, err
	}
	dualScaled = scaleBack(sol, 1/math.Sqrt(c), math.Sqrt(c), 1/c)
	return sol, c, dualScaled, nil
}

// finiteOrNull returns v with every non-finite entry as nil (JSON null):
// the dual of features at 1e-160 is α̃·1e320, beyond float64.
func finiteOrNull(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = num(x)
	}
	return out
}

// scaleBack rescales a solution of the scaled problem: w by wf, the margin
// by mf, α by af (decision values and support do not change). ‖w‖² = Σα
// scales like α.
// The dual of the scaled problem is kept in DualScaled, and a dual value
// that over- or underflows (α̃ > 0 but α̃·af is +Inf, 0 or subnormal, with
// fewer than 16 digits) becomes NaN, so
// that it is printed as null, never as a silent 0 next to a support vector.
func scaleBack(sol *numerics.SVM, wf, mf, af float64) (dualScaled []float64) {
	dualScaled = append([]float64(nil), sol.Alpha...)
	for i := range sol.W {
		sol.W[i] *= wf
	}
	for i, a := range sol.Alpha {
		sol.Alpha[i] = a * af
		if a > 0 && (math.Abs(sol.Alpha[i]) < 0x1p-1022 || math.IsInf(sol.Alpha[i], 0)) { // 0, subnormal or +Inf
			sol.Alpha[i] = math.NaN()
		}
	}
	sol.Margin *= mf
	sol.NormSq *= af
	return dualScaled
}

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

// TestSVMSettingsDefaults: a zero field of SVMSettings means its default,
// each independently of the other: Tol 0 with SeparabilityTol set solves
// to the default KKT tolerance; SeparabilityTol 0 with Tol set keeps the
// default threshold 1e-9, so data separable only by 1e-12 of max‖x‖ are
// not separable; a Tol below rounding (1e-30) cannot be met.
func TestSVMSettingsDefaults(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 0.2, -0.3, 1, 0.5, 0.5})
	y := []float64{1, -1, 1}
	sol, err := numerics.HardMarginSVM(x, y, &numerics.SVMSettings{SeparabilityTol: 1e-6})
	require.NoError(t, err)
	assert.LessOrEqual(t, sol.KKTResidual, numerics.DefaultSVMTol)

	thin := mat.NewDense(2, 2, []float64{1, 0, -1, 1e-12})
	_, err = numerics.HardMarginSVM(thin, []float64{1, 1}, &numerics.SVMSettings{Tol: 1e-8})
	assert.True(t, errors.Is(err, numerics.ErrNotSeparable), "%v", err)

	_, err = numerics.HardMarginSVM(x, y, &numerics.SVMSettings{Tol: 1e-30})
	var nc *numerics.SVMNotConvergedError
	assert.True(t, errors.As(err, &nc), "%v", err)
}

// TestSVMResultFields: Direction is W/‖W‖, a unit vector; NormSq is ‖W‖²
// and Margin 1/‖W‖; KKTResidual is
// the documented max of the primal infeasibility max_n (1 − y_n⟨w, x_n⟩)₊
// and the complementarity max_n α_n|y_n⟨w, x_n⟩ − 1|/max α, recomputed
// from W and Alpha — on problems with small margins (0.02·max‖x‖), where α
// is of order 10³ and a complementarity term not divided by max α would be
// 10⁶ times larger.
func TestSVMResultFields(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 10; it++ {
		d := 3
		u := unit(r, d)
		var rows []float64
		var y []float64
		for len(y) < 12 {
			v := unit(r, d)
			p := floats.Dot(u, v)
			if math.Abs(p) < 0.02 {
				continue
			}
			rows = append(rows, v...)
			y = append(y, math.Copysign(1, p))
		}
		x := mat.NewDense(len(y), d, rows)
		sol, err := numerics.HardMarginSVM(x, y, nil)
		require.NoError(t, err)
		dir := sol.Direction()
		assert.InDelta(t, 1, floats.Norm(dir, 2), 1e-15)
		for j := range dir {
			assert.InDelta(t, sol.W[j]/floats.Norm(sol.W, 2), dir[j], 1e-15)
		}
		amax := floats.Max(sol.Alpha)
		var kkt float64
		for n := range y {
			m := y[n] * floats.Dot(sol.W, x.RawRowView(n))
			kkt = math.Max(kkt, 1-m)
			if sol.Alpha[n] > 0 {
				kkt = math.Max(kkt, sol.Alpha[n]/amax*math.Abs(m-1))
			}
		}
		// W and the decisions are recomputed here in another order:
		// rounding of ⟨w, x⟩ with ‖w‖ up to 1/0.02, 1e-13.
		assert.InDelta(t, kkt, sol.KKTResidual, 1e-13, "instance %d (max α %.3g)", it, amax)
		checkNormSq(t, sol)
	}
	// One dimension: Q_SS is singular, the NNLS stage answers (its
	// complementarity is not exact), and NormSq is still ‖w‖².
	sol, err := numerics.HardMarginSVM(mat.NewDense(4, 1, []float64{1, -1, 2, -3}), []float64{1, -1, 1, -1}, nil)
	require.NoError(t, err)
	checkNormSq(t, sol)
}

// checkNormSq: NormSq = ‖W‖² = 1/Margin² (to the rounding of a sum of N
// products: 1e-14 relative).
func checkNormSq(t *testing.T, sol *numerics.SVM) {
	t.Helper()
	w2 := floats.Dot(sol.W, sol.W)
	assert.InDelta(t, w2, sol.NormSq, 1e-14*w2)
	assert.InDelta(t, 1/math.Sqrt(w2), sol.Margin, 1e-14/math.Sqrt(w2))
}

package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/losses"
)

// TestFlowOrder: Dormand–Prince 5(4) with error-per-step control takes
// steps h ∝ Tol^{1/5}, so the number of accepted steps over a fixed stretch
// of flow grows like Tol^{−1/5}: from Tol = 1e-6 to 1e-12 by 10^{6/5} ≈ 16.
// The bound 32 allows a factor 2 for the first step (Hairer's estimate) and
// the last, partial one; a method of order 4 or less (a wrong stage or error
// coefficient) needs 10^{6/4} ≈ 32 times the steps or more. At each
// tolerance the flow must also follow the exact solution of
// TestFlowExactSolution (e^{θ_i(t)} = e^{θ_i(0)} + t) to 8·Tol·(1 + |θ|)
// per accepted step: the flow contracts (∂θ̇_i/∂θ_i = −e^{−θ_i} < 0), so
// local errors do not grow; each is within √3·Tol·(1 + |θ|) in θ (an rms of
// 3 components ≤ 1) and as much in the clock ζ = log t, which moves θ by as
// much (dθ/dζ = t·e^{−θ} ≈ 1): 2√3 ≈ 3.5, doubled because the estimate
// bounds the embedded 4th-order solution, not the 5th-order one returned.
func TestFlowOrder(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}}
	theta0 := []float64{0.5, -1}
	steps := map[float64]int{}
	for _, tol := range []float64{1e-6, 1e-12} {
		obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
		require.NoError(t, err)
		fl, err := NewFlow(tol)
		require.NoError(t, err)
		theta := append([]float64(nil), theta0...)
		tr, err := Run(obj, fl, theta, Config{Steps: 100000, StopLogLoss: -20})
		require.NoError(t, err)
		steps[tol] = fl.Accepted
		last := tr.Final()
		for i, v := range tr.Theta {
			want := last.LogT + math.Log1p(math.Exp(theta0[i]-last.LogT))
			bound := 8 * tol * (1 + math.Abs(want)) * float64(fl.Accepted)
			assert.InDelta(t, want, v, bound, "Tol %g: θ[%d] after %d steps", tol, i, fl.Accepted)
		}
	}
	ratio := float64(steps[1e-12]) / float64(steps[1e-6])
	t.Logf("accepted steps: %d at Tol 1e-6, %d at 1e-12 (ratio %.3g; 5th order: 16)", steps[1e-6], steps[1e-12], ratio)
	assert.Less(t, ratio, 32.0)
	assert.Greater(t, ratio, 4.0, "fewer steps at a tighter tolerance than a 5th-order method can take")
}

// The measured order. Dormand–Prince 5(4) is a 5th-order method: with a
// fixed step h its global error over a fixed interval is
//
//	E(h) = C·h⁵·(1 + κh + O(h²))
//
// (Hairer, Nørsett & Wanner, Solving ODEs I, Thm II.3.6), so the observed
// order between h and h/2,
//
//	p̂ = log₂ E(h)/E(h/2) = 5 + log₂((1 + κh)/(1 + κh/2)) = 5 + κh/(2 ln 2) + O(h²),
//
// tends to 5 as h falls, its deviation halving with h. The h⁶ term is
// removed by Richardson extrapolation over three steps h, h/2, h/4:
//
//	p̃ = 2·p̂(h/2) − p̂(h) = 5 + O(h²),
//
// and orderBand is the band the tests require of p̃. Measured on the clean
// tableau over the tests' step ranges (8 to 64 steps), p̂ deviates from 5
// by 0.34 → 0.17 → 0.08 (linear ODE) and 0.37 → 0.22 → 0.12 (the flow):
// halving, as the expansion says, and p̃ is within 0.08 of 5; the errors
// stay above 10⁻¹¹, 10³ times the rounding of the solution (≈ n·ε·|y| ≈
// 1e-14), so rounding does not reach the band. A method of order 4 (a
// wrong weight that keeps Σ b_i = 1 and the lower conditions) has p̃ near 4,
// one that is not consistent (Σ b_i ≠ 1) near 0 or 1: far outside.
const orderBand = 0.25

// observedOrders returns p̂ = log₂ E(h)/E(h/2) for the consecutive pairs of
// the errors errs, measured at steps halving from one to the next.
func observedOrders(errs []float64) []float64 {
	var p []float64
	for i := 1; i < len(errs); i++ {
		p = append(p, math.Log2(errs[i-1]/errs[i]))
	}
	return p
}

// withinBand reports whether every Richardson-extrapolated order
// 2·p̂_{k+1} − p̂_k of the observed orders is within band of want.
func withinBand(orders []float64, want, band float64) bool {
	for k := 1; k < len(orders); k++ {
		p := 2*orders[k] - orders[k-1]
		if !(math.Abs(p-want) <= band) {
			return false
		}
	}
	return len(orders) > 1
}

// tableauSolve integrates y' = f(y) from y over [0, T] in n fixed steps of
// the explicit Runge–Kutta method with stage matrix a (the first six rows
// of Dormand–Prince's) and solution weights b (its seventh row), returning
// y(T).
func tableauSolve(a *[7][6]float64, b [6]float64, f func(dst, y []float64), y []float64, T float64, n int) []float64 {
	y = append([]float64(nil), y...)
	d := len(y)
	var k [6][]float64
	for i := range k {
		k[i] = make([]float64, d)
	}
	stage := make([]float64, d)
	h := T / float64(n)
	for s := 0; s < n; s++ {
		for i := 0; i < 6; i++ {
			copy(stage, y)
			for j := 0; j < i; j++ {
				for m := range stage {
					stage[m] += h * a[i][j] * k[j][m]
				}
			}
			f(k[i], stage)
		}
		for m := range y {
			for j := 0; j < 6; j++ {
				y[m] += h * b[j] * k[j][m]
			}
		}
	}
	return y
}

// faultyRow is the tableau fault of issue 32, the registry's
// "tableau-b1-misplaced" (package faults): the solution row with b₁ =
// 35/38.4 for 35/384 (a misplaced decimal point), planted through the
// integrator's fault hook (Flow.PlantFault, enginefault.Flow.B) with the
// error row intact. One definition: enginefault.MisplacedB1.
var faultyRow = *enginefault.MisplacedB1()

// linearODEOrders measures the observed orders of the tableau with solution
// row b on y' = Ay, A = [[−1, 2], [−2, −1]] (a decaying rotation), from
// y(0) = (1, 0.5) over [0, 2] against the exact e^{At}y(0) =
// e^{−t}R(2t)y(0), with 8, 16, 32, 64 steps.
func linearODEOrders(b [6]float64) ([]float64, []float64) {
	f := func(dst, y []float64) { dst[0], dst[1] = -y[0]+2*y[1], -2*y[0]-y[1] }
	y0 := []float64{1, 0.5}
	const T = 2.0
	c, s := math.Cos(2*T), math.Sin(2*T)
	e := math.Exp(-T)
	want := []float64{e * (c*y0[0] + s*y0[1]), e * (-s*y0[0] + c*y0[1])}
	var errs []float64
	for _, n := range []int{8, 16, 32, 64} {
		got := tableauSolve(&dpA, b, f, y0, T, n)
		errs = append(errs, math.Hypot(got[0]-want[0], got[1]-want[1]))
	}
	return observedOrders(errs), errs
}

// TestDormandPrinceOrderLinear: the tableau's solution row is of order 5
// on a linear ODE (orderBand); the tableau fault (faultyRow), a wrong b₁
// with the error row intact, is not (Σ b_i ≠ 1: the error stops falling).
func TestDormandPrinceOrderLinear(t *testing.T) {
	var b [6]float64
	copy(b[:], dpA[6][:])
	orders, errs := linearODEOrders(b)
	t.Logf("clean: errors %.3g, observed orders %.4g", errs, orders)
	assert.True(t, withinBand(orders, 5, orderBand), "observed orders %v outside 5 ± %g", orders, orderBand)
	orders, errs = linearODEOrders(faultyRow)
	t.Logf("tableau fault: errors %.3g, observed orders %.4g", errs, orders)
	assert.False(t, withinBand(orders, 5, orderBand), "the order test passes a tableau with Σ b_i ≠ 1")
}

// flowFixedSteps integrates the flow of obj from theta (in place) by n
// fixed Dormand–Prince steps of size h in the time s (Flow.stages, with
// the step-size controller bypassed) and returns log t, the flow time the
// integrator's clock reports.
func flowFixedSteps(t *testing.T, fl *Flow, obj *Objective, theta []float64, h float64, n int) float64 {
	t.Helper()
	fl.alloc(len(theta))
	logT := math.Inf(-1)
	for s := 0; s < n; s++ {
		ev, err := obj.Evaluate(theta, true)
		require.NoError(t, err)
		copy(fl.y0, theta)
		for i, v := range ev.Dir {
			fl.k[0][i] = -v
		}
		if !fl.clock {
			fl.zeta, fl.clock = -ev.LogObjective, true
		}
		fl.kz[0] = math.Exp(-ev.LogObjective - fl.zeta)
		ok, err := fl.stages(obj, h)
		require.NoError(t, err)
		require.True(t, ok)
		copy(theta, fl.y)
		logDt := fl.zetaY + math.Log(-math.Expm1(fl.zeta-fl.zetaY))
		fl.zeta = fl.zetaY
		if math.IsInf(logT, -1) {
			logT = logDt
		} else {
			m := math.Max(logT, logDt)
			logT = m + math.Log(math.Exp(logT-m)+math.Exp(logDt-m))
		}
	}
	return logT
}

// singleSampleFlowOrders measures the observed orders of the flow
// integrator (with the solution row b; nil: the clean one) on the gradient
// flow of the exponential loss on one sample, 𝓛 = e^{−u}, u = y⟨θ, x⟩,
// whose solution is closed-form: du/dt = ‖x‖²e^{−u}, so e^{u(t)} = e^{u(0)}
// + ‖x‖²t, and θ moves along y·x. In the time s the flow is θ(s) = θ(0) +
// s·y·x, which every consistent method follows exactly; the error is in
// the clock ζ = log(t + 1/𝓛(0)), dζ/ds = e^{u − ζ}, which moves unless
// ‖x‖ = 1 (here ‖x‖² = 2). The error is |u(θ_n) − u(t_n)|: the integrated
// θ against the exact solution at the integrated flow time t_n, over s ∈
// [0, 3] (t from 0 to ≈ 200) with 8, 16, 32, 64 steps.
func singleSampleFlowOrders(t *testing.T, b *[6]float64) ([]float64, []float64) {
	x := []float64{1, -1}
	d := &dataset.Dataset{N: 1, D: 2, X: x, Y: []float64{1}}
	theta0 := []float64{0.2, 0.1}
	u0 := theta0[0] - theta0[1]
	var errs []float64
	for _, n := range []int{8, 16, 32, 64} {
		obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Exponential{}), d)
		require.NoError(t, err)
		fl, err := NewFlow(0)
		require.NoError(t, err)
		fl.PlantFault(&enginefault.Flow{B: b})
		theta := append([]float64(nil), theta0...)
		logT := flowFixedSteps(t, fl, obj, theta, 3/float64(n), n)
		u := theta[0] - theta[1]
		// log(e^{u0} + ‖x‖²t), in log domain.
		a, c := u0, math.Log(2)+logT
		m := math.Max(a, c)
		want := m + math.Log(math.Exp(a-m)+math.Exp(c-m))
		errs = append(errs, math.Abs(u-want))
	}
	return observedOrders(errs), errs
}

// TestFlowOrderSingleSample: the flow integrator itself (Flow.stages at a
// fixed step) is of order 5 on the exponential loss's closed-form flow
// (orderBand); under the tableau fault (faultyRow) it is not.
func TestFlowOrderSingleSample(t *testing.T) {
	orders, errs := singleSampleFlowOrders(t, nil)
	t.Logf("clean: errors %.3g, observed orders %.4g", errs, orders)
	assert.True(t, withinBand(orders, 5, orderBand), "observed orders %v outside 5 ± %g", orders, orderBand)
	row := faultyRow
	orders, errs = singleSampleFlowOrders(t, &row)
	t.Logf("tableau fault: errors %.3g, observed orders %.4g", errs, orders)
	assert.False(t, withinBand(orders, 5, orderBand), "the order test passes a tableau with Σ b_i ≠ 1")
}

// rootedTree is a rooted tree as the multiset of its root's subtrees (in a
// canonical order), for the Runge–Kutta order conditions (Butcher): a
// method is of order p when Σ_i b_i Φ_i(τ) = 1/γ(τ) for every tree τ of at
// most p nodes, with Φ_i(•) = 1, Φ_i([τ₁…τ_m]) = Π_k Σ_j a_ij Φ_j(τ_k),
// and γ(τ) = |τ|·Π_k γ(τ_k).
type rootedTree []rootedTree

func (t rootedTree) size() int {
	n := 1
	for _, c := range t {
		n += c.size()
	}
	return n
}

func (t rootedTree) gamma() float64 {
	g := float64(t.size())
	for _, c := range t {
		g *= c.gamma()
	}
	return g
}

// phi returns Φ_i(τ) for the stages i of the stage matrix a (s stages).
func (t rootedTree) phi(a [][]float64) []float64 {
	s := len(a)
	out := make([]float64, s)
	for i := range out {
		out[i] = 1
	}
	for _, c := range t {
		pc := c.phi(a)
		for i := 0; i < s; i++ {
			var sum float64
			for j := 0; j < i; j++ {
				sum += a[i][j] * pc[j]
			}
			out[i] *= sum
		}
	}
	return out
}

// treesUpTo returns every rooted tree of 1…p nodes, each once: a tree of n
// nodes is a root with a multiset of subtrees of total size n − 1, taken
// in non-increasing order of their index in the list so far.
func treesUpTo(p int) []rootedTree {
	var all []rootedTree
	bySize := map[int][]int{} // indices into all
	var build func(left, maxIdx int, kids rootedTree, emit func(rootedTree))
	build = func(left, maxIdx int, kids rootedTree, emit func(rootedTree)) {
		if left == 0 {
			emit(append(rootedTree(nil), kids...))
			return
		}
		for idx := min(maxIdx, len(all)-1); idx >= 0; idx-- {
			if sz := all[idx].size(); sz <= left {
				build(left-sz, idx, append(kids, all[idx]), emit)
			}
		}
	}
	for n := 1; n <= p; n++ {
		var fresh []rootedTree
		build(n-1, len(all)-1, nil, func(t rootedTree) { fresh = append(fresh, t) })
		for _, t := range fresh {
			bySize[n] = append(bySize[n], len(all))
			all = append(all, t)
		}
	}
	return all
}

// orderDefects returns, for every tree of at most p nodes, |Σ_i b_i Φ_i(τ)
// − 1/γ(τ)| and its rounding bound: the sum is over at most 7 stages of
// products of at most p − 1 inner sums of at most 6 terms each, so its
// computed value is within γ_k·(Σ_i |b_i| Φ_i^{abs}(τ)) of the exact one
// (Higham, Accuracy and Stability, §3.1), Φ^{abs} the same recursion on
// |a|, with k ≤ 6(p − 1) + 7 + p ≤ 40 roundings for p ≤ 5, plus the
// rounding of the coefficients themselves (½ ulp each, as many terms):
// 64ε·(Σ |terms| + 1/γ) covers both.
func orderDefects(a [][]float64, b []float64, p int) (defect, bound []float64) {
	absA := make([][]float64, len(a))
	for i, row := range a {
		absA[i] = make([]float64, len(row))
		for j, v := range row {
			absA[i][j] = math.Abs(v)
		}
	}
	for _, t := range treesUpTo(p) {
		ph, pa := t.phi(a), t.phi(absA)
		var sum, abs float64
		for i, bi := range b {
			sum += bi * ph[i]
			abs += math.Abs(bi) * pa[i]
		}
		want := 1 / t.gamma()
		defect = append(defect, math.Abs(sum-want))
		bound = append(bound, 64*0x1p-52*(abs+want))
	}
	return defect, bound
}

// dpStages returns Dormand–Prince's stage matrix as 7 rows of 7 (a_ij, j < i).
func dpStages() [][]float64 {
	a := make([][]float64, 7)
	for i := range a {
		a[i] = make([]float64, 7)
		copy(a[i], dpA[i][:])
	}
	return a
}

// TestDormandPrinceTableau: the tableau's consistency, to rounding. The
// nodes c = (0, 1/5, 3/10, 4/5, 8/9, 1, 1) of Hairer, Nørsett & Wanner's
// Table 5.2 are the row sums Σ_j a_ij; the solution weights b (the last row
// of a, first-same-as-last) are dpB and satisfy the 17 order conditions of
// order 5 (the trees of 1…5 nodes: 1 + 1 + 2 + 4 + 9), Σ b_i = 1 the first;
// the embedded weights b̂ = b − e satisfy the 8 of order 4 and not all of
// order 5 (else the error estimate would be of higher order than it
// claims). The tableau fault (faultyRow) fails Σ b_i = 1.
func TestDormandPrinceTableau(t *testing.T) {
	const eps = 0x1p-52
	c := []float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}
	for i, row := range dpA {
		var sum, abs float64
		for _, v := range row {
			sum += v
			abs += math.Abs(v)
		}
		assert.InDelta(t, c[i], sum, 8*eps*(abs+c[i]), "row %d: c_i = Σ_j a_ij", i+1)
	}
	a := dpStages()
	b := make([]float64, 7)
	copy(b, dpA[6][:])
	assert.Equal(t, dpB[:], b, "b is the last row of a")
	require.Len(t, treesUpTo(5), 17)
	require.Len(t, treesUpTo(4), 8)

	defect, bound := orderDefects(a, b, 5)
	for k := range defect {
		assert.LessOrEqual(t, defect[k], bound[k], "order condition %d of b", k+1)
	}
	bhat := make([]float64, 7)
	for i := range bhat {
		bhat[i] = b[i] - dpE[i]
	}
	assert.InDelta(t, 1, floats.Sum(bhat), 16*eps, "Σ b̂_i = 1")
	defect, bound = orderDefects(a, bhat, 4)
	for k := range defect {
		assert.LessOrEqual(t, defect[k], bound[k], "order condition %d of b̂", k+1)
	}
	defect, bound = orderDefects(a, bhat, 5)
	var missed bool
	for k := range defect {
		missed = missed || defect[k] > 1e6*bound[k]
	}
	assert.True(t, missed, "b̂ is of order 4 exactly: some 5th-order condition fails")

	wrong := make([]float64, 7)
	copy(wrong, faultyRow[:])
	defect, bound = orderDefects(a, wrong, 1)
	assert.Greater(t, defect[0], 1e6*bound[0], "the tableau fault: Σ b_i = %v", floats.Sum(wrong))
}

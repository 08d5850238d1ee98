package losses

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// References for the cross-entropy of LL App. F, from its definition
//
//	ℓ(s; c) = log(1 + Σ_{j≠c} e^{−(s_c − s_j)}),
//	∂ℓ/∂s_j = e^{s_j − s_c}/(1 + Σ)  (j ≠ c),  ∂ℓ/∂s_c = −Σ/(1 + Σ),
//
// with Σ = Σ_{j≠c} e^{s_j − s_c}. The inputs are the K scores and, for the
// gradient, the shift as a last entry.

// ceSum returns Σ_{j≠c} e^{s_j − s_c}, the differences formed exactly.
func ceSum(r bigref.Ref, s []*big.Float, c int) *big.Float {
	sum := r.Z()
	for j := range s {
		if j != c {
			d := new(big.Float).SetPrec(2200).Sub(s[j], s[c])
			sum = r.Add(sum, r.Exp(d))
		}
	}
	return sum
}

func ceRefLogLoss(c int) bigref.FuncN {
	return func(r bigref.Ref, s []*big.Float) *big.Float {
		w := r.W()
		return r.Log(w.Log1p(ceSum(w, s, c)))
	}
}

// ceRefGrad returns e^{−shift}·∂ℓ/∂s_i; x = (s_0, …, s_{K−1}, shift).
func ceRefGrad(c, i int) bigref.FuncN {
	return func(r bigref.Ref, x []*big.Float) *big.Float {
		w := r.W()
		s, shift := x[:len(x)-1], x[len(x)-1]
		sum := ceSum(w, s, c)
		var num *big.Float
		if i == c {
			num = w.Neg(sum)
		} else {
			num = w.Exp(new(big.Float).SetPrec(2200).Sub(s[i], s[c]))
		}
		return r.Quo(w.Mul(num, w.Exp(w.Neg(shift))), w.AddF(sum, 1))
	}
}

type ceCase struct {
	s []float64
	c int
}

// ceCases are score vectors of K = 2, 3, 5 classes: margins s_c − max s_j of
// −50 to 1e5 (ℓ ≈ e^{−1e5} underflows, log ℓ must not), ties, and random
// vectors (fixed seed) at three scales.
func ceCases() []ceCase {
	cases := []ceCase{
		{[]float64{1e3, 0, -2}, 0},
		{[]float64{0, 1e3, 999}, 1},
		{[]float64{1e5, 0, 0}, 0},
		{[]float64{3, 1, 2}, 0},
		{[]float64{-1, 5, 0.5}, 0},
		{[]float64{1e5, 1e5 - 1e3, 0}, 0},
		{[]float64{2.5, 2.5, 2.5}, 2},
		{[]float64{1e5, 0, 1, 2, -3}, 0},
		{[]float64{0.1, 0.2, 0.3, 0.4, 0.5}, 4},
		{[]float64{-7, 1e3, 3, 2, 1}, 1},
		{[]float64{1e3, -1e3, 500, 999.5, 0}, 0},
		// Collected from a failure: the true class far below the others.
		// ScaledGrad formed s_j − s_c − ℓ − shift and lost ε·|s_c| (2e4
		// units) before it subtracted the top score instead.
		{[]float64{-1e5, 0, 1, 2, 3}, 0},
	}
	for _, q := range []float64{-50, -1, 0, 1e-8, 1, 20, 38, 1e3, 1e5} {
		cases = append(cases, ceCase{[]float64{q, 0}, 0}, ceCase{[]float64{0.5, 0.5 + q}, 1})
	}
	rnd := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 30; i++ {
		k := []int{2, 3, 5}[i%3]
		sc := []float64{1, 50, 1e4}[i/3%3]
		s := make([]float64, k)
		for j := range s {
			s[j] = (2*rnd.Float64() - 1) * sc
		}
		cases = append(cases, ceCase{s, rnd.IntN(k)})
	}
	return cases
}

// Budgets in units of ε·(|F| + S) (internal/bigref/compare.go). LogLoss: z = LSE_{j≠c}(s_j
// − s_c) is LogSumExp's formula with one more rounding per term (≤ 4 units
// for K ≤ 5, as numerics tests LogSumExp), then LogLog1pExp (3 units) whose
// derivative σ(z)/softplus(z) ≤ 1 passes z's error on: 7. ScaledGrad: the
// exponent s_j − s_c − log(1+e^z) − shift takes 3 roundings and the error of
// log(1+e^z) (5 units), and exp turns its absolute error into a relative one:
// 9; the entry for c sums K − 1 of those.
const (
	budgetCELogLoss = 7
	budgetCEGrad    = 9
)

// check compares got with the reference F at x (named label in the cache
// refs), once the test has no failure yet, computing the sensitivity S
// only when the error is not already within budget on the scale |want| (which
// saves most of the time: S costs two reference evaluations per input). The
// units it adds to w are then measured on |want| alone: an upper bound.
func check(t *testing.T, w *bigref.Worst, what, label string, got float64, F bigref.FuncN, budget float64, x ...float64) {
	t.Helper()
	if t.Failed() {
		// The first failure says enough; each further check costs a
		// reference evaluation (the shift is often the code's own log ℓ,
		// so a broken loss asks for references at new points).
		return
	}
	want := refs.AtN(label, F, x...)
	if got == want {
		return
	}
	if math.IsNaN(got) || math.IsInf(got, 0) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	s := 0.0
	if !bigref.Within(got, want, 0, budget) {
		s = refs.SensitivityN(label, F, x...)
	}
	if !bigref.Within(got, want, s, budget) {
		t.Errorf("%s = %v, want %v (%.3g units)", what, got, want, bigref.Units(got, want, s))
	}
	if w != nil {
		w.Add(bigref.Units(got, want, s), 0)
	}
}

// TestCrossEntropyAccuracy compares LogLoss and ScaledGrad with the
// references for K = 2, 3, 5, with shift 0, the engine's shift log ℓ, and
// log ℓ + 3.
func TestCrossEntropyAccuracy(t *testing.T) {
	t.Parallel()
	var ce CrossEntropy
	var wl, wg bigref.Worst
	for _, tc := range ceCases() {
		y := float64(tc.c)
		logL := ce.LogLoss(tc.s, y)
		check(t, &wl, fmt.Sprintf("LogLoss(%v, %d)", tc.s, tc.c), fmt.Sprintf("ce.LogLoss/%d", tc.c), logL, ceRefLogLoss(tc.c), budgetCELogLoss, tc.s...)
		dst := make([]float64, len(tc.s))
		for _, shift := range []float64{0, logL, logL + 3} {
			ce.ScaledGrad(dst, tc.s, y, shift)
			x := append(append([]float64{}, tc.s...), shift)
			for i := range dst {
				budget := float64(budgetCEGrad)
				if i == tc.c {
					budget *= float64(len(tc.s) - 1)
				}
				check(t, &wg, fmt.Sprintf("ScaledGrad(%v, %d, shift %v)[%d]", tc.s, tc.c, shift, i), fmt.Sprintf("ce.Grad/%d/%d", tc.c, i), dst[i], ceRefGrad(tc.c, i), budget, x...)
			}
		}
	}
	t.Logf("LogLoss: worst error ≤ %.3g units (budget %d); ScaledGrad: ≤ %.3g units (budget %d per entry)", wl.Units, budgetCELogLoss, wg.Units, budgetCEGrad)
}

// TestCrossEntropyShiftedGrad: with shift = log ℓ (LL App. K.2, as the engine
// calls it) the scaled gradient is ∂ℓ/∂s / ℓ: finite for any margin, its
// entries sum to 0 (Σ_j ∂ℓ/∂s_j = 0, up to K roundings of the sum), and the
// entry of the true class lies in [−1, 0): it is −Σ/((1+Σ)·log(1+Σ)) and
// log(1+Σ) ≥ Σ/(1+Σ). In float64 the bound −1 moves by the error of the
// rounded shift (budgetCELogLoss units of ε(|log ℓ| + S) with S ≤ 2Σ|s_j|)
// and of the entry itself (K − 1 times budgetCEGrad units): at a margin of
// 1e5 the entry is −1 − 1.6e-12, as the reference computed with the rounded
// shift is.
func TestCrossEntropyShiftedGrad(t *testing.T) {
	t.Parallel()
	var ce CrossEntropy
	for _, tc := range ceCases() {
		y := float64(tc.c)
		dst := make([]float64, len(tc.s))
		shift := ce.LogLoss(tc.s, y)
		ce.ScaledGrad(dst, tc.s, y, shift)
		var sum, abs, scale float64
		for i, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("ScaledGrad(%v, %d, log ℓ) = %v: not finite", tc.s, tc.c, dst)
			}
			sum += v
			abs += math.Abs(v)
			scale += 2 * math.Abs(tc.s[i])
		}
		if math.Abs(sum) > float64(len(dst))*bigref.Eps*abs {
			t.Errorf("ScaledGrad(%v, %d, log ℓ) = %v sums to %v", tc.s, tc.c, dst, sum)
		}
		k := float64(len(dst))
		tol := (budgetCELogLoss + budgetCEGrad*(k-1)) * bigref.Eps * (1 + math.Abs(shift) + scale)
		if g := dst[tc.c]; !(g < 0 && g >= -1-tol) {
			t.Errorf("ScaledGrad(%v, %d, log ℓ)[c] = %v, want in [−1 − %.3g, 0)", tc.s, tc.c, g, tol)
		}
	}
}

// TestCrossEntropyBinary: for K = 2 the cross-entropy is the logistic loss of
// the margin q = s_c − s_other (LL App. F). LogLoss is bitwise equal: z =
// s_other − s_c and the logistic loss's −q = −(s_c − s_other) are the same
// float (IEEE subtraction is antisymmetric) and both are LogLog1pExp(z).
// The gradients are compared with the same reference.
func TestCrossEntropyBinary(t *testing.T) {
	t.Parallel()
	var ce CrossEntropy
	bin := NewBinary(Logistic{})
	for _, s := range [][]float64{{0, 0}, {1, 0}, {0, 1}, {-50, 0}, {1e3, 0}, {1e5, 0}, {1e5, 1e5 - 37}, {0.3, -1e6}, {-1e6, 0.3}} {
		for c := 0; c < 2; c++ {
			q := s[c] - s[1-c]
			got, want := ce.LogLoss(s, float64(c)), Logistic{}.LogLoss(q)
			if got != want {
				t.Errorf("CrossEntropy.LogLoss(%v, %d) = %v, Logistic.LogLoss(%v) = %v", s, c, got, q, want)
			}
			g2 := make([]float64, 2)
			g1 := make([]float64, 1)
			ce.ScaledGrad(g2, s, float64(c), want)
			bin.ScaledGrad(g1, []float64{q}, 1, want)
			// ∂ℓ/∂s_c = ℓ′(q), the binary gradient at y = +1: both against
			// the cross-entropy's reference, and ∂ℓ/∂s_other = −∂ℓ/∂s_c.
			x := []float64{s[0], s[1], want}
			what := fmt.Sprintf("ScaledGrad(%v, %d, log ℓ)", s, c)
			check(t, nil, "CrossEntropy."+what, fmt.Sprintf("ce.Grad/%d/%d", c, c), g2[c], ceRefGrad(c, c), budgetCEGrad, x...)
			check(t, nil, "binary logistic "+what, fmt.Sprintf("ce.Grad/%d/%d", c, c), g1[0], ceRefGrad(c, c), budgetBinaryGrad, x...)
			if g2[1-c] != -g2[c] {
				t.Errorf("CrossEntropy.%s = %v: entries not opposite", what, g2)
			}
		}
	}
}

// TestCrossEntropySpecialCases: infinite scores of other classes.
func TestCrossEntropySpecialCases(t *testing.T) {
	t.Parallel()
	var ce CrossEntropy
	// Every other score −Inf: ℓ = log(1 + 0) = 0 and the gradient is 0.
	s := []float64{0, ninf, ninf}
	if got := ce.LogLoss(s, 0); got != ninf {
		t.Errorf("LogLoss(%v, 0) = %v, want -Inf", s, got)
	}
	dst := make([]float64, 3)
	ce.ScaledGrad(dst, s, 0, 0)
	for i, v := range dst {
		if v != 0 {
			t.Errorf("ScaledGrad(%v, 0)[%d] = %v, want 0", s, i, v)
		}
	}
	// One other score +Inf: ℓ = +Inf.
	if got := ce.LogLoss([]float64{0, inf, 1}, 0); got != inf {
		t.Errorf("LogLoss([0 +Inf 1], 0) = %v, want +Inf", got)
	}
	if ce.Name() != "ce" || ce.Kind() != MultiClass {
		t.Errorf("Name, Kind = %q, %v", ce.Name(), ce.Kind())
	}
	if _, ok := ce.MarginLoss().(Logistic); !ok {
		t.Errorf("MarginLoss() = %T, want Logistic", ce.MarginLoss())
	}
}

func BenchmarkCrossEntropyLogLoss(b *testing.B) {
	var ce CrossEntropy
	s := []float64{1e3, 0.5, -2, 999.5, 3, 1, 0, -1, 2, 4}
	b.ReportAllocs()
	for b.Loop() {
		sink = ce.LogLoss(s, 0)
	}
}

func BenchmarkCrossEntropyScaledGrad(b *testing.B) {
	var ce CrossEntropy
	s := []float64{1e3, 0.5, -2, 999.5, 3, 1, 0, -1, 2, 4}
	dst := make([]float64, len(s))
	shift := ce.LogLoss(s, 0)
	b.ReportAllocs()
	for b.Loop() {
		ce.ScaledGrad(dst, s, 0, shift)
	}
	sink = dst[0]
}

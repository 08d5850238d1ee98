package losses

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// References for ℓ(p; y) = ½(p − y)² (ZD §4.1) of x = (p, y) and, for the
// gradient, x = (p, y, shift): log ℓ = log(r²/2), e^{−shift}·∂ℓ/∂p = r·e^{−shift},
// with r = p − y formed exactly.
func squaredResidual(x []*big.Float) *big.Float {
	return new(big.Float).SetPrec(2200).Sub(x[0], x[1])
}

var (
	squaredRefLogLoss bigref.FuncN = func(r bigref.Ref, x []*big.Float) *big.Float {
		w := r.W()
		res := squaredResidual(x)
		return r.Log(w.Quo(w.Mul(res, res), w.F(2)))
	}
	squaredRefGrad bigref.FuncN = func(r bigref.Ref, x []*big.Float) *big.Float {
		w := r.W()
		return r.Mul(squaredResidual(x), w.Exp(w.Neg(x[2])))
	}
)

// Budgets in units of ε·(|F| + S): LogLoss is log (1 ulp), ×2 (exact), − log 2
// (½ ulp and the ½ ulp of log 2): 2. ScaledGrad is exp(−shift) (1 ulp) times r
// (½), or, outside the normal range, exp(log|r| − shift): log (1 ulp of
// |log r|), the subtraction (½) and exp (1), all covered by S = |F|(1 +
// |shift|) where the result is finite: 3.
const (
	budgetSquaredLogLoss = 2
	budgetSquaredGrad    = 3
)

func TestSquared(t *testing.T) {
	t.Parallel()
	var sq Squared
	dst := make([]float64, 1)
	var wl, wg bigref.Worst
	for _, c := range [][2]float64{
		{1, 0}, {0, 1}, {-3, 4}, {1e-300, 0}, {5e-324, 0}, {0, 1e-310}, {3, 3 + 0x1p-51},
		{1e300, -1e300}, {-1e-200, 0}, {1e154, 0}, {0.1, 0.2},
	} {
		p, y := c[0], c[1]
		logL := sq.LogLoss([]float64{p}, y)
		check(t, &wl, fmt.Sprintf("LogLoss(%v, %v)", p, y), "squared.LogLoss", logL, squaredRefLogLoss, budgetSquaredLogLoss, p, y)
		for _, shift := range []float64{0, logL, -700, 700, -1e4, 1e4, logL - 30} {
			sq.ScaledGrad(dst, []float64{p}, y, shift)
			check(t, &wg, fmt.Sprintf("ScaledGrad(%v, %v, shift=%v)", p, y, shift), "squared.Grad", dst[0], squaredRefGrad, budgetSquaredGrad, p, y, shift)
		}
	}
	t.Logf("LogLoss: worst error ≤ %.3g units (budget %d); ScaledGrad: ≤ %.3g units (budget %d)", wl.Units, budgetSquaredLogLoss, wg.Units, budgetSquaredGrad)

	// An exact fit: ℓ = 0, so log ℓ = −Inf, and the gradient is 0 (never NaN),
	// whatever the shift, including the log ℓ = −Inf of a fitted data set.
	for _, p := range []float64{0, 3.5, -1e300, 5e-324} {
		if got := sq.LogLoss([]float64{p}, p); got != ninf {
			t.Errorf("LogLoss(%v, %v) = %v, want -Inf", p, p, got)
		}
		for _, shift := range []float64{0, -1e4, 1e4, ninf, inf} {
			sq.ScaledGrad(dst, []float64{p}, p, shift)
			if dst[0] != 0 {
				t.Errorf("ScaledGrad(%v, %v, shift=%v) = %v, want 0", p, p, shift, dst[0])
			}
		}
	}
	// The special cases of the doc comment.
	for _, test := range []struct {
		p, y, want float64
	}{
		{inf, 0, inf},
		{0, ninf, inf},
		{inf, inf, nan},
		{nan, 0, nan},
		{0, nan, nan},
	} {
		if got := sq.LogLoss([]float64{test.p}, test.y); !bigref.Same(got, test.want) {
			t.Errorf("LogLoss(%v, %v) = %v, want %v", test.p, test.y, got, test.want)
		}
	}
	// The example in regression form: r = 1e-200 and shift = log ℓ =
	// 2 log 1e-200 − log 2 ≈ −921.7: ℓ is 5e-401 (0 in float64) but the scaled
	// gradient r/ℓ = 2/r = 2e200 is ordinary.
	sq.ScaledGrad(dst, []float64{1e-200}, 0, sq.LogLoss([]float64{1e-200}, 0))
	if want := 2e200; !bigref.Within(dst[0], want, 0, 1000) {
		t.Errorf("ScaledGrad(1e-200, 0, log ℓ) = %v, want ≈ %v", dst[0], want)
	}
	if sq.Name() != "squared" || sq.Kind() != Regression {
		t.Errorf("Name, Kind = %q, %v", sq.Name(), sq.Kind())
	}
	if math.IsNaN(dst[0]) {
		t.Error("NaN gradient")
	}
}

func BenchmarkSquaredScaledGrad(b *testing.B) {
	var sq Squared
	dst := make([]float64, 1)
	s := []float64{0.75}
	b.ReportAllocs()
	for b.Loop() {
		sq.ScaledGrad(dst, s, 0.25, -3)
	}
	sink = dst[0]
}

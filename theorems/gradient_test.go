package theorems

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFDCompareHighCurvature: at a point where the gradient is small next
// to the third derivative, f(θ) = θ₀³/6 + δ(θ₀ + θ₁) at θ = 0 (∇f = (δ, δ), f‴ = 1),
// second-order central differences are off by h²/6 = 6e-12, which is 4e-6
// of ‖∇f‖ at δ = 1e-6 (the ENG-grad soak finding); the fourth-order stencil is
// exact on cubics up to rounding (ε·|f|/h with |f| ≤ 1e-11 here), and a
// gradient that is wrong by 1e-5 relative is still reported.
func TestFDCompareHighCurvature(t *testing.T) {
	const delta = 1e-6
	f := func(th []float64, pat []byte) (float64, []byte) {
		return th[0]*th[0]*th[0]/6 + delta*(th[0]+th[1]), pat
	}
	theta := []float64{0, 0}
	gnorm := math.Sqrt2 * delta
	// The case: second-order central differences miss the bound.
	fp, _ := f([]float64{GradFDStep, 0}, nil)
	fm, _ := f([]float64{-GradFDStep, 0}, nil)
	if e := math.Abs((fp-fm)/(2*GradFDStep)-delta) / gnorm; !(e > GradFDBound) {
		t.Fatalf("the case: second-order error %g of ‖∇‖, want > %g", e, GradFDBound)
	}
	worst, used, skipped, detail := fdCompare(f, theta, []float64{delta, delta}, rand.New(rand.NewPCG(1, 2)))
	if !(worst <= 1e-9) || used != 2+gradFDDirections || skipped != 0 {
		t.Errorf("right gradient: worst %g (%s), used %d, skipped %d", worst, detail, used, skipped)
	}
	worst, _, _, detail = fdCompare(f, theta, []float64{delta, delta * (1 + 1e-5)}, rand.New(rand.NewPCG(1, 2)))
	if !(worst > GradFDBound) {
		t.Errorf("gradient wrong by 1e-5 relative: worst %g (%s), want > %g", worst, detail, GradFDBound)
	}
}

package homogeneity

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
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
	worst, used, skipped, detail := fdCompare(f, theta, []float64{delta, delta}, GradFDStep, rand.New(rand.NewPCG(1, 2)))
	if !(worst <= 1e-9) || used != gradFDDirections(2) || skipped != 0 {
		t.Errorf("right gradient: worst %g (%s), used %d, skipped %d", worst, detail, used, skipped)
	}
	worst, _, _, detail = fdCompare(f, theta, []float64{delta, delta * (1 + 1e-5)}, GradFDStep, rand.New(rand.NewPCG(1, 2)))
	if !(worst > GradFDBound) {
		t.Errorf("gradient wrong by 1e-5 relative: worst %g (%s), want > %g", worst, detail, GradFDBound)
	}
}

// TestObjectiveFDNearAFit: the squared loss of one sample at a residual r =
// 1e-5 has log F = log(r²/2), singular at r = 0, with ‖∇ log F‖ = 2‖x‖/r ≈
// 4.5e5: at the default step the fourth-order differences are far off (h
// is 2.7 times the distance to the singularity), at objFDStepShare/‖∇‖
// they resolve the gradient, and a gradient wrong by 1e-5 relative is
// still reported. ObjectiveGradientFD picks that step (soak seed
// 1795342569138253).
func TestObjectiveFDNearAFit(t *testing.T) {
	const r = 1e-5
	x := []float64{1, 2}
	theta := []float64{0.2, 0.4 + r/2} // ⟨θ, x⟩ = 1 + r
	f := func(th []float64, pat []byte) (float64, []byte) {
		d := th[0]*x[0] + th[1]*x[1] - 1
		return math.Log(d * d / 2), pat
	}
	grad := []float64{2 * x[0] / r, 2 * x[1] / r}
	gnorm := math.Hypot(grad[0], grad[1])
	worst, _, _, _ := fdCompare(f, theta, grad, GradFDStep, rand.New(rand.NewPCG(1, 2)))
	if !(worst > GradFDBound) {
		t.Fatalf("the case: default step error %g, want > %g", worst, GradFDBound)
	}
	h := objFDStepShare / gnorm
	worst, _, _, detail := fdCompare(f, theta, grad, h, rand.New(rand.NewPCG(1, 2)))
	if !(worst <= GradFDBound/100) {
		t.Errorf("scaled step: error %g (%s), want ≤ %g", worst, detail, GradFDBound/100)
	}
	bad := []float64{grad[0], grad[1] * (1 + 1e-5)}
	if worst, _, _, detail = fdCompare(f, theta, bad, h, rand.New(rand.NewPCG(1, 2))); !(worst > GradFDBound) {
		t.Errorf("gradient wrong by 1e-5: error %g (%s), want > %g", worst, detail, GradFDBound)
	}
	m, err := models.NewLinear(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := train.NewObjective(m, losses.Squared{}, &dataset.Dataset{N: 1, D: 2, X: x, Y: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if v := ObjectiveGradientFD(obj, theta, rand.New(rand.NewPCG(1, 2))); v.Status != theorems.Holds {
		t.Errorf("ObjectiveGradientFD near the fit: %v", v)
	}
}

// TestGradFDDirections: K is the least number of directions whose escape
// bound q^K is at most GradFDEscape, with q = τ(2+ρ)/ρ·√(2p/π) at
// ρ = GradFDMinShift (gradFDDirections' derivation).
func TestGradFDDirections(t *testing.T) {
	for _, tc := range []struct{ p, k int }{{1, 3}, {2, 3}, {10, 3}, {300, 4}, {12000, 8}, {1e9, gradFDMaxDirections}} {
		k := gradFDDirections(tc.p)
		q := GradFDBound * (2 + GradFDMinShift) / GradFDMinShift * math.Sqrt(2*float64(tc.p)/math.Pi)
		if k != tc.k {
			t.Errorf("p = %d: K = %d, want %d", tc.p, k, tc.k)
		}
		if q < 1 && k < gradFDMaxDirections && (math.Pow(q, float64(k)) > GradFDEscape || math.Pow(q, float64(k-1)) <= GradFDEscape) {
			t.Errorf("p = %d: K = %d is not the least K with q^K ≤ %g (q = %g)", tc.p, k, GradFDEscape, q)
		}
	}
}

// TestDirectionEscape: the sphere bound the escape probability rests on,
// P(|⟨e, v⟩| ≤ t‖e‖) ≤ t·√(2p/π) for v uniform on the unit sphere, holds
// by Monte Carlo (p = 10, t = 0.05: the exact value is 0.116, the bound
// 0.126); and a gradient wrong by GradFDMinShift relative is reported on
// every one of 200 draws of directions (escape ≤ GradFDEscape each).
func TestDirectionEscape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const p, tt, draws = 10, 0.05, 20000
	v := make([]float64, p)
	hits := 0
	for range draws {
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		if math.Abs(v[0])/floats.Norm(v, 2) <= tt { // e = e₀
			hits++
		}
	}
	q := tt * math.Sqrt(2*p/math.Pi)
	if sd := math.Sqrt(q * (1 - q) / draws); float64(hits)/draws > q+4*sd {
		t.Errorf("P(|u| ≤ %g) = %g by Monte Carlo, above the bound %g", tt, float64(hits)/draws, q)
	}
	const n = 300
	a := make([]float64, n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	f := func(th []float64, pat []byte) (float64, []byte) { return floats.Dot(a, th), pat }
	theta := make([]float64, n)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	for s := range uint64(200) {
		e := make([]float64, n)
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		floats.Scale(GradFDMinShift*floats.Norm(a, 2)/floats.Norm(e, 2), e)
		floats.Add(e, a)
		if worst, _, _, detail := fdCompare(f, theta, e, GradFDStep, rand.New(rand.NewPCG(s, 7))); !(worst > GradFDBound) {
			t.Fatalf("draw %d: a gradient wrong by %g passed: %g (%s)", s, GradFDMinShift, worst, detail)
		}
	}
}

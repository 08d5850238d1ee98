package losses_test

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/losses"
)

// The logistic loss at a margin of 1e6, where ℓ(q) = log(1 + e^{−q}) is
// e^{−1e6}: far below the smallest float64. Its log, f, f′ and the inverse g
// used by the smoothed margin γ̃ = g(log 1/𝓛)/ρ^L (LL Remark A.2) stay exact.
func ExampleLogistic() {
	var l losses.Logistic
	q := 1e6
	fmt.Println("naive ℓ(q):", math.Log1p(math.Exp(-q)))
	fmt.Println("log ℓ(q):  ", l.LogLoss(q))
	fmt.Println("f′(q):     ", l.FPrime(q))
	u := l.F(q) // log 1/ℓ(q)
	fmt.Println("g(f(q)):   ", l.G(u))
	fmt.Println("g′(f(q)):  ", l.GPrime(u))

	// At the margin 0 (ℓ = log 2, the threshold of LL (B4)) g inverts f too.
	fmt.Printf("|g(f(0))| < 1e-15: %v, threshold log ℓ(b_f) = %.6f\n", math.Abs(l.G(l.F(0))) < 1e-15, losses.LogThreshold(l))
	// Output:
	// naive ℓ(q): 0
	// log ℓ(q):   -1e+06
	// f′(q):      1
	// g(f(q)):    1e+06
	// g′(f(q)):   1
	// |g(f(0))| < 1e-15: true, threshold log ℓ(b_f) = -0.366513
}

// The cross-entropy of three classes at a margin of 1000: ℓ ≈ e^{−1000}
// underflows, but log ℓ is exact, and the gradient scaled by e^{−log ℓ} (as
// the training engine asks for it) is ∂ℓ/∂s / ℓ, of order 1, summing to 0.
func ExampleCrossEntropy() {
	var ce losses.CrossEntropy
	s := []float64{1000, 0, -5} // scores; the true class is 0
	logL := ce.LogLoss(s, 0)
	fmt.Printf("log ℓ = %.10f\n", logL) // −1000 + log(1 + e^{−5})
	grad := make([]float64, 3)
	ce.ScaledGrad(grad, s, 0, logL)
	fmt.Printf("∂ℓ/∂s / ℓ = [%.6f %.6f %.6f]\n", grad[0], grad[1], grad[2])
	// Output:
	// log ℓ = -999.9932846515
	// ∂ℓ/∂s / ℓ = [-1.000000 0.993307 0.006693]
}

// The polynomially tailed loss of ZD eq. (19) with App. C's α = 1, β = 0:
// f′(q)·q tends to α instead of growing without bound, so LL's assumption
// (B3.3) fails, and f′ jumps from ½ to 1 at the kink q = β (B3.1 fails).
func ExamplePolyTail() {
	p := losses.ZDPolyTail()
	for _, q := range []float64{1, 1e3, 1e6} {
		fmt.Printf("q = %g: f′(q)·q = %.6f\n", q, p.FPrime(q)*q)
	}
	fmt.Println("f′(0⁻) =", p.FPrime(-1e-300), " f′(0) =", p.FPrime(0))
	// Output:
	// q = 1: f′(q)·q = 0.500000
	// q = 1000: f′(q)·q = 0.999001
	// q = 1e+06: f′(q)·q = 0.999999
	// f′(0⁻) = 0.5  f′(0) = 1
}

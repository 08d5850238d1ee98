package numerics_test

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// The training loss 𝓛 = Σ_n ℓ_n of three samples whose losses are e^{−1000},
// e^{−1001} and e^{−10000}: every ℓ_n underflows in float64, but log 𝓛 and
// the per-sample weights ℓ_n/𝓛 = e^{log ℓ_n − log 𝓛} are ordinary numbers.
func ExampleLogSumExp() {
	logLoss := []float64{-1000, -1001, -1e4}

	naive := math.Log(math.Exp(logLoss[0]) + math.Exp(logLoss[1]) + math.Exp(logLoss[2]))
	fmt.Println("naive log 𝓛:", naive)

	logL := numerics.LogSumExp(logLoss)
	fmt.Printf("log 𝓛 = %.12f\n", logL)
	for n, v := range logLoss {
		fmt.Printf("weight %d: %.12f\n", n, math.Exp(v-logL))
	}
	// Output:
	// naive log 𝓛: -Inf
	// log 𝓛 = -999.686738312482
	// weight 0: 0.731058578630
	// weight 1: 0.268941421370
	// weight 2: 0.000000000000
}

// The softplus log(1 + e^x) at both ends of the range, where the textbook
// formula underflows to 0 or overflows to +Inf.
func ExampleLog1pExp() {
	for _, x := range []float64{-800, -40, 0, 40, 800} {
		naive := math.Log(1 + math.Exp(x))
		fmt.Printf("x = %4g: Log1pExp = %-22v naive = %v\n", x, numerics.Log1pExp(x), naive)
	}
	// Output:
	// x = -800: Log1pExp = 0                      naive = 0
	// x =  -40: Log1pExp = 4.248354255291589e-18  naive = 0
	// x =    0: Log1pExp = 0.6931471805599453     naive = 0.6931471805599453
	// x =   40: Log1pExp = 40                     naive = 40
	// x =  800: Log1pExp = 800                    naive = +Inf
}

// The log-loss of the logistic loss at margin q is LogLog1pExp(−q): finite
// for margins far beyond the 37 at which ℓ(q) = log(1 + e^{−q}) is e^{−q}
// to double precision and the 745 at which it underflows.
func ExampleLogLog1pExp() {
	for _, q := range []float64{0, 40, 1e3, 1e6} {
		fmt.Printf("q = %g: log ℓ = %v, naive %v\n", q, numerics.LogLog1pExp(-q), math.Log(math.Log1p(math.Exp(-q))))
	}
	// Output:
	// q = 0: log ℓ = -0.36651292058166435, naive -0.36651292058166435
	// q = 40: log ℓ = -40, naive -40
	// q = 1000: log ℓ = -1000, naive -Inf
	// q = 1e+06: log ℓ = -1e+06, naive -Inf
}

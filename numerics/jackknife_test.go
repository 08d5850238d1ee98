package numerics

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestJackknifeSE: for the mean, the jackknife standard error equals the
// classical s/√n exactly (Efron & Tibshirani 1993, §11.2).
func TestJackknifeSE(t *testing.T) {
	x := []float64{2.1, 3.7, 1.2, 5.5, 4.4, 2.9}
	n := len(x)
	loo := make([]float64, n)
	for k := range x {
		var s float64
		for i, v := range x {
			if i != k {
				s += v
			}
		}
		loo[k] = s / float64(n-1)
	}
	want := stat.StdDev(x, nil) / math.Sqrt(float64(n))
	if got := JackknifeSE(loo); math.Abs(got-want) > 1e-14*want {
		t.Errorf("JackknifeSE of the mean = %.17g, want s/√n = %.17g", got, want)
	}
	for _, b := range [][]float64{nil, {1}} {
		if got := JackknifeSE(b); !math.IsNaN(got) {
			t.Errorf("JackknifeSE(%v) = %v, want NaN", b, got)
		}
	}
}

func ExampleJackknifeSE() {
	fmt.Printf("%.4f\n", JackknifeSE([]float64{1.0, 1.2, 0.8, 1.0}))
	// Output: 0.2449
}

package losses

import (
	"fmt"
	"math"
	"testing"
)

// TestSlopes: the closed forms agree with Slope and CentralCurv on the
// Margin, and ExpTail tells the exponential tails from the polynomial one.
func TestSlopes(t *testing.T) {
	for _, u := range []float64{-30, -2, 0, 0.5, 3, 40, 700} {
		if got, want := LogisticSlope(u), Slope(Logistic{}, u); math.Abs(got-want) > 1e-14*want {
			t.Errorf("LogisticSlope(%g) = %.17g, Slope(Logistic) = %.17g", u, got, want)
		}
		if got, want := ExpSlope(u), Slope(Exponential{}, u); math.Abs(got-want) > 1e-14*want {
			t.Errorf("ExpSlope(%g) = %.17g, Slope(Exponential) = %.17g", u, got, want)
		}
		if u < 50 {
			// Truncation h²/6·|ℓ⁗/ℓ″| ≤ 3e-6 relative (h ≤ 4e-3 here),
			// rounding ε/h ≤ 1e-13 absolute.
			got := CentralCurv(LogisticSlope, u)
			if want := LogisticCurv(u); math.Abs(got-want) > 1e-5*want+1e-12 {
				t.Errorf("CentralCurv(logistic, %g) = %.10g, want ℓ″ = %.10g", u, got, want)
			}
		}
	}
	tests := []struct {
		name string
		m    Margin
		c    float64
		ok   bool
	}{
		{"exp", Exponential{}, 1, true},
		{"logistic", Logistic{}, 1, true},
		{"poly", ZDPolyTail(), 0, false},
	}
	for _, tc := range tests {
		c, ok := ExpTail(tc.m)
		if ok != tc.ok || math.Abs(c-tc.c) > 1e-12 {
			t.Errorf("ExpTail(%s) = %v, %v; want %v, %v", tc.name, c, ok, tc.c, tc.ok)
		}
	}
}

func ExampleExpTail() {
	c, ok := ExpTail(Logistic{})
	fmt.Println(c, ok)
	// Output: 1 true
}

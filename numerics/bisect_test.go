package numerics

import (
	"fmt"
	"math"
	"testing"
)

func TestBisectSign(t *testing.T) {
	tests := []struct {
		name string
		u    func(float64) float64
		a, b float64
		want float64
	}{
		{"sqrt2", func(x float64) float64 { return x*x - 2 }, 0, 2, math.Sqrt2},
		{"exact zero at the midpoint", func(x float64) float64 { return x - 1 }, 0, 2, 1},
		{"decreasing", func(x float64) float64 { return math.Cos(x) }, 1, 2, math.Pi / 2},
		{"tiny bracket", func(x float64) float64 { return x - 1e-300 }, 0, 1e-299, 1e-300},
	}
	for _, tc := range tests {
		got := BisectSign(tc.u, tc.a, tc.b)
		if math.Abs(got-tc.want) > 2*math.Abs(math.Nextafter(tc.want, math.Inf(1))-tc.want) {
			t.Errorf("%s: BisectSign = %.17g, want %.17g to adjacent floats", tc.name, got, tc.want)
		}
	}
}

func ExampleBisectSign() {
	x := BisectSign(func(x float64) float64 { return x*x*x - 3 }, 0, 3)
	fmt.Printf("%.15f\n", x)
	// Output: 1.442249570307408
}

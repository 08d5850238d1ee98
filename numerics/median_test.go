package numerics

import (
	"fmt"
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, math.NaN()},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{-1, math.Inf(1), 5}, 5},
	}
	for _, tc := range tests {
		in := append([]float64(nil), tc.xs...)
		got := Median(in)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.xs[i] {
				t.Errorf("Median(%v) reordered its input to %v", tc.xs, in)
				break
			}
		}
	}
}

func ExampleMedian() {
	fmt.Println(Median([]float64{5, 1, 4, 2}), Median([]float64{5, 1, 4}))
	// Output: 3 4
}

package numerics

import (
	"fmt"
	"math"
	"testing"
)

func TestProjectOnto(t *testing.T) {
	s := 1 / math.Sqrt2
	tests := []struct {
		name  string
		basis [][]float64
		v     []float64
		want  []float64
	}{
		{"empty basis", nil, []float64{1, 2}, []float64{0, 0}},
		{"axis", [][]float64{{1, 0, 0}}, []float64{3, 4, 5}, []float64{3, 0, 0}},
		{"diagonal plane", [][]float64{{s, s, 0}, {0, 0, 1}}, []float64{1, 3, 2}, []float64{2, 2, 2}},
		{"whole space", [][]float64{{0, 1}, {1, 0}}, []float64{-1, 7}, []float64{-1, 7}},
	}
	for _, tc := range tests {
		got := ProjectOnto(tc.basis, tc.v)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-15*4 {
				t.Errorf("%s: ProjectOnto = %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

func ExampleProjectOnto() {
	fmt.Println(ProjectOnto([][]float64{{0, 1, 0}}, []float64{2, 3, 4}))
	// Output: [0 3 0]
}

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

// TestExtendBasis: independent vectors extend the basis to an orthonormal
// one; a vector in the span (to rounding) and the zero vector do not.
func TestExtendBasis(t *testing.T) {
	var basis [][]float64
	for _, v := range [][]float64{{1, 1, 0}, {1, 0, 1}, {2, 1, 1}, {0, 0, 0}, {0, 1, 1e-12}} {
		basis = ExtendBasis(basis, append([]float64(nil), v...))
	}
	if len(basis) != 3 {
		t.Fatalf("basis of %d vectors, want 3 ({2,1,1} is in the span of the first two, 0 adds nothing, {0,1,1e-12} is new)", len(basis))
	}
	for i, a := range basis {
		for j, b := range basis {
			want := 0.0
			if i == j {
				want = 1
			}
			var d float64
			for k := range a {
				d += a[k] * b[k]
			}
			if math.Abs(d-want) > 1e-14 {
				t.Errorf("⟨b%d, b%d⟩ = %g, want %g", i, j, d, want)
			}
		}
	}
	if got := ExtendBasis(basis[:2:2], []float64{3, 2, 1 + 1e-14}); len(got) != 2 {
		t.Errorf("a vector in the span to rounding extended the basis")
	}
}

package dataset

import "testing"

func TestContradiction(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		i, j int
		ok   bool
	}{
		{"none", []float64{1, 0, 0, 1, 1, 1}, []float64{1, -1, 1}, 0, 0, false},
		{"same label twice", []float64{1, 2, 1, 2}, []float64{1, 1}, 0, 0, false},
		{"opposite", []float64{3, 1, 1, 2, 1, 2}, []float64{1, 1, -1}, 1, 2, true},
		{"apart", []float64{1, 2, 5, 5, 1, 2}, []float64{-1, 1, 1}, 0, 2, true},
		{"run of three", []float64{0, 1, 0, 1, 0, 1}, []float64{1, 1, -1}, 1, 2, true},
		{"signed zero", []float64{0, 1, -0.0, 1}, []float64{1, -1}, 0, 1, true},
		{"classes", []float64{2, 2, 2, 2}, []float64{0, 3}, 0, 1, true},
	} {
		d := &Dataset{N: len(tc.y), D: len(tc.x) / len(tc.y), X: tc.x, Y: tc.y}
		i, j, ok := d.Contradiction()
		if ok != tc.ok || (ok && (i != tc.i || j != tc.j)) {
			t.Errorf("%s: Contradiction() = %d, %d, %v; want %d, %d, %v", tc.name, i, j, ok, tc.i, tc.j, tc.ok)
		}
	}
}

package numerics

import "gonum.org/v1/gonum/floats"

// ProjectOnto returns the orthogonal projection of v on the span of an
// orthonormal basis,
//
//	P v = Σ_b ⟨v, b⟩ b,
//
// summed in the basis' order. The basis must be orthonormal (as from a
// Gram–Schmidt or a QR factorization); it is not checked. An empty basis
// gives the zero vector.
func ProjectOnto(basis [][]float64, v []float64) []float64 {
	out := make([]float64, len(v))
	for _, b := range basis {
		floats.AddScaled(out, floats.Dot(v, b), b)
	}
	return out
}

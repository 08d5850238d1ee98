package numerics

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

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

// ExtendBasis appends v to the orthonormal basis when v has a component
// outside the basis's span, and returns the basis: classical Gram–Schmidt,
// run twice for rounding ("twice is enough", Giraud et al. 2005), keeping
// the normalized remainder when its norm exceeds 1e-9·max(‖v‖, 1) (the
// relative level below which it is rounding of a vector in the span). v is
// overwritten and, when appended, is the new basis vector.
func ExtendBasis(basis [][]float64, v []float64) [][]float64 {
	norm0 := floats.Norm(v, 2)
	for range 2 {
		for _, b := range basis {
			floats.AddScaled(v, -floats.Dot(v, b), b)
		}
	}
	if nv := floats.Norm(v, 2); nv > 1e-9*math.Max(norm0, 1) {
		floats.Scale(1/nv, v)
		basis = append(basis, v)
	}
	return basis
}

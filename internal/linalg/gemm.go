// Package linalg holds the dense kernels the engine's hot loops call on flat
// row-major slices, without allocating.
//
// They are the only place where the engine multiplies matrices, so a faster
// kernel (blocked, assembly) replaces these functions and nothing else.
package linalg

import "gonum.org/v1/gonum/floats"

// MulABt sets C = A·Bᵀ (+ C when accumulate), with A m×k (row stride lda),
// B n×k (stride ldb) and C m×n (stride ldc): C[i][j] = ⟨A_i, B_j⟩.
func MulABt(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool) {
	for i := 0; i < m; i++ {
		ai := a[i*lda : i*lda+k]
		ci := c[i*ldc : i*ldc+n]
		for j := range ci {
			d := floats.Dot(ai, b[j*ldb:j*ldb+k])
			if accumulate {
				ci[j] += d
			} else {
				ci[j] = d
			}
		}
	}
}

// MulAB sets C = A·B (+ C when accumulate), with A m×k (stride lda), B k×n
// (stride ldb) and C m×n (stride ldc), as rows C_i = Σ_l A[i][l]·B_l.
func MulAB(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if !accumulate {
			clear(ci)
		}
		ai := a[i*lda : i*lda+k]
		for l, v := range ai {
			if v != 0 {
				floats.AddScaled(ci, v, b[l*ldb:l*ldb+n])
			}
		}
	}
}

// MulAtB sets C = Aᵀ·B (+ C when accumulate), with A k×m (stride lda), B k×n
// (stride ldb) and C m×n (stride ldc), as C_i = Σ_l A[l][i]·B_l.
func MulAtB(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool) {
	if !accumulate {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
	}
	for l := 0; l < k; l++ {
		al := a[l*lda : l*lda+m]
		bl := b[l*ldb : l*ldb+n]
		for i, v := range al {
			if v != 0 {
				floats.AddScaled(c[i*ldc:i*ldc+n], v, bl)
			}
		}
	}
}

package numerics

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// passiveQR is the QR factorization of the passive columns of NNLS's
// matrix, kept up to date as columns enter (Lawson and Hanson, ch. 24):
// a column that enters is orthogonalized against the kept ones (classical
// Gram–Schmidt with one reorthogonalization, which leaves Q orthonormal to
// working precision), O(m·k) for k passive columns on m rows, where
// factorizing the sub-problem afresh costs O(m·k²). A column that leaves
// from the middle (the inner loop's boundary step, rare) rebuilds the
// factor. The solution is the same as a fresh QR's up to rounding.
type passiveQR struct {
	a    func(j int) []float64 // column j of the matrix
	c    []float64             // the right-hand side
	cols []int                 // the factored columns, in factor order
	q    [][]float64           // orthonormal columns
	r    [][]float64           // r[k] is column k of R, length k+1
	qc   []float64             // qᵀc
}

// sync makes the factor the passive set's: trailing columns that left are
// dropped, columns that entered are added in index order, anything else
// rebuilds.
func (f *passiveQR) sync(passive []bool) {
	for len(f.cols) > 0 && !passive[f.cols[len(f.cols)-1]] {
		f.pop()
	}
	in := make(map[int]bool, len(f.cols))
	for _, j := range f.cols {
		if !passive[j] {
			f.cols, f.q, f.r, f.qc = f.cols[:0], f.q[:0], f.r[:0], f.qc[:0]
			clear(in)
			break
		}
		in[j] = true
	}
	for j, p := range passive {
		if p && !in[j] {
			f.add(j)
		}
	}
}

func (f *passiveQR) pop() {
	k := len(f.cols) - 1
	f.cols, f.q, f.r, f.qc = f.cols[:k], f.q[:k], f.r[:k], f.qc[:k]
}

// add appends column j: v = a_j − Q(Qᵀa_j), twice.
func (f *passiveQR) add(j int) {
	a := f.a(j)
	v := append([]float64(nil), a...)
	k := len(f.q)
	rc := make([]float64, k+1)
	for range 2 {
		for i, qi := range f.q {
			d := floats.Dot(qi, v)
			rc[i] += d
			floats.AddScaled(v, -d, qi)
		}
	}
	nv := floats.Norm(v, 2)
	rc[k] = nv
	if nv > 0 {
		floats.Scale(1/nv, v)
	}
	f.cols = append(f.cols, j)
	f.q = append(f.q, v)
	f.r = append(f.r, rc)
	f.qc = append(f.qc, floats.Dot(v, f.c))
}

// solve writes the least-squares solution on the factored columns into z
// (indexed by column; the others untouched) and returns false when R is
// singular or its condition number (LAPACK's estimate, as mat.QR.Cond) is
// not below limit.
func (f *passiveQR) solve(z []float64, limit float64) bool {
	k := len(f.cols)
	if k == 0 {
		return true
	}
	t := blas64.Triangular{N: k, Stride: k, Uplo: blas.Upper, Diag: blas.NonUnit, Data: make([]float64, k*k)}
	for col, rc := range f.r {
		for i, v := range rc {
			t.Data[i*k+col] = v
		}
	}
	for i := 0; i < k; i++ {
		if t.Data[i*k+i] == 0 {
			return false
		}
	}
	rcond := lapack64.Trcon(lapack.MaxRowSum, t, make([]float64, 3*k), make([]int, k))
	if !(1/rcond < limit) || math.IsNaN(rcond) {
		return false
	}
	sol := append([]float64(nil), f.qc...)
	blas64.Trsv(blas.NoTrans, t, blas64.Vector{N: k, Inc: 1, Data: sol})
	for i, j := range f.cols {
		z[j] = sol[i]
	}
	return true
}

package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A matrix stored row-major in a slice with row stride ld ≥ cols; entries
// past the last column of a row are padding, which the kernels must neither
// read into the result nor write.
type strided struct {
	rows, cols, ld int
	data           []float64
}

// sentinel fills padding, so that reading it shows up in results and
// writing it is detected.
const sentinel = 1e300

func newStrided(r *rand.Rand, rows, cols, pad int, integer bool) strided {
	s := strided{rows: rows, cols: cols, ld: cols + pad}
	s.data = make([]float64, max(0, (rows-1)*s.ld+cols)) // no padding after the last row
	for i := range s.data {
		s.data[i] = sentinel
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if integer {
				s.data[i*s.ld+j] = float64(r.IntN(9) - 4)
			} else {
				s.data[i*s.ld+j] = r.NormFloat64()
			}
		}
	}
	return s
}

func (s strided) at(i, j int) float64 { return s.data[i*s.ld+j] }

func (s strided) clone() strided {
	c := s
	c.data = append([]float64(nil), s.data...)
	return c
}

// The naive references: C[i][j] (+)= Σ_l op(A)[i][l]·op(B)[l][j], with the
// products summed left to right; abs is the same sum of |products|, which
// bounds the rounding error of any summation order by k·ε·abs (Higham,
// Accuracy and Stability of Numerical Algorithms, §3.1: |fl(Σ) − Σ| ≤
// γ_k Σ|terms|, γ_k = kε/(1−kε)).
func naive(m, n, k int, a, b func(i, j int) float64) (c, abs [][]float64) {
	c, abs = make([][]float64, m), make([][]float64, m)
	for i := range c {
		c[i], abs[i] = make([]float64, n), make([]float64, n)
		for j := range c[i] {
			for l := 0; l < k; l++ {
				p := a(i, l) * b(l, j)
				c[i][j] += p
				abs[i][j] += math.Abs(p)
			}
		}
	}
	return c, abs
}

type kernel struct {
	name string
	// shapes of A and B for C m×n with inner dimension k
	aShape, bShape func(m, n, k int) (int, int)
	// op(A)[i][l] and op(B)[l][j]
	opA, opB func(s strided) func(i, j int) float64
	call     func(m, n, k int, a, b, c strided, acc bool)
}

func direct(s strided) func(i, j int) float64 { return s.at }
func transposed(s strided) func(i, j int) float64 {
	return func(i, j int) float64 { return s.at(j, i) }
}

var kernels = []kernel{
	{
		name:   "MulABt",
		aShape: func(m, n, k int) (int, int) { return m, k },
		bShape: func(m, n, k int) (int, int) { return n, k },
		opA:    direct, opB: transposed,
		call: func(m, n, k int, a, b, c strided, acc bool) {
			MulABt(m, n, k, a.data, a.ld, b.data, b.ld, c.data, c.ld, acc)
		},
	},
	{
		name:   "MulAB",
		aShape: func(m, n, k int) (int, int) { return m, k },
		bShape: func(m, n, k int) (int, int) { return k, n },
		opA:    direct, opB: direct,
		call: func(m, n, k int, a, b, c strided, acc bool) {
			MulAB(m, n, k, a.data, a.ld, b.data, b.ld, c.data, c.ld, acc)
		},
	},
	{
		name:   "MulAtB",
		aShape: func(m, n, k int) (int, int) { return k, m },
		bShape: func(m, n, k int) (int, int) { return k, n },
		opA:    transposed, opB: direct,
		call: func(m, n, k int, a, b, c strided, acc bool) {
			MulAtB(m, n, k, a.data, a.ld, b.data, b.ld, c.data, c.ld, acc)
		},
	},
}

func TestKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const eps = 0x1p-52
	shapes := [][3]int{{1, 1, 1}, {1, 1, 5}, {1, 7, 1}, {6, 1, 1}, {2, 3, 4}, {4, 3, 2}, {5, 5, 5}, {3, 8, 17}, {17, 2, 9}, {13, 31, 7}, {33, 16, 64}}
	for i := 0; i < 20; i++ {
		shapes = append(shapes, [3]int{1 + r.IntN(12), 1 + r.IntN(12), 1 + r.IntN(12)})
	}
	for _, kn := range kernels {
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			for _, pads := range [][3]int{{0, 0, 0}, {1, 2, 3}, {5, 0, 1}} {
				for _, integer := range []bool{true, false} {
					for _, acc := range []bool{false, true} {
						name := fmt.Sprintf("%s m=%d n=%d k=%d pads=%v integer=%v acc=%v", kn.name, m, n, k, pads, integer, acc)
						ar, ac := kn.aShape(m, n, k)
						br, bc := kn.bShape(m, n, k)
						a := newStrided(r, ar, ac, pads[0], integer)
						b := newStrided(r, br, bc, pads[1], integer)
						c0 := newStrided(r, m, n, pads[2], integer)
						c := c0.clone()
						a0, b0 := a.clone(), b.clone()
						kn.call(m, n, k, a, b, c, acc)

						assert.Equal(t, a0.data, a.data, "%s: A modified", name)
						assert.Equal(t, b0.data, b.data, "%s: B modified", name)
						want, abs := naive(m, n, k, kn.opA(a), kn.opB(b))
						for i := 0; i < m; i++ {
							for j := 0; j < n; j++ {
								w, bound := want[i][j], float64(k)*eps*abs[i][j]
								if acc {
									// c0 is one more term of the sum.
									w += c0.at(i, j)
									bound = float64(k+1) * eps * (abs[i][j] + math.Abs(c0.at(i, j)))
								}
								got := c.at(i, j)
								if integer {
									// Small integers: every product and sum is
									// exact, so any order gives the same.
									require.Equal(t, w, got, "%s: C[%d][%d]", name, i, j)
								} else {
									require.LessOrEqual(t, math.Abs(got-w), bound, "%s: C[%d][%d] = %v, want %v", name, i, j, got, w)
								}
							}
							for j := n; j < c.ld && i*c.ld+j < len(c.data); j++ {
								require.Equal(t, sentinel, c.data[i*c.ld+j], "%s: padding C[%d][%d] written", name, i, j)
							}
						}
					}
				}
			}
		}
	}
}

// TestKernelsEmptyInner checks k = 0: the product is the zero matrix.
func TestKernelsEmptyInner(t *testing.T) {
	for _, kn := range kernels {
		c := strided{rows: 2, cols: 3, ld: 4, data: []float64{1, 2, 3, sentinel, 4, 5, 6}}
		kn.call(2, 3, 0, strided{data: nil}, strided{data: nil}, c, true)
		assert.Equal(t, []float64{1, 2, 3, sentinel, 4, 5, 6}, c.data, kn.name)
		kn.call(2, 3, 0, strided{data: nil}, strided{data: nil}, c, false)
		assert.Equal(t, []float64{0, 0, 0, sentinel, 0, 0, 0}, c.data, kn.name)
	}
}

func TestKernelsNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	a := newStrided(r, 16, 16, 0, false)
	b := newStrided(r, 16, 16, 0, false)
	c := newStrided(r, 16, 16, 0, false)
	for _, kn := range kernels {
		allocs := testing.AllocsPerRun(10, func() { kn.call(16, 16, 16, a, b, c, true) })
		assert.Zero(t, allocs, kn.name)
	}
}

var sink float64

// The shapes of the engine's hot loop: the dense layers of a width-128 MLP
// on a batch of 1000 (forward A·Wᵀ, backward gOutᵀ·A and gOut·W).
func BenchmarkKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][3]int{{1000, 128, 128}, {1000, 128, 50}, {200, 64, 20}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, kn := range kernels {
			ar, ac := kn.aShape(m, n, k)
			br, bc := kn.bShape(m, n, k)
			a := newStrided(r, ar, ac, 0, false)
			bm := newStrided(r, br, bc, 0, false)
			c := newStrided(r, m, n, 0, false)
			b.Run(fmt.Sprintf("%s/m=%d/n=%d/k=%d", kn.name, m, n, k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					kn.call(m, n, k, a, bm, c, false)
					sink += c.data[0]
				}
				b.ReportMetric(float64(2*m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestTranspose checks Transpose on shapes around its 32×32 blocks, with
// strides past the rows, and that short operands panic.
func TestTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, sh := range [][2]int{{1, 1}, {1, 40}, {33, 1}, {31, 32}, {64, 65}, {70, 33}} {
		rows, cols := sh[0], sh[1]
		src := newStrided(r, rows, cols, 3, false)
		dst := newStrided(r, cols, rows, 2, false)
		Transpose(dst.data, dst.ld, src.data, src.ld, rows, cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				require.Equal(t, src.at(i, j), dst.at(j, i), "%v: [%d][%d]", sh, i, j)
			}
		}
		for j := 0; j < cols; j++ {
			for i := rows; i < dst.ld && j*dst.ld+i < len(dst.data); i++ {
				require.Equal(t, sentinel, dst.data[j*dst.ld+i], "%v: padding written", sh)
			}
		}
		require.Panics(t, func() { Transpose(dst.data[:len(dst.data)-1], dst.ld, src.data, src.ld, rows, cols) })
		require.Panics(t, func() { Transpose(dst.data, dst.ld, src.data[:len(src.data)-1], src.ld, rows, cols) })
	}
}

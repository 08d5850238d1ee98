package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSumRows checks SumRows of every set against adding the rows to a
// cleared dst (or to dst, accumulating) one by one with Go's +, bit for
// bit (NaN payloads aside), at every column count modulo 16 and 4, with
// ±0, ±Inf and NaN among the values, without writing past dst.
func TestSumRows(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, math.Inf(1), math.Inf(-1), math.NaN(), 1e308, 5e-324}
	r := rand.New(rand.NewPCG(8, 8))
	for _, ks := range available {
		for _, rows := range []int{0, 1, 2, 7, 33} {
			for cols := 1; cols <= 37; cols++ {
				acc := cols%2 == 0
				m := make([]float64, rows*cols)
				for i := range m {
					if r.IntN(4) == 0 {
						m[i] = special[r.IntN(len(special))]
					} else {
						m[i] = r.NormFloat64()
					}
				}
				start := make([]float64, cols)
				for j := range start {
					start[j] = special[r.IntN(len(special))]
				}
				want := make([]float64, cols)
				if acc {
					copy(want, start)
				}
				for i := 0; i < rows; i++ {
					for j := range want {
						want[j] += m[i*cols+j]
					}
				}
				got := sentineled(cols)
				copy(got, start)
				withSet(ks, func() { SumRows(got[:cols], m, rows, acc) })
				name := fmt.Sprintf("%s SumRows rows=%d cols=%d acc=%v", ks.name, rows, cols, acc)
				requireSameBits(t, want, got[:cols], name)
				requireSentinel(t, name, got, cols)
			}
		}
	}
}

// TestAddRows checks AddRows of every set, with and without ReLU, against
// m[r][j] + b[j] by Go's + (then ReLU's definition) bit for bit (NaN
// payloads aside), at every column count modulo 4, with ±0, ±Inf, NaN
// and subnormals among the values, without writing past m.
func TestAddRows(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, math.Inf(1), math.Inf(-1), math.NaN(), 1e308, 5e-324, -5e-324}
	r := rand.New(rand.NewPCG(8, 9))
	value := func() float64 {
		if r.IntN(3) == 0 {
			return special[r.IntN(len(special))]
		}
		return r.NormFloat64()
	}
	for _, ks := range available {
		for _, rows := range []int{0, 1, 2, 7} {
			for cols := 1; cols <= 37; cols++ {
				for _, relu := range []bool{false, true} {
					m, b := sentineled(rows*cols), make([]float64, cols)
					for i := range m[:rows*cols] {
						m[i] = value()
					}
					for j := range b {
						b[j] = value()
					}
					want := make([]float64, rows*cols)
					for i := range want {
						want[i] = m[i] + b[i%cols]
					}
					if relu {
						reluGeneric(want, nil, want)
					}
					withSet(ks, func() { AddRows(m, b, rows, relu) })
					name := fmt.Sprintf("%s AddRows rows=%d cols=%d relu=%v", ks.name, rows, cols, relu)
					requireSameBits(t, want, m[:rows*cols], name)
					requireSentinel(t, name, m, rows*cols)
				}
			}
		}
	}
}

// BenchmarkSumRows times SumRows on W5's first conv layer's bias
// gradient (78 400 rows of 32 channels) with each set.
func BenchmarkSumRows(b *testing.B) {
	const rows, cols = 78400, 32
	m := make([]float64, rows*cols)
	for i := range m {
		m[i] = float64(i%7) - 3
	}
	dst := make([]float64, cols)
	for _, ks := range available {
		b.Run(ks.name, func(b *testing.B) {
			withSet(ks, func() {
				for b.Loop() {
					SumRows(dst, m, rows, false)
				}
			})
			b.SetBytes(8 * rows * cols)
		})
	}
}

// BenchmarkAddRows times AddRows with ReLU on one block of W5's first conv
// layer (3 samples: 2352 rows of 32 channels, in cache as in the step)
// with each set.
func BenchmarkAddRows(b *testing.B) {
	const rows, cols = 2352, 32
	m := make([]float64, rows*cols)
	for i := range m {
		m[i] = float64(i%7) - 3
	}
	bias := make([]float64, cols)
	for j := range bias {
		bias[j] = float64(j%5) - 2
	}
	for _, ks := range available {
		b.Run(ks.name, func(b *testing.B) {
			withSet(ks, func() {
				for b.Loop() {
					AddRows(m, bias, rows, true)
				}
			})
			b.SetBytes(8 * rows * cols)
		})
	}
}

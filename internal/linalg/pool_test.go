package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPool4 checks Max4, Unpool4 and Unpool4ReLU of every set against
// their Go definitions bit for bit (NaN payloads included: the AVX-512 and
// AVX2 kernels reproduce Go's max as it compiles), at every length modulo
// the vector width, on inputs where ties, ±0, ±Inf and NaNs of several
// payloads and signs are common.
func TestPool4(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, 2, -1, math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(),
		math.Float64frombits(0x7ff0000000000123), math.Float64frombits(0xfff8000000000456), 5e-324}
	r := rand.New(rand.NewPCG(6, 6))
	for _, ks := range available {
		for n := 0; n <= 40; n++ {
			for rep := 0; rep < 20; rep++ {
				var p [4][]float64
				for j := range p {
					p[j] = make([]float64, n)
					for k := range p[j] {
						p[j][k] = special[r.IntN(len(special))]
					}
				}
				y, arg := sentineled(n), sentineled(n)
				withSet(ks, func() { Max4(y[:n], arg[:n], p[0], p[1], p[2], p[3]) })
				wy, warg := make([]float64, n), make([]float64, n)
				max4Generic(wy, warg, p[0], p[1], p[2], p[3])
				requireBits(t, ks.name+" Max4 values", wy, y[:n])
				requireBits(t, ks.name+" Max4 argmax", warg, arg[:n])
				for k := range wy {
					if a := warg[k]; !math.IsNaN(wy[k]) && math.Float64bits(p[int(a)][k]) != math.Float64bits(wy[k]) && p[int(a)][k] != wy[k] {
						t.Fatalf("%s: argmax %v of %v does not hold the maximum %v", ks.name, a, []float64{p[0][k], p[1][k], p[2][k], p[3][k]}, wy[k])
					}
				}
				requireSentinel(t, ks.name+" Max4", y, n)
				requireSentinel(t, ks.name+" Max4 argmax", arg, n)

				g := make([]float64, n)
				for k := range g {
					g[k] = special[r.IntN(len(special))]
				}
				var q, wq [4][]float64
				for j := range q {
					q[j], wq[j] = sentineled(n), make([]float64, n)
				}
				withSet(ks, func() { Unpool4(q[0][:n], q[1][:n], q[2][:n], q[3][:n], g, warg) })
				unpool4Generic(wq[0], wq[1], wq[2], wq[3], g, warg)
				for j := range q {
					requireBits(t, ks.name+" Unpool4", wq[j], q[j][:n])
					requireSentinel(t, ks.name+" Unpool4", q[j], n)
				}

				// Unpool4ReLU against Unpool4 then MulPos, the ReLU's
				// outputs drawn from the special values (0, −0, NaN, …).
				for j := range q {
					q[j] = sentineled(n)
					mulPosGeneric(wq[j], wq[j], p[j])
				}
				withSet(ks, func() { Unpool4ReLU(q[0][:n], q[1][:n], q[2][:n], q[3][:n], g, warg, p[0], p[1], p[2], p[3]) })
				for j := range q {
					requireBits(t, ks.name+" Unpool4ReLU", wq[j], q[j][:n])
					requireSentinel(t, ks.name+" Unpool4ReLU", q[j], n)
				}
			}
		}
	}
}

// sentineled returns n entries and one sentinel past them.
func sentineled(n int) []float64 {
	s := make([]float64, n+1)
	s[n] = sentinel
	return s
}

func requireSentinel(t *testing.T, name string, s []float64, n int) {
	t.Helper()
	if s[n] != sentinel {
		t.Fatalf("%s wrote past %d entries", name, n)
	}
}

func requireBits(t *testing.T, name string, want, got []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
			t.Fatalf("%s: entry %d = %v (%#x), want %v (%#x)", name, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// TestPositiveBits checks PositiveBits of every set against v > 0 value by
// value, on ±0, ±Inf, NaNs of both signs, subnormals and normals, at every
// length up to 9 bytes, and that it writes no byte past dst.
func TestPositiveBits(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(),
		math.Float64frombits(0x7ff0000000000001), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 0.5}
	r := rand.New(rand.NewPCG(6, 7))
	for _, ks := range available {
		for n := 0; n <= 9; n++ {
			for rep := 0; rep < 50; rep++ {
				y := make([]float64, 8*n)
				for i := range y {
					y[i] = special[r.IntN(len(special))]
				}
				dst := make([]byte, n+1)
				dst[n] = 0xa5
				withSet(ks, func() { PositiveBits(dst[:n], y) })
				for i, v := range y {
					if got := dst[i/8]>>(i%8)&1 == 1; got != (v > 0) {
						t.Fatalf("%s: bit %d of %d bytes is %v for %v", ks.name, i, n, got, v)
					}
				}
				if dst[n] != 0xa5 {
					t.Fatalf("%s: PositiveBits wrote past %d bytes", ks.name, n)
				}
			}
		}
	}
}

// BenchmarkPositiveBits times PositiveBits on one block of W5's first
// conv layer's ReLU outputs (3 samples: 75 264 values, in cache as in the
// step) with each set.
func BenchmarkPositiveBits(b *testing.B) {
	y := make([]float64, 2352*32)
	for i := range y {
		y[i] = float64(i%7) - 3
	}
	dst := make([]byte, len(y)/8)
	for _, ks := range available {
		b.Run(ks.name, func(b *testing.B) {
			withSet(ks, func() {
				for b.Loop() {
					PositiveBits(dst, y)
				}
			})
			b.SetBytes(int64(8 * len(y)))
		})
	}
}

package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// withSet runs f with the kernel set ks in use.
func withSet(ks *kernelSet, f func()) {
	old := cur
	cur = ks
	defer func() { cur = old }()
	f()
}

// laneRef is the lane order of the dot-shaped MulABt, written plainly.
func laneRef(m, n, k int, opA, opB func(i, j int) float64, c0 func(i, j int) float64, acc bool) [][]float64 {
	c := make([][]float64, m)
	for i := range c {
		c[i] = make([]float64, n)
		for j := range c[i] {
			var s [8]float64
			for l := 0; l < k; l++ {
				s[l%8] = math.FMA(opA(i, l), opB(l, j), s[l%8])
			}
			t := ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
			if acc {
				t += c0(i, j)
			}
			c[i][j] = t
		}
	}
	return c
}

// kernelShapes covers every tile edge of every set (mr 4, 6, 12; nr 8, 16,
// 48, 56, 64), the dot shapes with every tail k mod 8, l-blocks (k > kc),
// products large enough to run on several goroutines, and MulABt computed
// as Cᵀ = B·Aᵀ.
func kernelShapes(r *rand.Rand) [][3]int {
	shapes := [][3]int{
		{1, 1, 1}, {1, 1, 8}, {1, 1, 9}, {1, 7, 13}, {9, 1, 15}, {2, 2, 1},
		{12, 16, 3}, {13, 17, 5}, {11, 15, 7}, {24, 32, 129}, {25, 33, 130},
		{6, 8, 4}, {7, 9, 4}, {5, 7, 4}, {1, 56, 3}, {1, 57, 4}, {1, 113, 9},
		{3, 100, 2}, {100, 3, 2}, {40, 16, 10}, {200, 64, 20}, {64, 20, 200},
		{1, 100, 50}, {50, 1, 100}, {1000, 1, 16}, {37, 129, 300},
		// MulABt as Cᵀ = B·Aᵀ (swapABt): m = nr, nr + 1 and a partial
		// sliver for AVX-512 (nr = 16), m = nr + 1 for the generic set (64).
		{16, 100, 64}, {17, 300, 40}, {33, 250, 70}, {65, 300, 200},
		// AVX-512's last tile on the 8- and 4-row kernels (m mod 12 in 4…8,
		// after a first tile) and on the 12-row one (10).
		{20, 33, 7}, {28, 17, 9}, {22, 9, 130}, {29, 24, 3},
		// AVX2's row kernels (rowCols 48, 4 columns a register, the
		// last cols mod 4 in Go).
		{1, 48, 5}, {1, 47, 6}, {1, 4, 3}, {1, 3, 2}, {1, 96, 130},
		// AVX2's packed operands (unitPacked, from packMin = 2^20
		// multiply-adds; the shapes above but {37, 129, 300} and the
		// threads' are below it, on the strided path): two units of rows
		// (33 tiles), two blocks of l (packKC 256), two chunks of packed
		// columns (packCols 256) the last with a narrow sliver, the last
		// tile partial.
		{199, 263, 259},
		// Three blocks of l with A in place (the blocks of columns the
		// outer loop), the last tile partial, a narrow last sliver.
		{101, 45, 530},
		// One block of l, C of 2^20 entries or more (streamMin): stored
		// by non-temporal stores where its rows are aligned (unpadded),
		// the last tile partial, with and without a narrow last sliver.
		{1027, 1024, 3}, {1031, 1020, 2},
	}
	for k := 1; k <= 17; k++ {
		shapes = append(shapes, [3]int{3, 1, k}, [3]int{1, 2, k}, [3]int{9, 10, k})
	}
	for i := 0; i < 30; i++ {
		shapes = append(shapes, [3]int{1 + r.IntN(30), 1 + r.IntN(40), 1 + r.IntN(20)})
	}
	return shapes
}

// TestKernelSetsBitIdentical checks every kernel set this CPU runs against
// the plain chain- and lane-order references with ==, on all shapes, with
// padded strides (whose sentinels must be neither read nor written), with
// and without accumulation. The operands and the reference of a (kernel,
// shape, strides, accumulation) are made once and every set is run on them
// (the reference, not the sets, was most of the test's time).
func TestKernelSetsBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	shapes := kernelShapes(r)
	t.Logf("kernel sets on this CPU: %v", setNames())
	for _, kn := range kernels {
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			for _, pads := range [][3]int{{0, 0, 0}, {3, 1, 2}} {
				for _, acc := range []bool{false, true} {
					ar, ac := kn.aShape(m, n, k)
					br, bc := kn.bShape(m, n, k)
					a := newStrided(r, ar, ac, pads[0], false)
					b := newStrided(r, br, bc, pads[1], false)
					c0 := newStrided(r, m, n, pads[2], false)
					ref := chainRef
					if kn.name == "MulABt" && n == 1 {
						ref = laneRefDense
					}
					want := ref(m, n, k, dense(m, k, kn.opA(a)), dense(k, n, kn.opB(b)), c0, acc)
					for _, ks := range available {
						name := fmt.Sprintf("%s %s m=%d n=%d k=%d pads=%v acc=%v", ks.name, kn.name, m, n, k, pads, acc)
						c := c0.clone()
						withSet(ks, func() { kn.call(m, n, k, a, b, c, acc) })
						for i := 0; i < m; i++ {
							row := c.data[i*c.ld : i*c.ld+n]
							for j, got := range row {
								if math.Float64bits(got) != math.Float64bits(want[i*n+j]) {
									t.Fatalf("%s: C[%d][%d] = %v, want %v (bit-identical)", name, i, j, got, want[i*n+j])
								}
							}
							for j := n; j < c.ld && i*c.ld+j < len(c.data); j++ {
								if c.data[i*c.ld+j] != sentinel {
									t.Fatalf("%s: padding C[%d][%d] written", name, i, j)
								}
							}
						}
					}
				}
			}
		}
	}
}

// dense returns op(X) as a rows×cols row-major slice.
func dense(rows, cols int, op func(i, j int) float64) []float64 {
	d := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			d[i*cols+j] = op(i, j)
		}
	}
	return d
}

// chainRef is the chain order written as plainly as possible, on dense
// op(A) (m×k) and op(B) (k×n), C m×n row-major: one fma chain per entry,
// l increasing, from C or +0.
func chainRef(m, n, k int, a, b []float64, c0 strided, acc bool) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		ci := c[i*n : (i+1)*n]
		if acc {
			copy(ci, c0.data[i*c0.ld:i*c0.ld+n])
		}
		for l := 0; l < k; l++ {
			v := a[i*k+l]
			for j, w := range b[l*n : (l+1)*n] {
				ci[j] = math.FMA(v, w, ci[j])
			}
		}
	}
	return c
}

// laneRefDense is laneRef on dense operands (see chainRefDense).
func laneRefDense(m, n, k int, a, b []float64, c0 strided, acc bool) []float64 {
	return flatten(laneRef(m, n, k, func(i, l int) float64 { return a[i*k+l] }, func(l, j int) float64 { return b[l*n+j] }, c0.at, acc))
}

func flatten(x [][]float64) []float64 {
	var d []float64
	for _, row := range x {
		d = append(d, row...)
	}
	return d
}

// TestSwapABtCovered: the shapes of TestKernelSetsBitIdentical take both
// of MulABt's paths with every kernel set, so that both are checked.
func TestSwapABtCovered(t *testing.T) {
	shapes := kernelShapes(rand.New(rand.NewPCG(2, 2)))
	for _, ks := range available {
		swapped, direct := 0, 0
		for _, sh := range shapes {
			if sh[1] < 2 {
				continue // n = 1: the dot kernel
			}
			if swapABt(ks, sh[0], sh[1], sh[2]) {
				swapped++
			} else {
				direct++
			}
		}
		require.NotZero(t, swapped, "%s: no shape computes Cᵀ = B·Aᵀ", ks.name)
		require.NotZero(t, direct, "%s: no shape packs Bᵀ", ks.name)
	}
}

func setNames() []string {
	var s []string
	for _, ks := range available {
		s = append(s, ks.name)
	}
	return s
}

// TestKernelsThreadsBitIdentical runs products large enough to be split
// over goroutines with 1 and with 4 threads (GOMAXPROCS raised to 4 if
// needed) and asserts the same bits.
func TestKernelsThreadsBitIdentical(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
	defer SetThreads(SetThreads(0))
	r := rand.New(rand.NewPCG(3, 3))
	for _, kn := range kernels {
		for _, sh := range [][3]int{{1000, 128, 128}, {128, 128, 1000}, {301, 77, 190}, {64, 600, 200}} {
			m, n, k := sh[0], sh[1], sh[2]
			require.GreaterOrEqual(t, 2*m*n*k, parallelFLOPs, "shape too small to run in parallel")
			ar, ac := kn.aShape(m, n, k)
			br, bc := kn.bShape(m, n, k)
			a := newStrided(r, ar, ac, 1, false)
			b := newStrided(r, br, bc, 0, false)
			c0 := newStrided(r, m, n, 0, false)
			for _, ks := range available {
				var results [][]float64
				for _, th := range []int{1, 2, 4} {
					SetThreads(th)
					c := c0.clone()
					withSet(ks, func() { kn.call(m, n, k, a, b, c, true) })
					results = append(results, c.data)
				}
				for i := 1; i < len(results); i++ {
					for e := range results[0] {
						if math.Float64bits(results[0][e]) != math.Float64bits(results[i][e]) {
							t.Fatalf("%s %s %v: entry %d differs between 1 and more threads", ks.name, kn.name, sh, e)
						}
					}
				}
			}
		}
	}
}

// TestFusedEpilogues checks MulABtReLU, MulABReLU and MulABMask against
// MulABt or MulAB then ReLU and MulAB then Mul by [M > 0], bit for bit, for every set, on the
// shapes of TestKernelSetsBitIdentical (so also past one block of l, where
// the epilogue must wait for the last block) and with products that are
// exactly 0, −0 or infinite.
func TestFusedEpilogues(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	shapes := append(kernelShapes(r), [3]int{1000, 128, 128}, [3]int{50, 70, 300})
	for _, ks := range available {
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			a := newStrided(r, m, k, 1, false)
			bt := newStrided(r, n, k, 2, false)
			b := newStrided(r, k, n, 0, false)
			mask := newStrided(r, m, n, 3, false)
			// The mask's kinks: [0 > 0] = [−0 > 0] = [NaN > 0] = 0.
			// (in the last row: the first row of the product is 0).
			last := (m - 1) * mask.ld
			mask.data[last] = 0
			if n > 2 {
				mask.data[last+1] = math.Copysign(0, -1)
				mask.data[last+2] = math.NaN()
			}
			// Zero rows give products +0 or −0; a huge entry overflows.
			for l := 0; l < k; l++ {
				a.data[l] = 0
			}
			if m > 1 {
				a.data[a.ld] = math.Copysign(0, -1)
				a.data[a.ld+k-1] = 1e308
			}
			if m > 2 {
				a.data[2*a.ld] = math.NaN()
			}
			name := fmt.Sprintf("%s m=%d n=%d k=%d", ks.name, m, n, k)
			withSet(ks, func() {
				want := make([]float64, m*n)
				got := make([]float64, m*n)
				MulABt(m, n, k, a.data, a.ld, bt.data, bt.ld, want, n, false)
				ReLU(want, nil, want)
				MulABtReLU(m, n, k, a.data, a.ld, bt.data, bt.ld, got, n)
				requireSameBits(t, want, got, name+" MulABtReLU")

				MulAB(m, n, k, a.data, a.ld, b.data, b.ld, want, n, false)
				ReLU(want, nil, want)
				MulABReLU(m, n, k, a.data, a.ld, b.data, b.ld, got, n)
				requireSameBits(t, want, got, name+" MulABReLU")

				MulAB(m, n, k, a.data, a.ld, b.data, b.ld, want, n, false)
				ind := make([]float64, m*n)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						if mask.at(i, j) > 0 {
							ind[i*n+j] = 1
						}
					}
				}
				Mul(want, want, ind)
				MulABMask(m, n, k, a.data, a.ld, b.data, b.ld, got, n, mask.data, mask.ld)
				requireSameBits(t, want, got, name+" MulABMask")
			})
		}
	}
}

func requireSameBits(t *testing.T, want, got []float64, name string) {
	t.Helper()
	for i := range want {
		if math.Float64bits(want[i]) != math.Float64bits(got[i]) && !(math.IsNaN(want[i]) && math.IsNaN(got[i])) {
			t.Fatalf("%s: entry %d = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// TestElementwise checks ReLU, Mul, MulPos and Add of every set against their
// definitions, on the special values (±0, ±Inf, NaN, subnormals) and at
// every length modulo the vector width.
func TestElementwise(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(),
		5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64 * 3, 0.5}
	r := rand.New(rand.NewPCG(4, 4))
	for _, ks := range available {
		for n := 0; n <= 40; n++ {
			z := make([]float64, n)
			y := make([]float64, n)
			for i := range z {
				if r.IntN(3) == 0 {
					z[i] = special[r.IntN(len(special))]
				} else {
					z[i] = r.NormFloat64()
				}
				y[i] = r.NormFloat64()
			}
			dst := make([]float64, n+1)
			dd := make([]float64, n+1)
			dst[n], dd[n] = sentinel, sentinel
			withSet(ks, func() { ReLU(dst, dd, z) })
			dst2 := make([]float64, n)
			withSet(ks, func() { ReLU(dst2, nil, z) })
			prod := make([]float64, n+1)
			prod[n] = sentinel
			withSet(ks, func() { Mul(prod, z, y) })
			masked := make([]float64, n+1)
			masked[n] = sentinel
			withSet(ks, func() { MulPos(masked, y, z) })
			sum := append(append([]float64(nil), y...), sentinel)
			withSet(ks, func() { Add(sum, z) })
			for i, v := range z {
				want, wantD := 0.0, 0.0
				if v > 0 {
					want, wantD = v, 1
				}
				require.Equal(t, math.Float64bits(want), math.Float64bits(dst[i]), "%s ReLU(%v)", ks.name, v)
				require.Equal(t, math.Float64bits(want), math.Float64bits(dst2[i]), "%s ReLU(%v) without σ′", ks.name, v)
				require.Equal(t, wantD, dd[i], "%s ReLU′(%v)", ks.name, v)
				require.Equal(t, math.Float64bits(y[i]*wantD), math.Float64bits(masked[i]), "%s %v·[%v > 0]", ks.name, y[i], v)
				if s := y[i] + v; !math.IsNaN(s) {
					require.Equal(t, math.Float64bits(s), math.Float64bits(sum[i]), "%s %v + %v", ks.name, y[i], v)
				} else {
					require.True(t, math.IsNaN(sum[i]), "%s %v + %v", ks.name, y[i], v)
				}
				if p := v * y[i]; math.IsNaN(p) {
					require.True(t, math.IsNaN(prod[i]))
				} else {
					require.Equal(t, math.Float64bits(p), math.Float64bits(prod[i]), "%s %v·%v", ks.name, v, y[i])
				}
			}
			require.Equal(t, sentinel, dst[n], "ReLU wrote past z")
			require.Equal(t, sentinel, dd[n], "ReLU wrote past z")
			require.Equal(t, sentinel, prod[n], "Mul wrote past x")
			require.Equal(t, sentinel, masked[n], "MulPos wrote past x")
			require.Equal(t, sentinel, sum[n], "Add wrote past x")
		}
	}
}

// TestTileBoundsChecked: a call whose operands are too short panics in Go
// instead of letting the assembly read or write out of bounds.
func TestTileBoundsChecked(t *testing.T) {
	for _, ks := range available {
		if ks == genericSet {
			continue
		}
		a := make([]float64, ks.mr*4-1) // one short of mr rows × 4
		b := make([]float64, 4*ks.nr)
		c := make([]float64, ks.nr)
		require.Panics(t, func() { ks.tile(4, a, 4, 1, b, ks.nr, c, ks.nr, 1, ks.nr, false, epilogue{}, 1, 0) }, ks.name)
	}
}

// A productShape is one product of a step: its kernel and m, n, k.
type productShape struct {
	kernel  string
	m, n, k int
}

// engineShapes are the products of one GD step of the workloads W1, W2
// and W4 (bench package): forward MulABt(n, out, in), weight gradient
// MulAtB(out, in, n), input gradient MulAB(n, in, out).
var engineShapes = []productShape{
	{"MulABt", 1000, 128, 50}, {"MulABt", 1000, 128, 128}, {"MulABt", 1000, 1, 128},
	{"MulAtB", 128, 50, 1000}, {"MulAtB", 128, 128, 1000}, {"MulAtB", 1, 128, 1000},
	{"MulAB", 1000, 128, 128}, {"MulAB", 1000, 128, 1},
	{"MulABt", 200, 64, 20}, {"MulAtB", 64, 20, 200}, {"MulAtB", 1, 64, 200}, {"MulAB", 200, 64, 1},
	{"MulABt", 40, 16, 10}, {"MulABt", 40, 16, 16}, {"MulAtB", 16, 16, 40}, {"MulAB", 40, 16, 16},
}

// w5Shapes are the products of one step of bench's workload W5 (LL's MNIST
// CNN at full width, batch 100; models/conv2d.go and dense.go): per layer
// forward col·Wᵀ, weight gradient gOutᵀ·col and input gradient gOut·W
// (none for the first layer), without their fused epilogues.
var w5Shapes = []productShape{
	{"MulABt", 78400, 32, 25}, {"MulAtB", 32, 25, 78400}, // conv 5×5, 1 → 32
	{"MulABt", 19600, 64, 288}, {"MulAtB", 64, 288, 19600}, {"MulAB", 19600, 288, 64}, // conv 3×3, 32 → 64
	{"MulABt", 100, 1024, 3136}, {"MulAtB", 1024, 3136, 100}, {"MulAB", 100, 3136, 1024}, // dense 3136 → 1024
	{"MulABt", 100, 10, 1024}, {"MulAtB", 10, 1024, 100}, {"MulAB", 100, 1024, 10}, // dense 1024 → 10
}

// w5BlockShapes are W5's conv products as the step runs them, block of
// samples by block (models.colBlockBytes: 3 samples of the first layer, 1
// of the second), the forward product on Wᵀ packed once (MulAB).
var w5BlockShapes = []productShape{
	{"MulAB", 2352, 32, 25}, {"MulAtB", 32, 25, 2352}, // conv 5×5, 1 → 32
	{"MulAB", 196, 64, 288}, {"MulAtB", 64, 288, 196}, {"MulAB", 196, 288, 64}, // conv 3×3, 32 → 64
}

func BenchmarkKernelSets(b *testing.B) { benchProducts(b, engineShapes, available) }

// BenchmarkW5BlockProducts times W5's conv products per block with the
// fastest kernel set (operands in cache, as in the step).
func BenchmarkW5BlockProducts(b *testing.B) { benchProducts(b, w5BlockShapes, available[:1]) }

// BenchmarkW5Products times each product of a W5 step with the fastest
// kernel set.
func BenchmarkW5Products(b *testing.B) { benchProducts(b, w5Shapes, available[:1]) }

// benchProducts times each product of shapes with each kernel set of sets,
// in GFLOP/s per wall-clock and per CPU second (the latter less distorted
// by other jobs on a shared machine).
func benchProducts(b *testing.B, shapes []productShape, sets []*kernelSet) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range shapes {
		m, n, k := sh.m, sh.n, sh.k
		for _, kn := range kernels {
			if kn.name != sh.kernel {
				continue
			}
			ar, ac := kn.aShape(m, n, k)
			br, bc := kn.bShape(m, n, k)
			a := newStrided(r, ar, ac, 0, false)
			bm := newStrided(r, br, bc, 0, false)
			c := newStrided(r, m, n, 0, false)
			for _, ks := range sets {
				b.Run(fmt.Sprintf("%s/%s/m=%d/n=%d/k=%d", ks.name, kn.name, m, n, k), func(b *testing.B) {
					cpu0 := cpuSeconds()
					withSet(ks, func() {
						b.ReportAllocs()
						for b.Loop() {
							kn.call(m, n, k, a, bm, c, false)
						}
					})
					reportFLOPs(b, float64(2*m*n*k)*float64(b.N), cpu0)
				})
			}
		}
	}
}

// reportFLOPs reports flops done since the CPU time cpu0 as GFLOP/s per
// wall-clock second and per CPU second (cpu-GFLOP/s, which other jobs on a
// shared machine distort less; meaningful for one goroutine).
func reportFLOPs(b *testing.B, flops, cpu0 float64) {
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(flops/cpu/1e9, "cpu-GFLOP/s")
	}
}

// BenchmarkPeakFMA measures one core's peak FMA throughput with a loop of
// independent register-only FMAs (2 FMA units × 8 lanes × 2 flops per cycle
// on AVX-512 server cores): the yardstick for the GFLOP/s of the kernels and
// of the engine's steps.
func BenchmarkPeakFMA(b *testing.B) {
	for _, ks := range available {
		f, ok := peakFMA[ks.name]
		if !ok {
			continue
		}
		b.Run(ks.name, func(b *testing.B) {
			var flops float64
			cpu0 := cpuSeconds()
			for b.Loop() {
				flops += f(10000)
			}
			reportFLOPs(b, flops, cpu0)
		})
	}
}

// BenchmarkMicroKernel times the tile kernel alone on operands in L1 (a
// 12×16 tile over k = 128): the kernel's own ceiling.
func BenchmarkMicroKernel(b *testing.B) {
	for _, ks := range available {
		if ks == genericSet {
			continue
		}
		mr, nr, k := ks.mr, ks.nr, 128
		a := make([]float64, k*mr)
		bm := make([]float64, k*nr)
		c := make([]float64, mr*nr)
		for i := range a {
			a[i] = 1e-3
		}
		for i := range bm {
			bm[i] = 1e-3
		}
		b.Run(ks.name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				ks.tile(k, a, 1, mr, bm, nr, c, nr, mr, nr, false, epilogue{}, 1, 0)
			}
			reportFLOPs(b, float64(2*mr*nr*k)*float64(b.N), cpu0)
		})
	}
}

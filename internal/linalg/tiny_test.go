package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// tinyShapes are the products of a tiny property case's step (n = 30
// samples, d = 10 features, a width-8 hidden layer): the forward pass
// X·Wᵀ, the backward passes gOutᵀ·A and gOut·W, each of a few hundred
// multiply-adds, where the dispatch costs as much as the arithmetic.
var tinyShapes = [][3]int{{30, 8, 10}, {8, 10, 30}, {30, 10, 8}, {1, 10, 30}}

// BenchmarkTinyProducts times MulABt, MulAtB and MulAB on tiny shapes, on
// one goroutine (serial) and on every P at once (parallel: the verify
// suite's entries run side by side, each on its own goroutine).
func BenchmarkTinyProducts(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, sh := range tinyShapes {
		m, n, k := sh[0], sh[1], sh[2]
		a := newStrided(r, max(m, k), max(m, k), 0, false)
		bm := newStrided(r, max(n, k), max(n, k), 0, false)
		calls := []struct {
			name string
			f    func(c []float64)
		}{
			{"ABt", func(c []float64) { MulABt(m, n, k, a.data, a.ld, bm.data, bm.ld, c, n, false) }},
			{"AtB", func(c []float64) { MulAtB(m, n, k, a.data, a.ld, bm.data, bm.ld, c, n, false) }},
			{"AB", func(c []float64) { MulAB(m, n, k, a.data, a.ld, bm.data, bm.ld, c, n, false) }},
		}
		for _, call := range calls {
			name := fmt.Sprintf("%s/m=%d/n=%d/k=%d", call.name, m, n, k)
			b.Run(name+"/serial", func(b *testing.B) {
				c := make([]float64, m*n)
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				for b.Loop() {
					call.f(c)
				}
				// CPU time, which a busy machine distorts less.
				b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N), "cpu-ns/op")
			})
			b.Run(name+"/parallel", func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				b.RunParallel(func(pb *testing.PB) {
					c := make([]float64, m*n)
					for pb.Next() {
						call.f(c)
					}
				})
				b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

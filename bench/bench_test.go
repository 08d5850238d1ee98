package bench

import (
	"testing"
)

var sink float64

// BenchmarkStep times one engine GD step (loss, gradient, update) of each
// workload, W5 included (`-bench Step/W5 -cpuprofile` profiles LL's CNN
// step as bench runs it); it must report 0 allocs/op.
func BenchmarkStep(b *testing.B) {
	for _, w := range append(Workloads[:len(Workloads):len(Workloads)], W5) {
		b.Run(w.Name, func(b *testing.B) {
			p, err := w.Generate(1)
			if err != nil {
				b.Fatal(err)
			}
			r, err := NewRunner(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Steps(3); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			// Restart from θ₀ every w.Steps steps, so that a long benchmark
			// times the same part of the trajectory as the timed runs.
			t := 0
			cpu0 := CPUTime()
			for b.Loop() {
				if err := r.Steps(1); err != nil {
					b.Fatal(err)
				}
				if t++; t == w.Steps {
					r.Reset()
					t = 0
				}
			}
			b.ReportMetric(w.FLOPs()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(float64(CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
			sink += r.Theta[0]
		})
	}
}

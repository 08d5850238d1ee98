//go:build unix

package models

import (
	"fmt"
	"syscall"
	"testing"
)

// cpuSeconds is the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkIm2col times im2col on W5's conv layers, one block of samples
// as the step writes it (3 samples of the first layer, 1 of the second),
// in ns per block.
func BenchmarkIm2col(b *testing.B) {
	for _, c := range []struct{ h, w, cin, cout, k int }{{28, 28, 1, 32, 5}, {14, 14, 32, 64, 3}} {
		l, err := newConv2d(c.h, c.w, c.cin, c.cout, c.k, 1, true, false)
		if err != nil {
			b.Fatal(err)
		}
		bs := l.blockSamples()
		in := make([]float64, bs*c.h*c.w*c.cin)
		for i := range in {
			in[i] = float64(i%5) - 2
		}
		col := make([]float64, bs*l.colSize())
		b.Run(fmt.Sprintf("%dx%dx%d-k%d-block%d", c.h, c.w, c.cin, c.k, bs), func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				l.im2col(in, col, bs)
			}
			b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N), "cpu-ns/op")
		})
	}
}

package linalg

import (
	"fmt"
	"testing"
)

func BenchmarkProbeTile(b *testing.B) {
	a := make([]float64, 12*128)
	bb := make([]float64, 128*16)
	c := make([]float64, 12*16)
	for b.Loop() {
		gemm12x16(128, &a[0], 128, 1, &bb[0], 16, &c[0], 16, 12, 0xffff, 0, nil, 0, 1)
	}
	b.ReportMetric(float64(2*12*16*128)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
func BenchmarkProbeTilePacked(b *testing.B) {
	a := make([]float64, 12*128)
	bb := make([]float64, 128*16)
	c := make([]float64, 12*16)
	for b.Loop() {
		gemm12x16(128, &a[0], 1, 12, &bb[0], 16, &c[0], 16, 12, 0xffff, 0, nil, 0, 1)
	}
	b.ReportMetric(float64(2*12*16*128)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
func BenchmarkProbeReLU(b *testing.B) {
	for _, n := range []int{12800, 128000} {
		z := make([]float64, n)
		d := make([]float64, n)
		dd := make([]float64, n)
		for i := range z {
			z[i] = float64(i%7) - 3
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c0 := cpuSeconds()
			for b.Loop() {
				ReLU(d, dd, z)
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N)/float64(n)*1e9, "cpu-ns/elem")
		})
	}
}

//go:build !amd64 || purego

package linalg

// detect returns the portable kernels: no assembly on this platform (or
// with the purego build tag).
func detect() []*kernelSet { return []*kernelSet{genericSet} }

var peakFMA = map[string]func(n int) float64{}

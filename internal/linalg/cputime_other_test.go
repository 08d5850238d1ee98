//go:build !unix

package linalg

func cpuSeconds() float64 { return 0 }

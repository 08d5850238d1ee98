//go:build !amd64 || purego

package linalg

// No assembly here: every set's vm is vmNone and these are never called.

func vmExp(k vmKind, dst, x []float64) {}

func vmLog(k vmKind, dst, x []float64) {}

func vmLog1p(k vmKind, dst, x []float64) {}

func vmTanh(k vmKind, dst, x []float64) {}

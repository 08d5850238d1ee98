//go:build !unix

package check

import "math"

// processCPU is NaN where getrusage is not at hand.
func processCPU() float64 { return math.NaN() }

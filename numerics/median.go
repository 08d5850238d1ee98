package numerics

import (
	"math"
	"slices"
)

// Median returns the median of xs: the middle value of the sorted xs, or
// the mean of the two middle ones for an even count; NaN for none. xs is
// not modified. NaNs sort first (slices.Sort), so a NaN shifts the median
// down rather than poisoning it: a caller that must not count NaN drops it
// first.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

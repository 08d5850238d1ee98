package dataset

import "slices"

// Contradiction returns the indices i < j of two samples with the same
// features and different labels, or ok = false if there are none. Such data
// are not separable by any model: Φ(θ; x_i) = Φ(θ; x_j) for every θ, so the
// two samples cannot both be classified correctly.
//
// It sorts the row indices (O(n log n) row comparisons); ties are broken by
// index, so the pair returned is the same on every run.
func (d *Dataset) Contradiction() (i, j int, ok bool) {
	idx := make([]int, d.N)
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := slices.Compare(d.Row(a), d.Row(b)); c != 0 {
			return c
		}
		return a - b
	})
	for k := 1; k < len(idx); k++ {
		a, b := idx[k-1], idx[k]
		// In a run of equal rows with mixed labels some neighbours differ.
		if d.Y[a] != d.Y[b] && slices.Equal(d.Row(a), d.Row(b)) {
			return min(a, b), max(a, b), true
		}
	}
	return 0, 0, false
}

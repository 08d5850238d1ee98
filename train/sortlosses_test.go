package train

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestSortLossesInsertion checks that sortLosses orders the samples as
// sort.Sort on byLoss does, by decreasing loss with ties by index, on both
// sides of insertionMax, with ties (few distinct losses) and −Inf losses.
func TestSortLossesInsertion(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for n := 1; n <= insertionMax+3; n++ {
		for trial := range 20 {
			ll := make([]float64, n)
			for i := range ll {
				switch {
				case trial%3 == 0:
					ll[i] = float64(r.IntN(3)) // ties
				case r.IntN(8) == 0:
					ll[i] = math.Inf(-1)
				default:
					ll[i] = 10 * r.NormFloat64()
				}
			}
			ll[r.IntN(n)] = 1 // not all −Inf
			b := newByLoss(n)
			if ok, err := b.sortLosses(ll); !ok || err != nil {
				t.Fatalf("n = %d: sortLosses = %v, %v", n, ok, err)
			}
			want := newByLoss(n)
			copy(want.l, b.l)
			for i := range want.idx {
				want.idx[i] = i
			}
			sort.Sort(want)
			for i := range want.idx {
				if b.idx[i] != want.idx[i] {
					t.Fatalf("n = %d, losses %v: order %v, sort.Sort %v", n, ll, b.idx, want.idx)
				}
			}
		}
	}
}

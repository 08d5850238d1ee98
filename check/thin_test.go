package check

import (
	"testing"

	"github.com/implicitbias/implicitbias/train"
)

// TestPairsOfEveryStep: a run recorded at every step is read by the window
// claims as disjoint pairs (t, t+1), never merged, with the first and last.
func TestPairsOfEveryStep(t *testing.T) {
	for _, n := range []int{3, 4, 10, 129, 20001} {
		rs := make([]train.Record, n)
		for i := range rs {
			rs[i].Step = i
		}
		ps := pairsOf(rs)
		if len(ps) == 0 || len(ps)%2 != 0 || len(ps)/2 > maxPairs {
			t.Fatalf("n = %d: %d records", n, len(ps))
		}
		for k := 0; k < len(ps); k += 2 {
			if ps[k+1].Step != ps[k].Step+1 {
				t.Fatalf("n = %d: pair %d is (%d, %d)", n, k/2, ps[k].Step, ps[k+1].Step)
			}
			if k > 0 && ps[k].Step <= ps[k-1].Step+1 {
				t.Fatalf("n = %d: pairs %d and %d touch (%d, %d)", n, k/2-1, k/2, ps[k-1].Step, ps[k].Step)
			}
		}
		if ps[0].Step != 0 {
			t.Errorf("n = %d: first pair at %d", n, ps[0].Step)
		}
		t.Logf("n = %d: %d pairs, last at %d", n, len(ps)/2, ps[len(ps)-2].Step)
	}
}

package check

import (
	"math"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// maxPairs is how many pairs of consecutive records a run of consecutive
// records is read as by the window claims (thinned).
const maxPairs = 64

// thinned returns a claim on windows of consecutive records (LL-4.4, LL-A9,
// LL-C10, LL-4.5: kkt.Windows merges consecutive records into one
// window) that reads a long run of consecutive records — a run recorded at
// every step — as pairs (t, t+1) at geometrically spaced t instead of one
// window, so that recording more does not leave fewer windows. Pairs are
// what the window claims measure on a run recorded in pairs (the
// docs/check.md recipe); the records between them are not read by these
// claims.
func thinned(check func(tr *train.Trajectory) theorems.Verdict) func(tr *train.Trajectory) theorems.Verdict {
	return func(tr *train.Trajectory) theorems.Verdict {
		out := *tr
		out.Records = nil
		rs := tr.Records
		for i := 0; i < len(rs); {
			j := i + 1
			for j < len(rs) && rs[j].Step == rs[j-1].Step+1 {
				j++
			}
			if j-i <= 2 {
				out.Records = append(out.Records, rs[i:j]...)
			} else {
				out.Records = append(out.Records, pairsOf(rs[i:j])...)
			}
			i = j
		}
		return check(&out)
	}
}

// pairsOf returns up to maxPairs pairs of successive records of a run of
// consecutive records, at offsets spaced geometrically, always with the
// first pair and a record between any two pairs.
func pairsOf(rs []train.Record) []train.Record {
	n := len(rs) - 1            // pairs start at 0 … n−1
	m := min(maxPairs, (n+2)/3) // a pair and a record between pairs

	var out []train.Record
	last := -3
	for k := range m {
		off := 0
		if m > 1 {
			off = int(math.Round(math.Exp(math.Log(float64(n)) * float64(k) / float64(m-1))))
			off = min(off-1, n-1)
			off = max(off, 0)
		}
		if off <= last+2 { // pairs that touch would be one window again
			off = last + 3
		}
		if off > n-1 {
			break
		}
		out = append(out, rs[off], rs[off+1])
		last = off
	}
	return out
}

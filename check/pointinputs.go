package check

import (
	"fmt"
	"sync"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
)

// LL-B3 and LL-B3m check an identity of every output at every input
// (⟨θ, ∇Φ_k(θ; x_n)⟩ = L·Φ_k and its per-block form), one single-sample
// gradient each: R·N·K backward passes over a run of R records, each O(P).
// On a run where R·N·K·P exceeds pointGradBudget (LL's CNN on 1 000 images
// at 20 records: 20·1 000·10·1.6·10⁶ = 3.2·10¹¹), each record checks a
// block of ⌈N/R⌉ inputs, the blocks of successive records following each
// other: every input is checked once over the run (at one record), and the
// claim costs N·K gradients instead of R·N·K. What that gives up: an
// identity that fails at an input at some records only is seen at one of
// them; the faults it is there for — a bias or another non-homogeneous
// unit, a wrong declared L, a gradient that is not Φ's — fail at every
// input and every record. Runs under the budget (every run of the
// benchmarks but the CNN) check every input at every record.
const pointGradBudget = 1 << 33

// pointCase is record i's case for LL-B3 and LL-B3m: every input, or its
// block when the run is over the budget.
func (r *recorded) pointCase(i int, budget float64) homogeneity.PointCase {
	d := r.obj.Data
	c := homogeneity.PointCase{Model: r.obj.Model, Theta: r.t.Theta[i], X: d.X, N: d.N}
	R := len(r.t.Theta)
	if float64(R)*float64(d.N)*float64(r.obj.Model.Out())*float64(r.obj.Model.NumParams()) <= budget {
		return c
	}
	s := (d.N + R - 1) / R
	lo := (i * s) % d.N
	hi := min(lo+s, d.N)
	c.X, c.N, c.First = d.X[lo*d.D:hi*d.D], hi-lo, lo
	return c
}

// blockNote says which inputs a block case checked.
func (r *recorded) blockNote(c homogeneity.PointCase, v *theorems.Verdict) {
	if c.N < r.obj.Data.N {
		v.Detail += fmt.Sprintf(" (inputs %d–%d of %d at this record: each record checks its block, every input once over the run)", c.First, c.First+c.N-1, r.obj.Data.N)
	}
}

// pointShare holds LL-B3's and LL-B3m's verdicts at each record: both read
// the same single-sample gradients, taken once (homogeneity.PointIdentities)
// by whichever of the two claims reaches the record first, possibly on
// another worker (the pointer is shared by the worker copies).
type pointShare struct {
	once         []sync.Once
	euler, multi []theorems.Verdict
}

func newPointShare(records int) *pointShare {
	return &pointShare{once: make([]sync.Once, records), euler: make([]theorems.Verdict, records), multi: make([]theorems.Verdict, records)}
}

// pointVerdicts returns LL-B3's and LL-B3m's verdicts at record i and the
// case they were decided on.
func (r *recorded) pointVerdicts(i int) (euler, multi theorems.Verdict, c homogeneity.PointCase) {
	c = r.pointCase(i, pointGradBudget)
	p := r.points
	p.once[i].Do(func() { p.euler[i], p.multi[i] = homogeneity.PointIdentities(c) })
	return p.euler[i], p.multi[i], c
}

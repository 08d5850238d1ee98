package homogeneity

import (
	"testing"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/properties/proptest"
	"github.com/leanovate/gopter"
)

// is2D reports whether a section-A case is a 2-D CNN.
func is2D(c any) bool {
	switch c := c.(type) {
	case cases.ArchCase:
		return c.CNN2D()
	case cases.ScaledCase:
		return c.Arch.CNN2D()
	case cases.LossCase:
		return c.Arch.CNN2D()
	}
	return false
}

// only2D is a property restricted to its 2-D CNN cases (about one draw in
// five of GenArch).
type only2D struct{ properties.Prop }

func (p only2D) Generator(r *properties.Runner) gopter.Gen { return p.Prop.Generator(r).SuchThat(is2D) }

// TestCNN2DSectionA: issue 20's "ENG-grad, LL-B3 and LL-B3m hold on random
// 2-D CNNs with max and average pooling (with their controls)", and
// LL-B2a/b's, asserted on 2-D CNNs alone under the harness's rule
// (Decide): every claim holds, every hypothesis control is caught, every
// engine fault planted in a claim's cases (ENG-grad's backward-first-block
// and fprime-branch, LL-B3's and LL-B3m's degree-plus-one) is violated on
// ≥ 95% of its valid cases; and ENG-grad's "wrong backward pass" control
// (entries.go), whose first block must have ≥ 2 entries. The entries'
// own tests draw these cases among the others; this one makes sure a 2-D
// CNN failure cannot hide in the mix. Measured at 300 2-D cases per
// property (150 for ENG-grad, LL-B4, LL-A5, LL-5.1): every claim held and
// every control was caught on every case, none undecided.
func TestCNN2DSectionA(t *testing.T) {
	t.Parallel()
	r := proptest.Runner(t)
	for _, tc := range []struct {
		id string
		n  int // cases per property
	}{{"LL-B2a", 20}, {"LL-B2b", 20}, {"LL-B3", 20}, {"LL-B3m", 20}, {"ENG-grad", 20}} {
		e := entry(t, tc.id)
		for i, p := range append(append([]properties.Prop(nil), e.Claims...), e.Controls...) {
			want := properties.ClaimWanted
			if i >= len(e.Claims) {
				want = p.Meta().CaughtBy
			}
			t.Run(tc.id+"/"+p.Meta().Name, func(t *testing.T) {
				proptest.RunProperty(t, r, e.ID, only2D{p}, r.Seed+int64(2000+i), tc.n, want, true)
			})
		}
	}
}

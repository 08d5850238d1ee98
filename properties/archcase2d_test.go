package properties

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
)

// is2D reports whether a section-A case is a 2-D CNN.
func is2D(c any) bool {
	switch c := c.(type) {
	case ArchCase:
		return c.Family%numFamilies == FamCNN2D
	case ScaledCase:
		return c.Arch.Family%numFamilies == FamCNN2D
	case LossCase:
		return c.Arch.Family%numFamilies == FamCNN2D
	}
	return false
}

// only2D is a property restricted to its 2-D CNN cases (about one draw in
// five of GenArch).
type only2D struct{ Prop }

func (p only2D) Generator(r *Runner) gopter.Gen { return p.Prop.Generator(r).SuchThat(is2D) }

// TestCNN2DSectionA: issue 20's "ENG-grad, LL-B3 and LL-B3m hold on random
// 2-D CNNs with max and average pooling (with their controls)", and
// LL-B2a/b's, asserted on 2-D CNNs alone under the harness's rule
// (Decide): every claim holds, every hypothesis control is caught, every
// engine fault planted in a claim's cases (ENG-grad's backward-first-block
// and fprime-branch, LL-B3's and LL-B3m's degree-plus-one) is violated on
// ≥ 95% of its valid cases; and ENG-grad's "wrong backward pass" control
// (section_a.go), whose first block must have ≥ 2 entries. The entries'
// own tests draw these cases among the others; this one makes sure a 2-D
// CNN failure cannot hide in the mix. Measured at 300 2-D cases per
// property (150 for ENG-grad, LL-B4, LL-A5, LL-5.1): every claim held and
// every control was caught on every case, none undecided.
func TestCNN2DSectionA(t *testing.T) {
	t.Parallel()
	r := testRunner(t)
	for _, tc := range []struct {
		id string
		n  int // cases per property: ENG-grad's cost 0.05–0.15 s each
	}{{"LL-B2a", 20}, {"LL-B2b", 20}, {"LL-B3", 20}, {"LL-B3m", 20}, {"ENG-grad", 8}} {
		e := entry(t, tc.id)
		for i, p := range append(append([]Prop(nil), e.Claims...), e.Controls...) {
			want := ClaimWanted
			if i >= len(e.Claims) {
				want = p.Meta().CaughtBy
			}
			t.Run(tc.id+"/"+p.Meta().Name, func(t *testing.T) {
				runProperty(t, r, e.ID, only2D{p}, r.Seed+int64(2000+i), tc.n, want, true)
			})
		}
	}
}

// TestCNN2DFamilyCoverage: the 2-D CNNs GenArch draws (seed 1, the first
// 300) build, and among them are max and average pooling, stride 2,
// "valid" and "same" padding, two conv stages, a dense hidden layer and
// several outputs; a `+bias` case has no bias left at 0 (biasesOffZero:
// at zero biases the bias controls would have nothing to catch).
func TestCNN2DFamilyCoverage(t *testing.T) {
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(1))
	g := gopter.Gen(GenArch(WithBias))
	seen := map[string]int{}
	for n := 0; n < 300; {
		v, ok := g(params).Retrieve()
		if !ok || !is2D(v) {
			continue
		}
		n++
		c := v.(ArchCase)
		b, err := c.Build()
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if b.Model.In() != c.in() || !strings.HasPrefix(b.Model.String(), "cnn2d:") {
			t.Fatalf("%v: model %v on %d inputs", c, b.Model, b.Model.In())
		}
		for i, th := range b.Theta {
			if th == 0 {
				t.Fatalf("%v: θ[%d] = 0", c, i)
			}
		}
		s := c.Spec()
		stages := strings.Split(strings.Split(s, ":")[3], ",")
		for _, st := range stages {
			for _, k := range []string{"-max", "-avg", "s2", "-valid"} {
				if strings.Contains(st, k) {
					seen[k]++
				}
			}
			if !strings.Contains(st, "-valid") {
				seen["same"]++
			}
		}
		if len(stages) == 2 {
			seen["two stages"]++
		}
		if strings.Count(s, ":") == 4 {
			seen["dense"]++
		}
		if strings.Contains(s, "/") {
			seen["outputs"]++
		}
	}
	for _, k := range []string{"-max", "-avg", "s2", "-valid", "same", "two stages", "dense", "outputs"} {
		if seen[k] < 30 {
			t.Errorf("%q in %d of 300 2-D CNNs", k, seen[k])
		}
	}
	t.Log(seen)
}

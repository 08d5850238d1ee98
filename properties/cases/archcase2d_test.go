package cases

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
)

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
		if !ok || !v.(ArchCase).CNN2D() {
			continue
		}
		n++
		c := v.(ArchCase)
		b, err := c.Build()
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if b.Model.In() != c.InDim() || !strings.HasPrefix(b.Model.String(), "cnn2d:") {
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

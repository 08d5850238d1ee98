package properties

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// strayPreconditioner is issue 18's planted engine fault: one extra line
// after gradient descent's step,
//
//	θ₀ −= 3·e^{log η + log 𝓛}·Dir₀,
//
// a per-coordinate preconditioner diag(4, 1, …, 1) that nobody asked for.
// It keeps GD's name and recorded step size, as a bug in train/optimizer.go
// would, and counts the steps after separation (𝓛 < ℓ(b_f), where the
// checks look) on which it moved θ₀.
type strayPreconditioner struct {
	*train.GD
	actedAfterT0 *int
}

func newStrayPreconditioner(acted *int) func(lr float64) (train.Optimizer, error) {
	return func(lr float64) (train.Optimizer, error) {
		gd, err := train.NewGD(lr)
		return strayPreconditioner{gd, acted}, err
	}
}

func (p strayPreconditioner) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	logEta, err := p.GD.Step(obj, theta, ev)
	theta[0] -= 3 * math.Exp(logEta+ev.LogObjective) * ev.Dir[0]
	if m, ok := losses.MarginOf(obj.Loss); ok && ev.LogLoss < losses.LogThreshold(m) && ev.Dir[0] != 0 {
		*p.actedAfterT0++
	}
	return logEta, err
}

// faultCases is the number of generated cases per family the fault is run
// on (the demand, ≥ 95% of the cases violated, is met as a count:
// 20 of 20 where the fault acts; 30 cases per family at seed 1 took 17 s,
// 20 keep go test ./... within its budget).
const faultCases = 20

// TestLL_4_4_A9_StrayPreconditioner runs the GD claims' cases of LL-4.4
// and LL-A9 on an engine with the stray preconditioner — the step size
// chosen by its own pilot runs (KKTCase.BuildWith), the run along kktPlan
// (the quick budget) — and checks that both claims report violated on at
// least 95% of the cases the fault acts on. On a ReLU case whose hidden
// unit 0 is dead on every sample once the data are separated, ∂𝓛/∂θ₀ ≡ 0
// there: the steps the checks read are exact gradient descent from another
// point, no check of gradient descent can tell, and the case is counted as
// inert (it must stay rare).
func TestLL_4_4_A9_StrayPreconditioner(t *testing.T) {
	for _, fam := range []struct {
		name string
		f    int
	}{{"linear", KKTLinear}, {"deep linear", KKTDeepLinear}, {"ReLU", KKTReLU}} {
		t.Run(fam.name, func(t *testing.T) {
			caught := map[string]int{}
			acted, inert := 0, 0
			for _, x := range Sample(GenKKT(fam.f), testSeed(t), faultCases) {
				c := x.(KKTCase)
				var n int
				faulty := newStrayPreconditioner(&n)
				b, err := c.BuildWith(faulty)
				if err != nil {
					t.Logf("%v: no stable step size for the faulty engine: %v", c, err)
					continue
				}
				opt, _ := faulty(b.LR)
				tr, err := b.TrainWith(c, opt)
				if err != nil {
					t.Errorf("%v: the faulty run failed after its pilot passed: %v", c, err)
					continue
				}
				if n == 0 {
					inert++
					t.Logf("%v: the fault is inert after t0 (∂𝓛/∂θ₀ = 0 at every step there)", c)
					continue
				}
				acted++
				for id, check := range map[string]func(*train.Objective, *train.Trajectory, float64) theorems.Verdict{
					"LL-4.4": theorems.KKTConvergence, "LL-A9": theorems.BetaConvergence,
				} {
					v := check(b.Obj, tr, 0)
					if v.Status == theorems.Violated {
						caught[id]++
					} else {
						t.Errorf("%s missed %v: %v", id, c, v)
					}
				}
			}
			t.Logf("%s: the fault acted after t0 on %d cases (%d inert); LL-4.4 violated on %d, LL-A9 on %d", fam.name, acted, inert, caught["LL-4.4"], caught["LL-A9"])
			// Inert: 2 of 30 ReLU cases at seed 1 (hidden unit 0 dead), none
			// of the smooth families; a quarter leaves room for the seed's
			// luck (P(> 5 of 20) < 0.3% at a rate of 7%).
			assert.LessOrEqual(t, inert, faultCases/4, "the fault is inert on too many cases to measure it")
			for _, id := range []string{"LL-4.4", "LL-A9"} {
				assert.GreaterOrEqual(t, float64(caught[id]), 0.95*float64(acted), "%s caught %d of %d", id, caught[id], acted)
			}
		})
	}
}

// TestLL_C10_StrayPreconditioner runs LL-C10's claim cases (every section-C
// family, GD recorded densely: DenseRun as the entry does) on the engine
// with the stray preconditioner: Cor C.10 rests on the same descent-step
// identity, which its 16-step windows let the check verify.
func TestLL_C10_StrayPreconditioner(t *testing.T) {
	caught, acted, inert := 0, 0, 0
	for _, x := range Sample(GenKKT(KKTLinear, KKTDeepLinear, KKTReLU, KKTQuad), testSeed(t), faultCases) {
		c := x.(KKTCase)
		var n int
		faulty := newStrayPreconditioner(&n)
		b, err := c.BuildWith(faulty)
		if err != nil {
			t.Logf("%v: no stable step size for the faulty engine: %v", c, err)
			continue
		}
		opt, _ := faulty(b.LR)
		θ := append([]float64(nil), b.Init...)
		tr, err := DenseRun(b.Obj, opt, θ, budgetSteps(20000), 200, 16)
		if err != nil {
			t.Errorf("%v: the faulty run failed after its pilot passed: %v", c, err)
			continue
		}
		if n == 0 {
			inert++
			continue
		}
		acted++
		if v := theorems.BetaWindowBound(b.Obj, tr, 0, 0); v.Status == theorems.Violated {
			caught++
		} else {
			t.Errorf("LL-C10 missed %v: %v", c, v)
		}
	}
	t.Logf("the fault acted after t0 on %d cases (%d inert); LL-C10 violated on %d", acted, inert, caught)
	assert.LessOrEqual(t, inert, faultCases/4)
	assert.GreaterOrEqual(t, float64(caught), 0.95*float64(acted))
}

package margins

import (
	"math"
	"testing"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties/proptest"
	"github.com/implicitbias/implicitbias/theorems"
	marginsth "github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// TestLargestDrop: on a linear model (L = 1) with the exp loss (g(u) = u),
// log γ̃ = log(−log 𝓛) − log ρ, computed here in closed form for two
// positive points e₁, e₂: 𝓛 = e^{−θ₁} + e^{−θ₂}.
func TestLargestDrop(t *testing.T) {
	m, err := models.NewLinear(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := losses.ByName("exp")
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}}
	obj, err := train.NewObjective(m, l, d)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(θ ...float64) train.Record {
		return train.Record{LogLoss: math.Log(math.Exp(-θ[0]) + math.Exp(-θ[1])), Theta: θ}
	}
	logGamma := func(r train.Record) float64 {
		return math.Log(-r.LogLoss) - math.Log(math.Hypot(r.Theta[0], r.Theta[1]))
	}
	// The max-margin direction, then the same norm turned towards e₁:
	// a lower γ̃; then back, farther out: a higher one.
	a, b, c := rec(5, 5), rec(7, 1), rec(8, 8)
	want := logGamma(a) - logGamma(b)
	if !(want > plantedDrop) {
		t.Fatalf("the case itself: drop %g", want)
	}
	for _, multi := range []bool{false, true} {
		drop, unsep := largestDrop(obj, []train.Record{a, b, c}, multi)
		if unsep || math.Abs(drop-want) > 1e-12 {
			t.Errorf("multi=%v: largestDrop = %.17g, %v; want %.17g, false", multi, drop, unsep, want)
		}
		drop, _ = largestDrop(obj, []train.Record{a, c}, multi)
		if want := logGamma(a) - logGamma(c); drop != want || drop > 0 {
			t.Errorf("multi=%v: growing γ̃: largestDrop = %g, want %g < 0", multi, drop, want)
		}
	}
	// The loss back above ℓ(b_f) = e^0 = 1 after separation: θ = (−1, −1).
	if _, unsep := largestDrop(obj, []train.Record{a, rec(-1, -1)}, false); !unsep {
		t.Error("a record with 𝓛 ≥ ℓ(b_f) after t₀ is not reported")
	}
	// Records before separation are skipped: t₀ is the first separated one.
	if drop, unsep := largestDrop(obj, []train.Record{rec(-1, -1), a, c}, false); unsep || drop > 0 {
		t.Errorf("unseparated start: got %g, %v", drop, unsep)
	}
	if drop, _ := largestDrop(obj, []train.Record{{LogLoss: -5}}, false); !math.IsNaN(drop) {
		t.Errorf("records without θ: got %g, want NaN", drop)
	}
}

// TestBigStepControlCatchesAMiss: the too-large-step control with a check
// that never sees anything (always holds) must fail — report holds — on the
// cases where the run has a violation, which is nearly all of them
// (largestDrop finds none on about 1 in 1 000).
func TestBigStepControlCatchesAMiss(t *testing.T) {
	blind := func(marginsth.TrajectoryCase) theorems.Verdict { return theorems.Verdict{Status: theorems.Holds} }
	p := bigStepProperty("blind", GenFlow(smoothActs, []int{2}, []string{"exp", "logistic"}), false, blind)
	params := gopter.DefaultGenParameters()
	s := proptest.Seed(t)
	params.Rng.Seed(s)
	t.Logf("seed %d", s)
	var holds, other int
	for i := 0; i < 10; i++ {
		x, ok := p.Gen(params).Retrieve()
		if !ok {
			t.Fatal("generator gave no case")
		}
		switch v := p.Verdict(proptest.Runner(t), x); v.Status {
		case theorems.Holds:
			holds++
		default:
			other++
			t.Logf("%v: %s on %v", v.Status, v.Detail, x)
		}
	}
	// Undecided cases are the degenerate draws and the runs with no
	// violation, a few percent together: 8 of 10 leaves room for two.
	if holds < 8 {
		t.Errorf("a blind check passed the control on %d of 10 cases (%d caught)", other, holds)
	}
}

// TestLargestHatDrop: γ̂ = e^{Φ(log 1/𝓛)}/ρ^L falls when ρ grows at a fixed
// loss, and a loss above 𝓛(t₀) leaves its domain (reported as above).
func TestLargestHatDrop(t *testing.T) {
	m, err := models.NewLinear(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := losses.ByName("exp")
	obj, err := train.NewObjective(m, l, &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	r := func(logLoss float64, θ ...float64) train.Record { return train.Record{LogLoss: logLoss, Theta: θ} }
	// Same loss, ρ doubled: log γ̂ falls by L·log 2 = log 2.
	drop, above := largestHatDrop(obj, []train.Record{r(-3, 2, 2), r(-3, 4, 4)})
	if above || math.Abs(drop-math.Ln2) > 1e-12 {
		t.Errorf("ρ doubled at a fixed loss: drop %g, above %v; want log 2, false", drop, above)
	}
	// Loss falling at a fixed ρ: γ̂ grows, no drop.
	if drop, _ := largestHatDrop(obj, []train.Record{r(-3, 2, 2), r(-5, 2, 2)}); !(drop < 0) {
		t.Errorf("loss falling at fixed ρ: drop %g, want < 0", drop)
	}
	// Back above 𝓛(t₀).
	if _, above := largestHatDrop(obj, []train.Record{r(-3, 2, 2), r(-2, 2, 2)}); !above {
		t.Error("a loss above 𝓛(t₀) is not reported")
	}
	// Records before separation (𝓛 ≥ 1) are skipped.
	if drop, above := largestHatDrop(obj, []train.Record{r(1, 0.1, 0.1), r(-3, 2, 2), r(-3, 4, 4)}); above || math.Abs(drop-math.Ln2) > 1e-12 {
		t.Errorf("with an unseparated start: drop %g, above %v", drop, above)
	}
	if drop, _ := largestHatDrop(obj, []train.Record{{LogLoss: -3}}); !math.IsNaN(drop) {
		t.Errorf("records without θ: got %g, want NaN", drop)
	}
}

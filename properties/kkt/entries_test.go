package kkt

import (
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	kktth "github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// Section C: convergence to KKT points. Trajectory entries run 8 GD cases
// per claim and per control (each case is a training run of 5·10⁴–2·10⁵
// steps at the quick budget); pointwise entries 100 cases per claim and 50
// per control.

func TestLL_4_4_KKTResidual(t *testing.T)     { Assert(t, "LL-4.4") }
func TestLL_C7_MFCQ(t *testing.T)             { Assert(t, "LL-C7") }
func TestLL_C8_Certificate(t *testing.T)      { Assert(t, "LL-C8") }
func TestLL_A9_BetaToOne(t *testing.T)        { Assert(t, "LL-A9") }
func TestLL_C10_BetaWindowBound(t *testing.T) { Assert(t, "LL-C10") }
func TestLL_lin_SVMDirection(t *testing.T)    { Assert(t, "LL-lin") }
func TestLL_4_5_NTKSVM(t *testing.T)          { Assert(t, "LL-4.5") }
func TestLL_I1_MexicanHat(t *testing.T)       { Assert(t, "LL-I1") }

// TestLL_I1_GradientDescentTrajectories runs gradient descent on the
// Mexican hat (L = 10⁻⁶, so that ρ^L ≈ 1 and the angular motion is not
// slowed by ρ) and applies the trajectory check of LL-I1:
//   - without the twist the direction converges radially: r → 1 while the
//     polar angle stays put, which the check reports as violated;
//   - with the corrected twist, GD leaves the invariant curve ψ = 0 (it is
//     unstable: the discretization error grows by e per unit time until θ̂
//     falls into the valley ψ = π/2), so the run is not the flow of Thm I.1
//     and the check says assumption-failed. This is why the claim of LL-I1
//     is checked pointwise (kkt.MexicanHatFlow); the trajectory check
//     is there for flows accurate enough to stay on the curve.
func TestLL_I1_GradientDescentTrajectories(t *testing.T) {
	run := func(variant models.HatVariant, lr float64) theorems.Verdict {
		m, err := models.NewMexicanHat(1e-6, 1, variant)
		if err != nil {
			t.Fatal(err)
		}
		d := &dataset.Dataset{N: 1, D: 1, X: []float64{0}, Y: []float64{1}}
		l, _ := losses.ByName("exp")
		obj, err := train.NewObjective(m, l, d)
		if err != nil {
			t.Fatal(err)
		}
		θ := make([]float64, 3)
		m.Init(rand.New(rand.NewPCG(1, 1)), θ)
		gd, _ := train.NewGD(lr)
		tr, err := cases.LogRun(obj, gd, θ, 20000)
		if err != nil {
			t.Fatal(err)
		}
		return kktth.MexicanHatCircling(tr)
	}
	if v := run(models.HatFlat, 0.1); v.Status != theorems.Violated {
		t.Errorf("untwisted hat: want violated, got %v", v)
	}
	if v := run(models.HatInvariant, 0.01); v.Status != theorems.AssumptionFailed {
		t.Errorf("GD on the twisted hat: want assumption-failed (left the curve), got %v", v)
	}
}

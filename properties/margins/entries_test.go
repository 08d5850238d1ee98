package margins

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/properties/proptest"
	marginsth "github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// Section B: margin dynamics (and LL-A5). Each entry runs verify's cases
// (Entry.Cases; the whole section well under a minute on 2 cores);
// IMPLICITBIAS_BUDGET=long multiplies them and lengthens the runs (flows
// to log 𝓛 = −300, rate runs to −10⁵, see lengths).

func TestLL_A5_MarginApproximation(t *testing.T)         { Assert(t, "LL-A5") }
func TestLL_5_1_FlowInequality(t *testing.T)             { Assert(t, "LL-5.1") }
func TestLL_4_1_FlowMonotonicity(t *testing.T)           { Assert(t, "LL-4.1") }
func TestLL_4_2_GDMonotonicity(t *testing.T)             { Assert(t, "LL-4.2") }
func TestLL_4_3_Rates(t *testing.T)                      { Assert(t, "LL-4.3") }
func TestLL_K1_LossBasedSchedule(t *testing.T)           { Assert(t, "LL-K1") }
func TestLL_K2_LogDomain(t *testing.T)                   { Assert(t, "LL-K2") }
func TestLL_F_CrossEntropyMonotonicity(t *testing.T)     { Assert(t, "LL-F") }
func TestLL_G_MultiHomogeneousMonotonicity(t *testing.T) { Assert(t, "LL-G") }

// TestLL_4_3_RateTable prints README's table of fitted rate slopes: for each
// model and loss one flow (N = 16 samples, seed 1) to the budget's target,
// with the fits for L and for L ± 1. It runs only with the long budget:
//
//	IMPLICITBIAS_BUDGET=long go test ./properties -run TestLL_4_3_RateTable -v
func TestLL_4_3_RateTable(t *testing.T) {
	r := proptest.Runner(t)
	if !r.Long() {
		t.Skip("prints README's rate table; run with IMPLICITBIAS_BUDGET=long")
	}
	n := lengths(r)
	fmt.Printf("| model | L | loss | log 𝓛 reached | log T reached | slope of log(𝓛T(log T)^{2−2/L}) (±tol) | slope of log(ρ/(log T)^{1/L}) (±tol) | loss slope with L−1 / L+1 | ρ slope with L−1 / L+1 | verdict |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, spec := range rateTableModels {
		for l := 0; l < 2; l++ {
			c := RateRunCase{Spec: spec, Loss: l, N: 16, Seed: 1}
			obj, theta, err := c.Build()
			require.NoError(t, err)
			fl, err := train.NewFlow(cases.FlowTol)
			require.NoError(t, err)
			tr, err := train.Run(obj, fl, theta, train.Config{Steps: n.lbSteps, StopLogLoss: n.rateTarget})
			require.NoError(t, err, c.String())
			mg, _ := losses.MarginOf(obj.Loss)
			rc := marginsth.RateCase{Records: tr.Records, Flow: true, Degree: tr.Degree, ModelDegree: tr.Degree, Margin: mg}
			f, bad := marginsth.FitRates(rc)
			if bad != nil {
				fmt.Printf("| `%s` | %g | %s | %.0f | — | — | — | — | — | %s |\n", spec, tr.Degree, c.loss(), tr.Final().LogLoss, bad.Status)
				continue
			}
			alt := func(dL float64) (string, string) {
				if tr.Degree+dL <= 0 {
					return "—", "—"
				}
				rc.Degree = tr.Degree + dL
				g, bad := marginsth.FitRates(rc)
				if bad != nil {
					return bad.Status.String(), bad.Status.String()
				}
				return fmt.Sprintf("%+.3f", g.SlopeLoss), fmt.Sprintf("%+.3f", g.SlopeNorm)
			}
			lm, rm := alt(-1)
			lp, rp := alt(1)
			v := marginsth.Rates(marginsth.RateCase{Records: tr.Records, Flow: true, Degree: tr.Degree, ModelDegree: tr.Degree, Margin: mg})
			fmt.Printf("| `%s` | %g | %s | %.0f | %.4g | %+.4f (±%.3f) | %+.4f (±%.3f) | %s / %s | %s / %s | %s |\n",
				spec, tr.Degree, c.loss(), tr.Final().LogLoss, math.Exp(f.LogLogTEnd), f.SlopeLoss, f.TolLoss, f.SlopeNorm, f.TolNorm, lm, lp, rm, rp, v.Status)
		}
	}
}

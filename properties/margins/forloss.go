package margins

import (
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	marginsth "github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// Entries run with a user's loss (`implicitbias loss FORMULA --run`, issue
// of section G): the margin-dynamics claims of LL App. A, which need only
// the hypotheses (B3), (B4) on the loss, and ZD-T7's GRW-direction
// independence (ZD Thm 8's hypotheses and a tight exponential tail),
// rebuilt with the loss in place of the built-in ones, each with its
// negative controls.

// marginApproxForLoss is LL-A5 with a user's loss.
func marginApproxForLoss(loss string) properties.Entry {
	floor := separationFloor
	return properties.Entry{
		Claims: []properties.Prop{sepProperty("separated points, loss "+loss, cases.Homogeneous, []string{loss}, false, floor,
			func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
				return marginsth.MarginApproximation(marginsth.MarginCase{Obj: obj, Theta: theta})
			})},
		Controls: []properties.Prop{properties.Drops("separability", sepProperty("not separated (one label flipped)", cases.Homogeneous, []string{loss}, false, floor,
			func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
				d := *obj.Data
				d.Y = append([]float64(nil), d.Y...)
				d.Y[0] = -d.Y[0]
				flipped, err := train.NewObjective(obj.Model, obj.Loss, &d)
				if err != nil {
					return undecidedOr(err)
				}
				return marginsth.MarginApproximation(marginsth.MarginCase{Obj: flipped, Theta: theta})
			}))},
	}
}

// flowInequalityForLoss is LL-5.1 with a user's loss.
func flowInequalityForLoss(loss string) properties.Entry {
	return properties.Entry{
		Claims: []properties.Prop{sepProperty("separated points, loss "+loss, cases.Homogeneous, []string{loss}, false, separationFloor,
			func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
				return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta})
			})},
		Controls: []properties.Prop{properties.Drops("bias", sepProperty("bias term, L derived", cases.WithBias, []string{loss}, false, separationFloor,
			func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
				return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta})
			}))},
	}
}

// flowMonotoneForLoss is LL-4.1 with a user's loss.
func flowMonotoneForLoss(loss string) properties.Entry {
	flows := GenFlow(smoothActs, []int{2}, []string{loss})
	return properties.Entry{Cases: 20,
		Claims:   []properties.Prop{flowProperty("flows (smooth-gradient nets), loss "+loss, flows, false, marginsth.MarginMonotone)},
		Controls: []properties.Prop{properties.Drops("step-size", bigStepProperty("GD with η = max(100/κ, ρ₀/‖∇𝓛‖)", flows, false, marginsth.MarginMonotone))},
	}
}

// ratesForLoss is LL-4.3 with a user's loss.
func ratesForLoss(loss string) properties.Entry {
	claim := rateProperty("flows of linear, 2- and 3-layer linear nets, loss "+loss, GenRateRunLosses(0, []string{loss}), "flow")
	f, _ := faults.Lookup("degree-plus-one")
	return properties.Entry{Cases: 5,
		Claims:   []properties.Prop{claim},
		Controls: []properties.Prop{properties.FaultProperty(claim, f)},
	}
}

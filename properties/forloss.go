package properties

import (
	"fmt"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// Entries run with a user's loss (`implicitbias loss FORMULA --run`, issue
// of section G): the margin-dynamics claims of LL App. A, which need only
// the hypotheses (B3), (B4) on the loss, and ZD-T7's GRW-direction
// independence (ZD Thm 8's hypotheses and a tight exponential tail),
// rebuilt with the loss in place of the built-in ones, each with its
// negative controls.

// marginApproxForLoss is LL-A5 with a user's loss.
func marginApproxForLoss(loss string) Entry {
	floor := separationFloor
	return Entry{
		Claims: []Prop{sepProperty("separated points, loss "+loss, Homogeneous, []string{loss}, false, floor,
			func(obj *train.Objective, theta []float64, _ Built) theorems.Verdict {
				return margins.MarginApproximation(margins.MarginCase{Obj: obj, Theta: theta})
			})},
		Controls: []Prop{drops("separability", sepProperty("not separated (one label flipped)", Homogeneous, []string{loss}, false, floor,
			func(obj *train.Objective, theta []float64, _ Built) theorems.Verdict {
				d := *obj.Data
				d.Y = append([]float64(nil), d.Y...)
				d.Y[0] = -d.Y[0]
				flipped, err := train.NewObjective(obj.Model, obj.Loss, &d)
				if err != nil {
					return undecidedOr(err)
				}
				return margins.MarginApproximation(margins.MarginCase{Obj: flipped, Theta: theta})
			}))},
	}
}

// flowInequalityForLoss is LL-5.1 with a user's loss.
func flowInequalityForLoss(loss string) Entry {
	return Entry{
		Claims: []Prop{sepProperty("separated points, loss "+loss, Homogeneous, []string{loss}, false, separationFloor,
			func(obj *train.Objective, theta []float64, _ Built) theorems.Verdict {
				return margins.FlowInequality(margins.MarginCase{Obj: obj, Theta: theta})
			})},
		Controls: []Prop{drops("bias", sepProperty("bias term, L derived", WithBias, []string{loss}, false, separationFloor,
			func(obj *train.Objective, theta []float64, _ Built) theorems.Verdict {
				return margins.FlowInequality(margins.MarginCase{Obj: obj, Theta: theta})
			}))},
	}
}

// flowMonotoneForLoss is LL-4.1 with a user's loss.
func flowMonotoneForLoss(loss string) Entry {
	flows := GenFlow(smoothActs, []int{2}, []string{loss})
	return Entry{Cases: 20,
		Claims:   []Prop{flowProperty("flows (smooth-gradient nets), loss "+loss, flows, false, margins.MarginMonotone)},
		Controls: []Prop{drops("step-size", bigStepProperty("GD with η = max(100/κ, ρ₀/‖∇𝓛‖)", flows, false, margins.MarginMonotone))},
	}
}

// grwDirectionForLoss is ZD-T7 with a user's loss.
func grwDirectionForLoss(loss string) Entry {
	direction := func(r *Runner, c ClassCase) theorems.Verdict {
		data, tr, err := c.Run(r, classSteps(r))
		if err != nil {
			return buildFailed(err)
		}
		return grwclass.GRWDirection(data, tr)
	}
	return Entry{Cases: 8,
		Claims: []Prop{Property[ClassCase]{Name: "GD, linear model, x_i independent, every GRW scheme, loss " + loss, Gen: GenClassNamed(true, loss, allGRWSchemes()),
			Check: func(r *Runner, x ClassCase) theorems.Verdict { return direction(r, x) }}},
		Controls: []Prop{polyControl("1/2", func() Property[ClassCase] {
			return Property[ClassCase]{Gen: GenClassNamed(true, loss, allGRWSchemes()),
				Check: func(r *Runner, x ClassCase) theorems.Verdict { return direction(r, x.WithLoss(LossPolyHalf)) }}
		})},
	}
}

// ratesForLoss is LL-4.3 with a user's loss.
func ratesForLoss(loss string) Entry {
	claim := rateProperty("flows of linear, 2- and 3-layer linear nets, loss "+loss, GenRateRunLosses(0, []string{loss}), "flow")
	f, _ := faults.Lookup("degree-plus-one")
	return Entry{Cases: 5,
		Claims:   []Prop{claim},
		Controls: []Prop{faultProperty(claim, f)},
	}
}

// LossEntryIDs lists the entries ForLoss can build (Entry.ForLoss), in
// catalog order.
func LossEntryIDs() []string {
	var ids []string
	for _, e := range Entries() {
		if e.ForLoss != nil {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// ForLoss returns the entries among ids that can run with the binary margin
// loss named loss (a built-in name or "expr:FORMULA"), built with it; ids
// ForLoss cannot build are skipped.
func ForLoss(loss string, ids []string) ([]Entry, error) {
	l, err := losses.ByName(loss)
	if err != nil {
		return nil, err
	}
	if l.Kind() != losses.Binary {
		return nil, fmt.Errorf("loss %s is not a binary margin loss", loss)
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var es []Entry
	for _, e := range Entries() {
		if e.ForLoss == nil || !want[e.ID] {
			continue
		}
		withLoss := e.ForLoss(loss)
		withLoss.Info = e.Info
		es = append(es, withLoss)
	}
	return es, nil
}

package margins

import (
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	marginsth "github.com/implicitbias/implicitbias/theorems/margins"
	"github.com/implicitbias/implicitbias/train"
)

// Section B of the catalog (and LL-A5 of section A): margin dynamics.

// Entries returns the entries of catalog section B, unbound (suite.Entries
// and properties.Bind add their catalog Info and fault controls).
func Entries() (es []properties.Entry) {
	floor := separationFloor
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-A5"}, ForLoss: marginApproxForLoss,
		Claims: []properties.Prop{
			sepProperty("exp, logistic, polynomial tail at separated points", cases.Homogeneous, cases.BinaryLosses, false, floor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					return marginsth.MarginApproximation(marginsth.MarginCase{Obj: obj, Theta: theta})
				}),
			sepProperty("exp, logistic far out: u = log(1/𝓛) from 800 to 900, past float64's e^{−745} (log domain, LL App. K.2)", cases.Homogeneous, []string{"exp", "logistic"}, false, farFloor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					return marginsth.MarginApproximation(marginsth.MarginCase{Obj: obj, Theta: theta})
				}),
		},
		Controls: []properties.Prop{
			properties.Drops("printed-g", sepProperty("LL Remark A.2's printed logistic g′, equal margins", cases.Homogeneous, []string{"logistic"}, true,
				floor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					return marginsth.MarginApproximation(marginsth.MarginCase{Obj: obj, Theta: theta, Margin: printedLogistic{}})
				})),
			properties.Drops("separability", sepProperty("not separated (one label flipped)", cases.Homogeneous, cases.BinaryLosses, false, floor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					// q_1 < 0 makes ℓ(q_1) > ℓ(0) = ℓ(b_f): 𝓛 ≥ ℓ(b_f).
					d := *obj.Data
					d.Y = append([]float64(nil), d.Y...)
					d.Y[0] = -d.Y[0]
					flipped, err := train.NewObjective(obj.Model, obj.Loss, &d)
					if err != nil {
						return undecidedOr(err)
					}
					return marginsth.MarginApproximation(marginsth.MarginCase{Obj: flipped, Theta: theta})
				})),
		},
		Faults: []properties.FaultControl{
			{Fault: "loss-underflow", On: "far out", Why: "at u ≥ 800 every log ℓ_n reads the floor: log(1/𝓛) ≈ 745 − log N, below f(q_min) − log N by the loss's definition, and off the LogSumExp of the margins' log-losses"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-5.1"}, ForLoss: flowInequalityForLoss,
		Claims: []properties.Prop{sepProperty("exp, logistic, cross-entropy at separated points", cases.Homogeneous, []string{"exp", "logistic", "ce"}, false, floor,
			func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
				return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta})
			})},
		Controls: []properties.Prop{
			properties.Drops("degree", sepProperty("declared L+1 at u ≥ 2(L+2)log(NK) + 20", cases.Homogeneous, []string{"exp", "logistic", "ce"}, false, deepFloor,
				func(obj *train.Objective, theta []float64, b cases.Built) theorems.Verdict {
					return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta, Degree: b.Degree + 1})
				})),
			properties.Drops("bias", sepProperty("bias term, L derived", cases.WithBias, []string{"exp", "logistic"}, false, floor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta})
				})),
		},
		Faults: []properties.FaultControl{
			{Fault: "backward-first-block", Why: "the flow inequality's premise, Euler's identity ⟨θ, ∇𝓛⟩ = L·Σ_n⟨∂ℓ_n/∂s, s_n⟩, fails for the engine's gradient"},
		},
	})
	binaryFlows := GenFlow(smoothActs, []int{2}, []string{"exp", "logistic"})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-4.1"}, Cases: 40, Figures: marginFigures, ForLoss: flowMonotoneForLoss,
		Claims:   []properties.Prop{flowProperty("flows of exp and logistic losses (smooth-gradient nets)", binaryFlows, false, marginsth.MarginMonotone)},
		Controls: []properties.Prop{properties.Drops("step-size", bigStepProperty("GD with η = max(100/κ, ρ₀/‖∇𝓛‖)", binaryFlows, false, marginsth.MarginMonotone))},
		Faults: []properties.FaultControl{
			{Fault: "flow-error-underreported", Why: "the re-integration of each step by an independent RK4 companion finds errors far above the integrator's report (median excess > IntegratorErrorFactor)"},
			{Fault: "tableau-b1-misplaced", Why: "the flow premise: the recorded flow times, re-integrated from the recorded θ by RK4 in log F (dt = −dλ/(F‖Dir‖²)), are off by more than the declared tolerance allows on a sampled gap (on more than half of 32 for a kinked net)"},
		},
	})
	ceFlows := GenFlow(smoothActs, []int{3, 4}, []string{"ce"})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-F"}, Cases: 20,
		Claims:   []properties.Prop{flowProperty("cross-entropy flows, 3–4 classes", ceFlows, false, marginsth.MarginMonotone)},
		Controls: []properties.Prop{properties.Drops("step-size", bigStepProperty("GD with η = max(100/κ, ρ₀/‖∇𝓛‖)", ceFlows, false, marginsth.MarginMonotone))},
		Faults: []properties.FaultControl{
			{Fault: "flow-error-underreported", Why: "as LL-4.1, on cross-entropy flows"},
			{Fault: "tableau-b1-misplaced", Why: "as LL-4.1, on cross-entropy flows"},
		},
	})
	multiFlows := GenFlow(smoothActs, []int{2, 3}, []string{"exp", "logistic", "ce"})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-G"}, Cases: 20,
		Claims: []properties.Prop{
			sepProperty("pointwise Lemma G.2 at separated points", cases.Homogeneous, []string{"exp", "logistic", "ce"}, false, floor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta, MultiHomogeneous: true})
				}),
			flowProperty("flows with γ̃ = g(log 1/𝓛)/Π‖w_i‖^{k_i}", multiFlows, true, marginsth.MarginMonotone),
		},
		Controls: []properties.Prop{
			properties.Drops("step-size", bigStepProperty("GD with η = max(100/κ, ρ₀/‖∇𝓛‖)", multiFlows, true, marginsth.MarginMonotone)),
			properties.Drops("bias", sepProperty("bias term, block degrees derived", cases.WithBias, []string{"exp", "logistic"}, false, floor,
				func(obj *train.Objective, theta []float64, _ cases.Built) theorems.Verdict {
					return marginsth.FlowInequality(marginsth.MarginCase{Obj: obj, Theta: theta, MultiHomogeneous: true})
				})),
		},
		Faults: []properties.FaultControl{
			{Fault: "flow-error-underreported", On: "flows", Why: "as LL-4.1, on the multi-homogeneous flows"},
			{Fault: "tableau-b1-misplaced", On: "flows", Why: "as LL-4.1, on the multi-homogeneous flows"},
		},
	})
	c2Flows := GenFlow(c2Acts, []int{2}, []string{"exp"})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-4.2"}, Cases: 20,
		Claims: []properties.Prop{gdProperty("GD with η = 0.1/λ_max(∇²𝓛(t₀)), exp loss, C² nets", c2Flows, func(l float64) float64 { return 0.1 / l }, nil)},
		// A too-large constant η is no control: its first step divides 𝓛
		// by orders of magnitude, after which η·smoothness is tiny and γ̂
		// grows (measured: η = 50/λ_max broke monotonicity in 9 of 50
		// cases). The step must stay too large: overStep.
		Controls: []properties.Prop{properties.Drops("step-size", gdProperty("too-large η: GD with η = max(100/κ, ρ₀/‖∇𝓛‖) at every step", c2Flows, nil, &overStep{}))},
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "Thm 4.2 is about gradient descent: the recorded steps are not −η∇𝓛 (the descent-step identity)"},
			{Fault: "missing-zero-grad", Why: "Thm 4.2 is about gradient descent: from the second step on the recorded steps are −η times the sum of every gradient so far, not −η∇𝓛 (the descent-step identity)"},
		},
	})
	rates := func(name string, minModel int, opt string) properties.Property[RateRunCase] {
		return rateProperty(name, GenRateRun(minModel), opt)
	}
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-4.3"}, Cases: 10, Figures: rateFigures, ForLoss: ratesForLoss,
		Claims: []properties.Prop{rates("flows of linear, 2- and 3-layer linear nets; exp, logistic", 0, "flow")},
		Controls: []properties.Prop{
			properties.Drops("step-size", rates("loss-based schedule (LL App. K.1): steps beyond (S5)", 0, "lossbased")),
		},
		Faults: []properties.FaultControl{
			{Fault: "degree-plus-one", Why: "γ̃ = g(log 1/𝓛)/ρ^{L+1} falls along the flow, which LL Thm 4.1 forbids: the rates' premise is refuted (this replaces the refits with the exponents of L ± 1, which tested arithmetic)"},
		},
	})
	anyNets := GenFlow([]int{0, 1, 2, 3, 4, 5, 6}, []int{2}, []string{"exp", "logistic"})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-K1"}, Cases: 20,
		Claims: []properties.Prop{schedProperty("loss-based schedule, every homogeneous activation, exp and logistic", anyNets, func() train.Optimizer {
			lb, _ := train.NewLossBased(0)
			return lb
		})},
		Faults: []properties.FaultControl{
			{Fault: "loss-underflow", Why: "the loss-based schedule's log 𝓛 cannot fall below about −709 … −745: it stalls short of log 𝓛 ≤ −2000"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-K2"}, Cases: 10,
		Claims:   []properties.Prop{logDomainProperty("loss-based runs to log 𝓛 ≈ −10⁴, engine evaluation", anyNets, false)},
		Controls: []properties.Prop{properties.Drops("log-domain", logDomainProperty("the same states evaluated in plain float64", anyNets, true))},
		Faults: []properties.FaultControl{
			{Fault: "loss-underflow", Why: "log 𝓛 saturates near the float64 floor while the independent per-sample recomputation goes on: the run disagrees with it"},
		},
	})
	return es
}

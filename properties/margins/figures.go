package margins

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Figures of the trajectory-based entries, drawn by `verify --report`: one
// representative case per entry, drawn from the run's seed like the cases
// the check decided on (Entry.Figures). A figure that cannot be drawn (the
// case failed to build or train) is left out; the check's verdict says why.

// marginFigures draws γ̃ and γ̄ against log T along one integrated flow
// (LL-4.1): γ̃ rises monotonically and meets γ̄ from below.
func marginFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	cs := properties.Sample(GenFlow(smoothActs, []int{2}, []string{"exp"}), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	obj, theta, err := c.Build()
	if err != nil {
		return nil
	}
	n := lengths(r)
	tr, err := flowRun(obj, theta, n.flowTarget, n.flowSteps)
	if err != nil {
		return nil
	}
	var x, smooth, norm []float64
	for _, r := range tr.Records {
		if !r.Separated || math.IsInf(r.LogT, 0) {
			continue
		}
		x = append(x, r.LogT)
		smooth = append(smooth, r.SmoothedMargin)
		norm = append(norm, r.NormalizedMargin)
	}
	return []theorems.Figure{{
		Name:    "margins",
		Title:   "LL-4.1: margins along a gradient flow",
		Caption: fmt.Sprintf("Exponential loss, %v.", c),
		XLabel:  "log T (flow time)",
		YLabel:  "margin",
		Series: []theorems.Series{
			{Name: "smoothed γ̃", X: x, Y: smooth},
			{Name: "normalized γ̄", X: x, Y: norm},
		},
	}}
}

// rateFigures draws, along one long flow (LL-4.3), the two ratios of Thm 4.3
// against log log T: both flatten, log(𝓛·T·(log T)^{2−2/L}) and
// log(ρ/(log T)^{1/L}).
func rateFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	cs := properties.Sample(GenRateRun(0), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	obj, theta, err := c.Build()
	if err != nil {
		return nil
	}
	opt, err := train.NewOptimizer("flow", train.OptimizerOptions{Tol: cases.FlowTol})
	if err != nil {
		return nil
	}
	n := lengths(r)
	tr, err := train.Run(obj, opt, theta, train.Config{Steps: n.lbSteps, StopLogLoss: n.rateTarget})
	if err != nil {
		return nil
	}
	L := tr.Degree
	var x, loss, rho []float64
	for _, r := range tr.Records {
		if !r.Separated || !(r.LogT > 0) {
			continue
		}
		llT := math.Log(r.LogT)
		x = append(x, llT)
		loss = append(loss, r.LogLoss+r.LogT+(2-2/L)*llT)
		rho = append(rho, math.Log(r.Rho)-llT/L)
	}
	return []theorems.Figure{{
		Name:    "rates",
		Title:   fmt.Sprintf("LL-4.3: rate ratios along a flow (L = %g)", L),
		Caption: fmt.Sprintf("Both ratios flatten as log log T grows (LL Thm 4.3); %v.", c),
		XLabel:  "log log T",
		YLabel:  "log ratio",
		Series: []theorems.Series{
			{Name: "log(L(θ)·T·(log T)^{2−2/L})", X: x, Y: loss},
			{Name: "log(ρ/(log T)^{1/L})", X: x, Y: rho},
		},
	}}
}

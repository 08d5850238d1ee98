package properties

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// Figures of the trajectory-based entries, drawn by `verify --report`: one
// representative case per entry, drawn from the run's seed like the cases
// the check decided on (Entry.Figures). A figure that cannot be drawn (the
// case failed to build or train) is left out; the check's verdict says why.

// marginFigures draws γ̃ and γ̄ against log T along one integrated flow
// (LL-4.1): γ̃ rises monotonically and meets γ̄ from below.
func marginFigures(r *Runner) []theorems.Figure {
	seed := r.Seed
	cs := Sample(GenFlow(smoothActs, []int{2}, []string{"exp"}), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	obj, theta, err := c.Build()
	if err != nil {
		return nil
	}
	n := r.lengths()
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
func rateFigures(r *Runner) []theorems.Figure {
	seed := r.Seed
	cs := Sample(GenRateRun(0), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	obj, theta, err := c.Build()
	if err != nil {
		return nil
	}
	opt, err := train.NewOptimizer("flow", train.OptimizerOptions{Tol: flowTol})
	if err != nil {
		return nil
	}
	n := r.lengths()
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

// kktFigures draws the KKT residuals ε, δ and 1 − β of θ̃ = θ/q_min^{1/L}
// against log T along one GD run of a ReLU network (LL-4.4).
func kktFigures(r *Runner) []theorems.Figure {
	seed := r.Seed
	cs := Sample(GenKKT(KKTReLU), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	b, tr, err := trained(r, c)
	if err != nil {
		return nil
	}
	var x, eps, delta, beta []float64
	for _, w := range kkt.Windows(tr, false) {
		r := w[0]
		if !r.Separated || math.IsInf(r.LogT, 0) {
			continue
		}
		ths := make([][]float64, len(w))
		for i, rec := range w {
			ths[i] = rec.Theta
		}
		k, err := kkt.MeasureKKTWindow(b.Obj, ths, 0)
		if err != nil {
			continue
		}
		x = append(x, r.LogT)
		eps = append(eps, math.Log10(k.Epsilon))
		delta = append(delta, math.Log10(k.Delta))
		beta = append(beta, math.Log10(1-k.Beta))
	}
	return []theorems.Figure{{
		Name:    "kkt",
		Title:   "LL-4.4: KKT residuals along gradient descent",
		Caption: fmt.Sprintf("ε, δ of θ̃ = θ/q_min^{1/L} (LL Def. C.6, windows of consecutive steps) and 1 − β; %v.", c),
		XLabel:  "log T",
		YLabel:  "log10 residual",
		Series: []theorems.Series{
			{Name: "ε", X: x, Y: eps},
			{Name: "δ", X: x, Y: delta},
			{Name: "1 − β", X: x, Y: beta},
		},
	}}
}

// grwDistanceFigures draws the relative distance ‖θ_t − θ*‖/‖θ*‖ to the ERM
// interpolator against the step for every GRW scheme (ZD-T1), and Adam
// (the negative control), on one overparameterized regression problem.
func grwDistanceFigures(r *Runner) []theorems.Figure {
	seed := r.Seed
	cs := Sample(GenRegression(nil, []int{OptGD}), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	base := cs[0]
	ds, theta0 := base.Problem()
	rc := regression.RegressionCase{X: ds.X, Y: ds.Y, N: ds.N, D: ds.D, Theta0: theta0}
	star, err := rc.Interpolator()
	if err != nil {
		return nil
	}
	f := theorems.Figure{
		Name:    "distance",
		Title:   "ZD-T1: distance to the interpolator θ* per scheme",
		Caption: fmt.Sprintf("Linear regression, squared loss, n = %d samples in d = %d dimensions (%v); every GRW scheme and heavy ball reach θ*, Adam does not.", ds.N, ds.D, base),
		XLabel:  "step",
		YLabel:  "log10 ‖θ_t − θ*‖/‖θ*‖",
	}
	for _, v := range []struct {
		name        string
		scheme, opt int
	}{
		{"ERM", SchemeERM, OptGD}, {"IW", SchemeIW, OptGD}, {"Group DRO", SchemeGroupDRO, OptGD},
		{"χ²-DRO", SchemeChiSquare, OptGD}, {"CVaR-DRO", SchemeCVaR, OptGD}, {"heavy ball", SchemeERM, OptMomentum},
		{"Adam (control)", SchemeERM, OptAdam},
	} {
		c := base
		c.Scheme, c.Opt = v.scheme, v.opt
		w, err := c.Weighting(ds.N)
		if err != nil {
			continue
		}
		opt, err := c.optimizer(ds)
		if err != nil {
			continue
		}
		model, err := models.NewLinear(ds.D, 1)
		if err != nil {
			continue
		}
		obj, err := train.NewObjective(model, losses.Squared{}, ds)
		if err != nil {
			continue
		}
		theta := append([]float64(nil), theta0...)
		tr, err := train.Run(obj, opt, theta, train.Config{Steps: 3000, Every: 30, Weighting: w, KeepTheta: true})
		if err != nil {
			continue
		}
		var x, y []float64
		for _, r := range tr.Records {
			x = append(x, float64(r.Step))
			y = append(y, math.Log10(math.Max(dist(r.Theta, star)/floats.Norm(star, 2), 1e-17)))
		}
		f.Series = append(f.Series, theorems.Series{Name: v.name, X: x, Y: y})
	}
	return []theorems.Figure{f}
}

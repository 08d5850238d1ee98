package regression

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	regressionth "github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// grwDistanceFigures draws the relative distance ‖θ_t − θ*‖/‖θ*‖ to the ERM
// interpolator against the step for every GRW scheme (ZD-T1), and Adam
// (the negative control), on one overparameterized regression problem.
func grwDistanceFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	cs := properties.Sample(GenRegression(nil, []int{OptGD}), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	base := cs[0]
	ds, theta0 := base.Problem()
	rc := regressionth.RegressionCase{X: ds.X, Y: ds.Y, N: ds.N, D: ds.D, Theta0: theta0}
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
		{"ERM", cases.SchemeERM, OptGD}, {"IW", cases.SchemeIW, OptGD}, {"Group DRO", cases.SchemeGroupDRO, OptGD},
		{"χ²-DRO", cases.SchemeChiSquare, OptGD}, {"CVaR-DRO", cases.SchemeCVaR, OptGD}, {"heavy ball", cases.SchemeERM, OptMomentum},
		{"Adam (control)", cases.SchemeERM, OptAdam},
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
			y = append(y, math.Log10(math.Max(floats.Distance(r.Theta, star, 2)/floats.Norm(star, 2), 1e-17)))
		}
		f.Series = append(f.Series, theorems.Series{Name: v.name, X: x, Y: y})
	}
	return []theorems.Figure{f}
}

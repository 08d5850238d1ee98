package kkt

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	kktth "github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// kktFigures draws the KKT residuals ε, δ and 1 − β of θ̃ = θ/q_min^{1/L}
// against log T along one GD run of a ReLU network (LL-4.4), which run
// trains (the entry passes its cached GD runs, planRun).
func kktFigures(run func(*properties.Runner, KKTCase) (*KKTBuilt, *train.Trajectory, error)) func(*properties.Runner) []theorems.Figure {
	return func(r *properties.Runner) []theorems.Figure { return kktFigure(r, run) }
}

func kktFigure(r *properties.Runner, run func(*properties.Runner, KKTCase) (*KKTBuilt, *train.Trajectory, error)) []theorems.Figure {
	seed := r.Seed
	cs := properties.Sample(GenKKT(KKTReLU), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	b, tr, err := run(r, c)
	if err != nil {
		return nil
	}
	var x, eps, delta, beta []float64
	for _, w := range kktth.Windows(tr, false) {
		r := w[0]
		if !r.Separated || math.IsInf(r.LogT, 0) {
			continue
		}
		ths := make([][]float64, len(w))
		for i, rec := range w {
			ths[i] = rec.Theta
		}
		k, err := kktth.MeasureKKTWindow(b.Obj, ths, 0)
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

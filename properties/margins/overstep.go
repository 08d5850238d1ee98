package margins

import (
	"math"

	"github.com/implicitbias/implicitbias/train"
	"gonum.org/v1/gonum/floats"
)

// overStep is gradient descent with a step far above 1/smoothness, the
// negative control of the monotonicity checks:
//
//	η_t = max(100/κ_t, ρ₀/‖∇𝓛_t‖),
//
// κ_t the curvature of 𝓛 along the gradient (a forward difference of ∇𝓛·v,
// v = ∇𝓛/‖∇𝓛‖, and at least 𝓛‖∇log 𝓛‖², the Gauss–Newton part of an
// exponential-type loss along v, by Jensen), ρ₀ the norm at the start: a
// hundred times the step a quadratic model allows, and at least a step as
// long as θ itself. Constant η is no control here: 𝓛, and with it the
// smoothness, falls by orders of magnitude in one such step, after which a
// constant η is tiny.
type overStep struct {
	rho0       float64
	dir, shift []float64
}

func (*overStep) Rule() train.StepRule { return train.StepRule{} } // not a rule train knows

func (o *overStep) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	if o.dir == nil {
		o.dir, o.shift = make([]float64, len(theta)), make([]float64, len(theta))
		o.rho0 = floats.Norm(theta, 2)
	}
	copy(o.dir, ev.Dir)
	logL := ev.LogObjective
	dn := floats.Norm(o.dir, 2)
	dv := dn // ⟨Dir, v⟩ with v = Dir/‖Dir‖
	h := 1e-5 * floats.Norm(theta, 2)
	floats.AddScaledTo(o.shift, theta, h/dn, o.dir)
	ev2, err := obj.Evaluate(o.shift, true)
	if err != nil {
		return 0, err
	}
	// κ/𝓛 = (e^{log 𝓛(θ+hv) − log 𝓛}⟨Dir(θ+hv), v⟩ − ⟨Dir, v⟩)/h.
	kappa := math.Max((math.Exp(ev2.LogObjective-logL)*floats.Dot(ev2.Dir, o.dir)/dn-dv)/h, dn*dn)
	// θ − η∇𝓛 = θ − (η𝓛)·Dir.
	etaL := math.Max(100/kappa, o.rho0/dn)
	floats.AddScaled(theta, -etaL, o.dir)
	return math.Log(etaL) - logL, nil
}

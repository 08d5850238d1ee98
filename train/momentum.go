package train

import (
	"fmt"
	"math"
)

func init() {
	RegisterOptimizer("momentum", func(o OptimizerOptions) (Optimizer, error) { return NewMomentum(o.LR, o.Momentum) })
	RegisterOptimizer("adam", func(o OptimizerOptions) (Optimizer, error) {
		return NewAdam(o.LR, o.Beta1, o.Beta2, o.Epsilon)
	})
}

// DefaultMomentum is the heavy-ball coefficient β used when none is given.
const DefaultMomentum = 0.9

// Momentum is heavy-ball gradient descent (Polyak 1964),
//
//	v ← β v − η ∇𝓛(θ),   θ ← θ + v,
//
// i.e. θ_{t+1} = θ_t − η∇𝓛(θ_t) + β(θ_t − θ_{t−1}). Every step is a
// combination of past gradients, so for a linear model θ_t − θ₀ stays in
// span{x_i} (ZD-span). The gradient enters as e^{log η + log 𝓛}·Dir, as in
// GD. Step does not allocate.
type Momentum struct {
	LR, Beta float64
	v        []float64
}

// NewMomentum returns heavy-ball GD with step η > 0 and β ∈ (0, 1) (0 means
// DefaultMomentum).
func NewMomentum(lr, beta float64) (*Momentum, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("train: learning rate must be a finite number > 0, got %v", lr)
	}
	if beta == 0 {
		beta = DefaultMomentum
	}
	if !(beta > 0 && beta < 1) {
		return nil, fmt.Errorf("train: momentum β must be in (0, 1), got %v", beta)
	}
	return &Momentum{LR: lr, Beta: beta}, nil
}

// Rule returns heavy ball with η and β.
func (m *Momentum) Rule() StepRule { return StepRule{Kind: HeavyBallStep, LR: m.LR, Momentum: m.Beta} }

// Reset zeroes the velocity.
func (m *Momentum) Reset(p int) {
	if len(m.v) != p {
		m.v = make([]float64, p)
	}
	clear(m.v)
}

// Step applies one heavy-ball step and returns log η.
func (m *Momentum) Step(_ *Objective, theta []float64, ev *Eval) (float64, error) {
	if len(m.v) != len(theta) {
		m.Reset(len(theta))
	}
	logEta := math.Log(m.LR)
	g := -math.Exp(logEta + ev.LogObjective)
	for i, d := range ev.Dir {
		m.v[i] = m.Beta*m.v[i] + g*d
		theta[i] += m.v[i]
	}
	return logEta, nil
}

// Adam's defaults (Kingma & Ba 2015).
const (
	DefaultAdamBeta1   = 0.9
	DefaultAdamBeta2   = 0.999
	DefaultAdamEpsilon = 1e-8
)

// Adam is Kingma & Ba's (2015) method,
//
//	m ← β₁m + (1 − β₁)g,  v ← β₂v + (1 − β₂)g²,
//	θ ← θ − η m̂/(√v̂ + ε),  m̂ = m/(1 − β₁^t),  v̂ = v/(1 − β₂^t),
//
// with g = ∇𝓛(θ) = e^{log 𝓛}·Dir formed in linear scale (Adam's update is
// not invariant to the scale of g because of ε, so the scale cannot be
// factored out). Its coordinate-wise scaling moves θ out of span{x_i}: it
// is the negative control of ZD-T1 and ZD-span. Step does not allocate.
type Adam struct {
	LR, Beta1, Beta2, Epsilon float64
	m, v                      []float64
	t                         int
}

// NewAdam returns Adam with step η > 0; zero β₁, β₂, ε mean the defaults.
func NewAdam(lr, beta1, beta2, eps float64) (*Adam, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("train: learning rate must be a finite number > 0, got %v", lr)
	}
	if beta1 == 0 {
		beta1 = DefaultAdamBeta1
	}
	if beta2 == 0 {
		beta2 = DefaultAdamBeta2
	}
	if eps == 0 {
		eps = DefaultAdamEpsilon
	}
	if !(beta1 > 0 && beta1 < 1) || !(beta2 > 0 && beta2 < 1) {
		return nil, fmt.Errorf("train: Adam needs β₁, β₂ in (0, 1), got %v, %v", beta1, beta2)
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("train: Adam needs ε > 0, got %v", eps)
	}
	return &Adam{LR: lr, Beta1: beta1, Beta2: beta2, Epsilon: eps}, nil
}

// Rule returns Adam with η.
func (a *Adam) Rule() StepRule { return StepRule{Kind: AdamStep, LR: a.LR} }

// Reset zeroes the moments and the step count.
func (a *Adam) Reset(p int) {
	if len(a.m) != p {
		a.m, a.v = make([]float64, p), make([]float64, p)
	}
	clear(a.m)
	clear(a.v)
	a.t = 0
}

// Step applies one Adam step and returns log η.
func (a *Adam) Step(_ *Objective, theta []float64, ev *Eval) (float64, error) {
	if len(a.m) != len(theta) {
		a.Reset(len(theta))
	}
	a.t++
	scale := math.Exp(ev.LogObjective)
	if math.IsInf(scale, 0) {
		return 0, fmt.Errorf("%w: Adam needs the gradient in linear scale, but 𝓛 = e^%.6g overflows", ErrNonFinite, ev.LogObjective)
	}
	c1 := 1 - math.Pow(a.Beta1, float64(a.t))
	c2 := 1 - math.Pow(a.Beta2, float64(a.t))
	for i, d := range ev.Dir {
		g := scale * d
		a.m[i] = a.Beta1*a.m[i] + (1-a.Beta1)*g
		a.v[i] = a.Beta2*a.v[i] + (1-a.Beta2)*g*g
		theta[i] -= a.LR * (a.m[i] / c1) / (math.Sqrt(a.v[i]/c2) + a.Epsilon)
	}
	return math.Log(a.LR), nil
}

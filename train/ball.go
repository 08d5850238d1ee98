package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// Projected gradient descent on a norm ball, for the regularization path of
// ZD Thm 8 (iii) (Ji et al. 2020):
//
//	θ_R = argmin_{‖θ‖₂ ≤ R} 𝓛(θ),
//
// whose direction θ_R/R has, for a convex strictly decreasing loss, the same
// limit as the gradient-descent direction θ(t)/‖θ(t)‖.

// ProjectBall projects θ on the ball ‖θ‖₂ ≤ radius (in place): θ is scaled
// to the sphere when outside.
func ProjectBall(theta []float64, radius float64) {
	if n := floats.Norm(theta, 2); n > radius {
		floats.Scale(radius/n, theta)
	}
}

// ProjectedGD is projected gradient descent with a constant step size on
// the ball of radius Radius:
//
//	θ ← Π_R(θ − η∇𝓛),   Π_R(v) = v·min(1, R/‖v‖).
type ProjectedGD struct {
	LR, Radius float64
}

// NewProjectedGD returns projected GD with step lr > 0 on the ball of
// radius radius > 0.
func NewProjectedGD(lr, radius float64) (*ProjectedGD, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("train: learning rate must be a finite number > 0, got %v", lr)
	}
	if !(radius > 0) || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("train: ball radius must be a finite number > 0, got %v", radius)
	}
	return &ProjectedGD{LR: lr, Radius: radius}, nil
}

// Rule returns projected GD with η.
func (p *ProjectedGD) Rule() StepRule { return StepRule{Kind: ProjectedGDStep, LR: p.LR} }

// Step takes the GD step then projects on the ball.
func (p *ProjectedGD) Step(_ *Objective, theta []float64, ev *Eval) (float64, error) {
	logEta := math.Log(p.LR)
	floats.AddScaled(theta, -math.Exp(logEta+ev.LogObjective), ev.Dir)
	ProjectBall(theta, p.Radius)
	return logEta, nil
}

// BallSettings are the options of MinimizeOnBall; nil means the defaults.
type BallSettings struct {
	// Tol is the threshold on the tangential part of ∇log𝓛 at which the
	// search stops; 0 means DefaultMinimizeGradTol.
	Tol float64
	// MaxIterations bounds the quasi-Newton iterations; 0 means 10000.
	MaxIterations int
}

// BallResult is the outcome of MinimizeOnBall.
type BallResult struct {
	LogLoss float64 // log(𝓛 + R) at θ_R
	// Residual is ‖θ − Π_R(θ − ∇log𝓛)‖, the residual of the projected
	// gradient mapping at unit step (0 exactly at θ_R); Multiplier is
	// μ = −⟨∇log𝓛, θ⟩/R², the multiplier of the ball constraint (KKT:
	// −∇log𝓛 = μθ, μ ≥ 0).
	Residual, Multiplier float64
	Iterations           int
}

// ErrInteriorMinimizer reports a ball whose minimizer is not on its
// boundary (the multiplier of the constraint is negative).
var ErrInteriorMinimizer = errors.New("train: the minimizer over the ball is not on its boundary")

// MinimizeOnBall computes θ_R = argmin_{‖θ‖ ≤ R} 𝓛(θ) + R(θ) from theta (in
// place) when the minimizer lies on the sphere ‖θ‖ = R, as it does for
// separable data and a loss decreasing to 0 (ZD Thm 8: 𝓛 has no
// minimizer, so every ball's minimizer is on its boundary).
//
// Method: BFGS (as Minimize) on the sphere parametrized by v ≠ 0,
//
//	θ(v) = R v/‖v‖,   ∇_v log𝓛(θ(v)) = (R/‖v‖)(I − v̂v̂ᵀ)∇log𝓛(θ),
//
// whose gradient has no radial part (BFGS then never moves v radially
// beyond rounding). Projected gradient descent (ProjectedGD) converges to
// the same point, but at a linear rate set by the tangential curvature of
// 𝓛 at θ_R, which far along the path is as small as the loss itself; the
// quasi-Newton method is superlinear. At the end the KKT condition of the
// constraint is verified: −∇log𝓛 = μθ with μ ≥ 0 (else
// ErrInteriorMinimizer).
func MinimizeOnBall(obj *Objective, theta []float64, radius float64, s *BallSettings) (*BallResult, error) {
	if !(radius > 0) || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("train: ball radius must be a finite number > 0, got %v", radius)
	}
	p := len(theta)
	if p != obj.Model.NumParams() {
		return nil, fmt.Errorf("train: θ has %d entries, model %s needs %d", p, obj.Model, obj.Model.NumParams())
	}
	tol, maxIt := DefaultMinimizeGradTol, 10000
	if s != nil {
		if s.Tol > 0 {
			tol = s.Tol
		}
		if s.MaxIterations > 0 {
			maxIt = s.MaxIterations
		}
	}
	nv := floats.Norm(theta, 2)
	if !(nv > 0) {
		return nil, fmt.Errorf("train: MinimizeOnBall needs a start θ ≠ 0 (a direction on the sphere)")
	}
	obj.ResetCache()
	floats.Scale(radius/nv, theta)
	v := append([]float64(nil), theta...)
	th := make([]float64, p)
	br, err := bfgs(v, func(x, g []float64) (float64, error) {
		n := floats.Norm(x, 2)
		floats.ScaleTo(th, radius/n, x)
		ev, err := obj.Evaluate(th, true)
		if err != nil {
			return 0, err
		}
		// g = (R/‖v‖)(Dir − ⟨Dir, v̂⟩v̂).
		c := floats.Dot(ev.Dir, x) / (n * n)
		for i := range g {
			g[i] = (radius / n) * (ev.Dir[i] - c*x[i])
		}
		return ev.LogObjective, nil
	}, tol, maxIt)
	floats.ScaleTo(theta, radius/floats.Norm(v, 2), v)
	ev, e2 := obj.Evaluate(theta, true)
	if e2 != nil {
		return nil, e2
	}
	res := &BallResult{LogLoss: ev.LogObjective, Multiplier: -floats.Dot(ev.Dir, theta) / (radius * radius)}
	if br != nil {
		res.Iterations = br.Iterations
	}
	trial := make([]float64, p)
	floats.SubTo(trial, theta, ev.Dir)
	ProjectBall(trial, radius)
	floats.SubTo(trial, theta, trial)
	res.Residual = floats.Norm(trial, 2)
	if err != nil {
		return res, err
	}
	if res.Multiplier < 0 {
		return res, fmt.Errorf("%w (multiplier %.3g)", ErrInteriorMinimizer, res.Multiplier)
	}
	return res, nil
}

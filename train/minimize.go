package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// MinimizeSettings are the options of Minimize; nil means the defaults.
type MinimizeSettings struct {
	// GradTol is the threshold on ‖∇ log(𝓛 + R)‖∞ (the objective's Dir) at
	// which the minimizer stops; 0 means DefaultMinimizeGradTol.
	GradTol float64
	// MaxIterations bounds the quasi-Newton iterations; 0 means 10000.
	MaxIterations int
}

// DefaultMinimizeGradTol is the default stationarity threshold of Minimize
// on the gradient of the log objective: a relative gradient of 1e-10 puts
// a strictly convex objective within ~1e-10/λ_min of its minimizer in θ
// and at 1e-20/λ_min relative of its minimum, far below what the checks
// resolve, while staying above the rounding of Dir (~1e-14).
const DefaultMinimizeGradTol = 1e-10

// MinimizeResult is the outcome of Minimize.
type MinimizeResult struct {
	// LogObjective is log(𝓛 + R) at the minimizer (θ is written in place).
	LogObjective float64
	// GradNorm is ‖∇ log(𝓛 + R)‖∞ there.
	GradNorm   float64
	Iterations int
}

// Minimize finds a minimizer of the objective 𝓛(θ) + R(θ) from theta (in
// place) by BFGS on its logarithm,
//
//	minimize log(𝓛(θ) + R(θ)),   ∇ = Dir (Objective.Evaluate),
//
// which has the same minimizers and a gradient of order one whatever the
// size of 𝓛 (weakly regularized optima have 𝓛 ~ λ, e.g. 1e-8; the
// gradient of 𝓛 itself would be that small). It is how the checks of
// XY Prop. 3 and Claim 1 get the regularized optimum θ_λ(w) of
// L(θ; w) + λ‖θ‖^r (Reg = NormPower). The objective must have a minimizer
// (a regularizer for classification losses).
//
// Method: BFGS with the inverse-Hessian update (Nocedal & Wright 2006,
// eq. 6.17), skipped when the curvature sᵀy is not positive, and a
// backtracking line search on Armijo's condition with c₁ = 10⁻⁴; the first
// step is scaled by sᵀy/yᵀy (eq. 6.20). Dense, O(P²) per step: for the
// linear models of the checks (P ≤ a few hundred). It returns an error when
// the run ends away from stationarity.
func Minimize(obj *Objective, theta []float64, s *MinimizeSettings) (*MinimizeResult, error) {
	tol, maxIt := DefaultMinimizeGradTol, 10000
	if s != nil {
		if s.GradTol > 0 {
			tol = s.GradTol
		}
		if s.MaxIterations > 0 {
			maxIt = s.MaxIterations
		}
	}
	if len(theta) != obj.Model.NumParams() {
		return nil, fmt.Errorf("train: θ has %d entries, model %s needs %d", len(theta), obj.Model, obj.Model.NumParams())
	}
	obj.ResetCache()
	return bfgs(theta, func(x, g []float64) (float64, error) {
		ev, err := obj.Evaluate(x, true)
		if err != nil {
			return 0, err
		}
		copy(g, ev.Dir)
		return ev.LogObjective, nil
	}, tol, maxIt)
}

// ResetCache drops the evaluation Evaluate keeps for a repeated θ: call it
// after changing Reg, Loss or the data in place.
func (o *Objective) ResetCache() { o.cacheOK = false }

// bfgs minimizes f from x (in place); fg writes ∇f(x) into g and returns
// f(x). It stops when ‖∇f‖∞ ≤ tol.
func bfgs(x []float64, fg func(x, g []float64) (float64, error), tol float64, maxIt int) (*MinimizeResult, error) {
	p := len(x)
	h := make([]float64, p*p) // inverse Hessian approximation, row-major
	identity := func() {
		clear(h)
		for i := 0; i < p; i++ {
			h[i*p+i] = 1
		}
	}
	identity()
	g, gNew, dir, sv, yv, hy, trial := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	f, err := fg(x, g)
	if err != nil {
		return nil, fmt.Errorf("train: minimize: %w", err)
	}
	out := &MinimizeResult{}
	first := true
	for out.Iterations = 0; ; out.Iterations++ {
		out.LogObjective, out.GradNorm = f, floats.Norm(g, math.Inf(1))
		if out.GradNorm <= tol {
			return out, nil
		}
		if out.Iterations >= maxIt {
			break
		}
		// d = −H g.
		for i := 0; i < p; i++ {
			dir[i] = -floats.Dot(h[i*p:(i+1)*p], g)
		}
		slope := floats.Dot(dir, g)
		if !(slope < 0) {
			// Not a descent direction (rounding in H): restart from −g.
			identity()
			first = true
			floats.ScaleTo(dir, -1, g)
			slope = -floats.Dot(g, g)
		}
		// When the predicted decrease is below the rounding of f (a few ε·|f|),
		// f cannot tell a good step from a bad one; the gradient, accurate to
		// a few ε relative, still can: the step is then accepted when it does
		// not increase ‖∇f‖.
		flat := -slope <= 1e-12*math.Max(1, math.Abs(f))
		gn := floats.Norm(g, 2)
		step, accepted := 1.0, false
		for try := 0; try < 60; try++ {
			floats.AddScaledTo(trial, x, step, dir)
			ft, err := fg(trial, gNew)
			// A step below the rounding of x leaves x, f and ∇f as they
			// are: accepting it would repeat this iteration to maxIt.
			moved := !floats.Equal(trial, x)
			if err == nil && moved && (ft <= f+1e-4*step*slope || flat && floats.Norm(gNew, 2) <= gn) {
				floats.SubTo(sv, trial, x)
				floats.SubTo(yv, gNew, g)
				copy(x, trial)
				f = ft
				accepted = true
				break
			}
			if err != nil && !errors.Is(err, ErrNonFinite) {
				return out, fmt.Errorf("train: minimize: %w", err)
			}
			step /= 2
		}
		if !accepted {
			// No decrease at rounding level: stationary to working precision
			// when the gradient is within 100× the threshold.
			if out.GradNorm <= 100*tol {
				return out, nil
			}
			return out, fmt.Errorf("train: minimize: line search failed at ‖∇‖∞ = %.3g > %.3g after %d iterations", out.GradNorm, tol, out.Iterations)
		}
		copy(g, gNew)
		sy := floats.Dot(sv, yv)
		if !(sy > 0) {
			continue
		}
		if first {
			// Scale the initial inverse Hessian (eq. 6.20).
			floats.Scale(sy/floats.Dot(yv, yv), h)
			first = false
		}
		// H ← (I − ρsyᵀ)H(I − ρysᵀ) + ρssᵀ, ρ = 1/sᵀy:
		// H ← H − ρ(s(Hy)ᵀ + (Hy)sᵀ) + (ρ² yᵀHy + ρ) ssᵀ.
		for i := 0; i < p; i++ {
			hy[i] = floats.Dot(h[i*p:(i+1)*p], yv)
		}
		rho := 1 / sy
		c := rho*rho*floats.Dot(yv, hy) + rho
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				h[i*p+j] += -rho*(sv[i]*hy[j]+hy[i]*sv[j]) + c*sv[i]*sv[j]
			}
		}
	}
	return out, fmt.Errorf("train: minimize stopped at ‖∇‖∞ = %.3g > %.3g after %d iterations", out.GradNorm, tol, out.Iterations)
}

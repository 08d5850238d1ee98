package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/internal/enginefault"
)

// ErrorEstimator is implemented by optimizers whose steps carry a local
// error estimate (adaptive integrators). Run sums it into Record.LocalError.
type ErrorEstimator interface {
	// LocalError returns the estimate ‖e‖₂ of the error in θ made by the
	// last accepted step (0 before the first).
	LocalError() float64
}

// ErrFlowStep reports that the integrator could not take a step that meets
// its tolerance (the gradient field is too rough where θ is, or a stage
// keeps overflowing).
var ErrFlowStep = errors.New("train: flow")

// DefaultFlowTol is the flow's default local error tolerance (relative and
// absolute, per coordinate of θ).
const DefaultFlowTol = 1e-9

// flowMaxTries bounds the trials of one step: each rejection shrinks h by at
// least 5, so 60 rejections are a factor 1e-42 and mean the error estimate
// cannot be met (a discontinuous gradient the integrator cannot resolve).
const flowMaxTries = 60

// Dormand–Prince 5(4) (Hairer, Nørsett & Wanner, Solving ODEs I, Table 5.2):
// nodes c, stage matrix a, 5th-order weights b (= the last row of a: the
// method is first-same-as-last), and e = b − b̂, b̂ the embedded 4th-order
// weights, so that h·Σ e_i k_i estimates the local error of the 4th-order
// solution (an overestimate, by O(h), of that of the propagated 5th-order
// one: "local extrapolation").
var (
	dpA = [7][6]float64{
		{},
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	dpB = [7]float64{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0}
	dpE = [7]float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
)

// Flow integrates the gradient flow dθ/dt = −∇F(θ), F = 𝓛 + R, with the
// adaptive Dormand–Prince 5(4) method and error control on θ.
//
// Along the flow ‖∇F‖ shrinks like F (∇F = F·Dir, ‖Dir‖ bounded polynomially
// in ‖θ‖), so in the time t the trajectory slows down without end: reaching
// F = e^{−50} takes t ≈ e^{50}. Flow therefore integrates the same path in
// the time s with ds = F dt,
//
//	dθ/ds = −∇F/F = −Dir(θ),
//
// whose speed stays polynomial in ‖θ‖. The true flow time is integrated
// alongside as ζ = log(t + c), c = 1/F(θ at the first step),
//
//	dζ/ds = e^{−log F(θ) − ζ},
//
// which is smooth (F·(t + c) grows only polylogarithmically along the flow,
// LL Thm A.10) where t itself grows exponentially in s. Step returns the log
// of the step's flow-time increment, log(e^{ζ₁} − e^{ζ₀}), so that Run's
// log T = log Σ Δt is the true flow time t.
//
// A step is accepted when the error estimate, per coordinate of θ relative
// to Tol·(1 + |θ_i|) and for ζ relative to Tol·(1 + |ζ|), is at most 1 in the
// root-mean-square norm. LocalError returns the Euclidean norm of the
// accepted step's estimate in θ; the monotonicity checks re-integrate each
// step independently and hold this estimate against what they measure
// (theorems.IntegratorErrorFactor), never take it as their error bar. A Flow keeps its step size and
// clock between steps: use a new one for each run.
type Flow struct {
	// Tol is the local error tolerance (relative and absolute).
	Tol float64
	// H is the next step in the time s (0: chosen automatically).
	H float64
	// Accepted and Rejected count the steps.
	Accepted, Rejected int
	// errorScale multiplies the local error estimate that the step-size
	// controller accepts steps by and that LocalError reports (0 means 1,
	// the correct integrator). It is a fault for the verification suite's
	// negative controls, planted by PlantFault (package faults): with
	// 1e-6 the estimate under-reports the error a million-fold, the
	// controller takes steps up to (10⁶)^{1/5} ≈ 16 times too long (its
	// growth limit of 5 per step permitting) and the path leaves the flow,
	// while LocalError claims the tolerance was met.
	errorScale float64
	// solution, when non-nil, replaces the solution weights (the last row
	// of dpA) with the error row dpE kept: a tableau fault (PlantFault).
	solution *[6]float64

	lastErr     float64
	nonFinite   error // the last stage of this step that met a non-finite value
	k           [7][]float64
	y0, y, e    []float64
	kz          [7]float64 // dζ/ds at the stages
	zeta, zetaY float64    // ζ at the step's start and end
	clock       bool       // ζ initialized
	initialized bool
}

// NewFlow returns the integrator with tolerance tol (0: DefaultFlowTol).
func NewFlow(tol float64) (*Flow, error) {
	if tol == 0 {
		tol = DefaultFlowTol
	}
	if !(tol > 0) || tol >= 1 {
		return nil, fmt.Errorf("train: flow tolerance must be in (0, 1), got %v", tol)
	}
	return &Flow{Tol: tol}, nil
}

// PlantFault plants the integrator fault h (nil: none). Its argument's
// type is internal to this module: only the fault registry (package faults)
// can build one, a caller of the engine can pass nil only.
func (f *Flow) PlantFault(h *enginefault.Flow) {
	f.errorScale, f.solution = 0, nil
	if h != nil {
		f.errorScale, f.solution = h.ErrorScale, h.B
	}
}

func init() {
	RegisterOptimizer("flow", func(o OptimizerOptions) (Optimizer, error) { return NewFlow(o.Tol) })
}

// Rule returns the flow with its tolerance.
func (f *Flow) Rule() StepRule { return StepRule{Kind: FlowStep, Tol: f.Tol} }

// LocalError returns ‖e‖₂ of the last accepted step.
func (f *Flow) LocalError() float64 { return f.lastErr }

func (f *Flow) alloc(p int) {
	for i := range f.k {
		f.k[i] = make([]float64, p)
	}
	f.y0 = make([]float64, p)
	f.y = make([]float64, p)
	f.e = make([]float64, p)
	f.initialized = true
}

// rms returns √(mean_i (v_i/(Tol(1 + |y_i|)))²).
func (f *Flow) rms(v, y []float64) float64 {
	var s float64
	for i, x := range v {
		r := x / (f.Tol * (1 + math.Abs(y[i])))
		s += r * r
	}
	return math.Sqrt(s / float64(len(v)))
}

// initialStep is Hairer's starting step (Solving ODEs I, II.4): the step
// whose Euler error estimate meets the tolerance, from f(y0) and one more
// evaluation. It returns 0 if that evaluation fails.
func (f *Flow) initialStep(obj *Objective) float64 {
	d0, d1 := f.rms(f.y0, f.y0), f.rms(f.k[0], f.y0)
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	floats.AddScaledTo(f.y, f.y0, h0, f.k[0])
	ev, err := obj.Evaluate(f.y, true)
	if err != nil {
		return h0
	}
	floats.ScaleTo(f.e, -1, ev.Dir) // f(y₁) − f(y₀), f = −Dir
	floats.Sub(f.e, f.k[0])
	d2 := f.rms(f.e, f.y0) / h0
	h1 := math.Max(1e-6, h0*1e-3)
	if m := math.Max(d1, d2); m > 1e-15 {
		h1 = math.Pow(0.01/m, 1.0/5)
	}
	return math.Min(100*h0, h1)
}

// Step advances θ by one accepted Dormand–Prince step in s and returns the
// log of its flow-time increment. At a stationary point (∇F = 0 or F = 0)
// it returns ErrStalled with θ unchanged.
func (f *Flow) Step(obj *Objective, theta []float64, ev *Eval) (float64, error) {
	p := len(theta)
	if !f.initialized || len(f.y0) != p {
		f.alloc(p)
	}
	if math.IsInf(ev.LogObjective, -1) || math.IsInf(ev.LogGradNorm, -1) {
		return 0, ErrStalled
	}
	copy(f.y0, theta)
	floats.ScaleTo(f.k[0], -1, ev.Dir) // ev is overwritten by the stages
	if !f.clock {
		f.zeta, f.clock = -ev.LogObjective, true
	}
	f.kz[0] = math.Exp(-ev.LogObjective - f.zeta)
	if f.H == 0 {
		f.H = f.initialStep(obj)
	}
	scale := 1.0
	if f.errorScale != 0 {
		scale = f.errorScale
		if !(scale > 0) || math.IsInf(scale, 1) {
			return 0, fmt.Errorf("train: flow error scale must be positive and finite, got %v", scale)
		}
	}
	rejectedHere := false
	f.nonFinite = nil
	for try := 0; try < flowMaxTries; try++ {
		h := f.H
		ok, err := f.stages(obj, h)
		if err != nil {
			copy(theta, f.y0)
			return 0, err
		}
		var errNorm float64
		if ok {
			var zErr float64
			for i := range f.e {
				var s float64
				for j := range dpE {
					s += dpE[j] * f.k[j][i]
				}
				f.e[i] = h * s
			}
			for j := range dpE {
				zErr += dpE[j] * f.kz[j]
			}
			zErr *= h
			// The norm takes the larger of |θ| at both ends, as Hairer's.
			var s float64
			for i, x := range f.e {
				r := x / (f.Tol * (1 + math.Max(math.Abs(f.y0[i]), math.Abs(f.y[i]))))
				s += r * r
			}
			zr := zErr / (f.Tol * (1 + math.Abs(f.zetaY)))
			errNorm = scale * math.Sqrt((s+zr*zr)/float64(p+1))
			ok = f.zetaY > f.zeta && !math.IsNaN(errNorm) && !math.IsInf(f.zetaY, 0)
		}
		if ok && errNorm <= 1 {
			copy(theta, f.y)
			f.lastErr = scale * floats.Norm(f.e, 2)
			f.Accepted++
			// Step-size control (Hairer: safety 0.9, growth in [0.2, 5],
			// no growth right after a rejection).
			fac := 5.0
			if errNorm > 0 {
				fac = math.Min(5, math.Max(0.2, 0.9*math.Pow(errNorm, -1.0/5)))
			}
			if rejectedHere {
				fac = math.Min(fac, 1)
			}
			f.H = h * fac
			// log Δt = log(e^{ζ₁} − e^{ζ₀}).
			logDt := f.zetaY + math.Log(-math.Expm1(f.zeta-f.zetaY))
			f.zeta = f.zetaY
			return logDt, nil
		}
		f.Rejected++
		rejectedHere = true
		if ok {
			f.H = h * math.Max(0.2, 0.9*math.Pow(errNorm, -1.0/5))
		} else {
			f.H = h / 10 // a stage overflowed or the clock failed
		}
	}
	copy(theta, f.y0)
	if f.nonFinite != nil {
		// The step shrank against a non-finite value (a NaN wall, or an
		// overflow no step size avoids): report it, not only the tolerance.
		return 0, fmt.Errorf("%w: no step met the tolerance %g after %d tries (step in s %.3g); a stage met %w",
			ErrFlowStep, f.Tol, flowMaxTries, f.H, f.nonFinite)
	}
	return 0, fmt.Errorf("%w: no step met the tolerance %g after %d tries (step in s %.3g)", ErrFlowStep, f.Tol, flowMaxTries, f.H)
}

// stages evaluates stages 2…7 at step h from y0 (stage 1 is k[0]), leaving
// the 5th-order solution in y and zetaY (the last stage's point). It reports
// false when a stage is non-finite (the step must shrink).
func (f *Flow) stages(obj *Objective, h float64) (bool, error) {
	for i := 1; i < 7; i++ {
		copy(f.y, f.y0)
		z := f.zeta
		row := dpA[i][:]
		if i == 6 && f.solution != nil {
			row = f.solution[:]
		}
		for j := 0; j < i; j++ {
			if a := row[j]; a != 0 {
				floats.AddScaled(f.y, h*a, f.k[j])
				z += h * a * f.kz[j]
			}
		}
		ev, err := obj.Evaluate(f.y, true)
		if err != nil {
			if errors.Is(err, ErrNonFinite) {
				f.nonFinite = err
				return false, nil
			}
			return false, err
		}
		floats.ScaleTo(f.k[i], -1, ev.Dir)
		f.kz[i] = math.Exp(-ev.LogObjective - z)
		f.zetaY = z // the last stage's point is the 5th-order solution
	}
	return true, nil
}

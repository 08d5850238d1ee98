package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
)

// refFlow is the integrator Flow documents, written independently of it
// from Hairer, Nørsett & Wanner (Solving ODEs I, §II.4–II.5): Dormand–Prince
// 5(4) (Table 5.2; the error weights e = b − b̂ as fractions, checked
// against the embedded 4th-order row) on dθ/ds = −Dir(θ), dζ/ds = e^{−log F(θ) − ζ}, ζ₀ = −log F(θ₀); the
// error norm √((Σ_i (e_i/(Tol(1 + max(|θ₀ᵢ|, |θ₁ᵢ|))))² + (e_ζ/(Tol(1 + |ζ₁|)))²)/(p + 1))
// accepted when ≤ 1; on acceptance h ← h·min(5, max(0.2, 0.9·err^{−1/5}))
// (5 at err = 0), without growth after a rejection within the same step; on
// rejection h ← h·max(0.2, 0.9·err^{−1/5}), or h/10 at a non-finite stage;
// the starting step is Hairer's (d₀, d₁ the scaled RMS norms of θ₀ and f₀,
// h₀ = 0.01·d₀/d₁ or 1e-6, d₂ = ‖f(θ₀ + h₀f₀) − f₀‖/h₀,
// h₁ = (0.01/max(d₁, d₂))^{1/5} or max(1e-6, 10⁻³h₀), h = min(100h₀, h₁)).
type refFlow struct {
	obj        *Objective
	tol, h     float64
	zeta       float64
	clock      bool
	rejections int
}

var (
	refA = [7][]float64{
		{},
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	refB    = []float64{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0}
	refBHat = []float64{5179.0 / 57600, 0, 7571.0 / 16695, 393.0 / 640, -92097.0 / 339200, 187.0 / 2100, 1.0 / 40}
	// refE = b − b̂ as exact fractions (Hairer's dopri5: e1 = 71/57600, …):
	// the weights of the error estimate, which is a sum with cancellation
	// (Σ e_j k_j ≪ |k|), so they must be the correctly rounded fractions,
	// not the rounded difference of rounded b and b̂.
	refE = []float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
)

// field returns −Dir and log F at θ, and false at a non-finite evaluation.
func (r *refFlow) field(theta []float64) ([]float64, float64, bool) {
	ev, err := r.obj.Evaluate(theta, true)
	if err != nil {
		return nil, 0, false
	}
	f := make([]float64, len(theta))
	floats.ScaleTo(f, -1, ev.Dir)
	return f, ev.LogObjective, true
}

func (r *refFlow) scaledRMS(v, y []float64) float64 {
	var s float64
	for i := range v {
		q := v[i] / (r.tol * (1 + math.Abs(y[i])))
		s += q * q
	}
	return math.Sqrt(s / float64(len(v)))
}

// step advances theta by one accepted step and returns log Δt; false after
// 60 rejections (θ unchanged).
func (r *refFlow) step(theta []float64) (float64, bool) {
	p := len(theta)
	f0, logF0, _ := r.field(theta)
	if !r.clock {
		r.zeta, r.clock = -logF0, true
	}
	if r.h == 0 {
		d0, d1 := r.scaledRMS(theta, theta), r.scaledRMS(f0, theta)
		h0 := 1e-6
		if d0 >= 1e-5 && d1 >= 1e-5 {
			h0 = 0.01 * d0 / d1
		}
		y1 := make([]float64, p)
		floats.AddScaledTo(y1, theta, h0, f0)
		f1, _, _ := r.field(y1)
		floats.Sub(f1, f0)
		d2 := r.scaledRMS(f1, theta) / h0
		h1 := math.Max(1e-6, h0*1e-3)
		if m := math.Max(d1, d2); m > 1e-15 {
			h1 = math.Pow(0.01/m, 0.2)
		}
		r.h = math.Min(100*h0, h1)
	}
	rejected := false
	for try := 0; try < 60; try++ {
		h := r.h
		k := make([][]float64, 7)
		kz := make([]float64, 7)
		k[0], kz[0] = f0, math.Exp(-logF0-r.zeta)
		y, z := make([]float64, p), r.zeta
		finite := true
		for i := 1; i < 7 && finite; i++ {
			copy(y, theta)
			z = r.zeta
			for j := 0; j < i; j++ {
				floats.AddScaled(y, h*refA[i][j], k[j])
				z += h * refA[i][j] * kz[j]
			}
			var logF float64
			k[i], logF, finite = r.field(y)
			kz[i] = math.Exp(-logF - z)
		}
		var errNorm float64
		if finite {
			var s float64
			for i := 0; i < p; i++ {
				var e float64
				for j := range refB {
					e += refE[j] * k[j][i]
				}
				q := h * e / (r.tol * (1 + math.Max(math.Abs(theta[i]), math.Abs(y[i]))))
				s += q * q
			}
			var ez float64
			for j := range refB {
				ez += refE[j] * kz[j]
			}
			q := h * ez / (r.tol * (1 + math.Abs(z)))
			errNorm = math.Sqrt((s + q*q) / float64(p+1))
			finite = z > r.zeta && !math.IsNaN(errNorm)
		}
		if finite && errNorm <= 1 {
			fac := 5.0
			if errNorm > 0 {
				fac = math.Min(5, math.Max(0.2, 0.9*math.Pow(errNorm, -0.2)))
			}
			if rejected {
				fac = math.Min(fac, 1)
			}
			r.h = h * fac
			logDt := z + math.Log(-math.Expm1(r.zeta-z)) // log(e^{ζ₁} − e^{ζ₀}) without cancellation
			r.zeta = z
			copy(theta, y)
			return logDt, true
		}
		r.rejections++
		rejected = true
		if finite {
			r.h = h * math.Max(0.2, 0.9*math.Pow(errNorm, -0.2))
		} else {
			r.h = h / 10
		}
	}
	return 0, false
}

// TestFlowController: Flow takes the steps of refFlow — the same step
// sizes (Flow.H after each step), θ, flow-time increments and rejection
// counts — to 1e-12 relative (the two differ in the order of a few
// floating-point operations), over 25 steps of a logistic problem: from the
// automatic starting step, and from a first step 10⁴ times too large, whose
// rejections exercise the shrinking and the no-growth rule; and with a
// model that is NaN beyond θ₀ = 1.5 (non-finite stages shrink the step
// tenfold) up to the wall, where both give up after 60 tries; from θ = 0
// (h₀ = 1e-6 and the cap 100h₀ decide); and next to a stationary point
// (Hairer's fallback when f is 0 to rounding).
func TestFlowController(t *testing.T) {
	for j := range refE {
		require.InDelta(t, refB[j]-refBHat[j], refE[j], 5e-17, "e_%d", j+1) // a rounding of b and of b̂
	}
	d := &dataset.Dataset{N: 3, D: 2, X: []float64{1, 0.3, -0.2, 1, 0.8, 0.7}, Y: []float64{1, -1, 1}}
	// Two samples at the same point with opposite labels: ∇𝓛 = 0 at θ = 0
	// and ∇𝓛 ≈ θ₀/2 near it.
	pair := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 1, 0}, Y: []float64{1, -1}}
	// The same data ×10: the field's Jacobian (≈ the Hessian of log F, of
	// order ‖x‖²) exceeds 1, so d₂ > d₁ decides the starting step.
	steep := &dataset.Dataset{N: 3, D: 2, Y: d.Y}
	for _, v := range d.X {
		steep.X = append(steep.X, 10*v)
	}
	for _, tc := range []struct {
		name   string
		data   *dataset.Dataset
		theta0 []float64
		h0     float64
		tol    float64
		poison bool
		steps  int
	}{
		{"automatic start", d, []float64{0.2, -0.1}, 0, 1e-7, false, 25},
		{"start at 0", d, []float64{0, 0}, 0, 1e-7, false, 25},
		{"steep field", steep, []float64{0.2, -0.1}, 0, 1e-7, false, 25},
		{"too large a start", d, []float64{0.2, -0.1}, 50, 1e-7, false, 25},
		{"loose tolerance", d, []float64{0.2, -0.1}, 0, 1e-3, false, 25},
		// d₁ ≤ 1e-15: Hairer's fallback h₁ = max(1e-6, 10⁻³h₀).
		{"near a stationary point", pair, []float64{2e-15, 0}, 0, 0.9, false, 10},
		{"NaN wall", d, []float64{0.2, -0.1}, 0, 1e-6, true, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newObj := func() *Objective {
				m := mustLinear(t, 2)
				if tc.poison {
					m = poisoned{Model: m, limit: 1.5}
				}
				obj, err := NewObjective(m, losses.NewBinary(losses.Logistic{}), tc.data)
				require.NoError(t, err)
				return obj
			}
			obj := newObj()
			fl, err := NewFlow(tc.tol)
			require.NoError(t, err)
			fl.H = tc.h0
			ref := &refFlow{obj: newObj(), tol: tc.tol, h: tc.h0}
			theta, want := append([]float64(nil), tc.theta0...), append([]float64(nil), tc.theta0...)
			gaveUp := false
			for s := 0; s < tc.steps; s++ {
				ev, err := obj.Evaluate(theta, true)
				require.NoError(t, err)
				logDt, err := fl.Step(obj, theta, ev)
				wantDt, ok := ref.step(want)
				require.Equal(t, ref.rejections, fl.Rejected, "step %d: rejections", s)
				if !ok {
					// At the wall: no step size gets a finite stage.
					require.ErrorIs(t, err, ErrFlowStep, "step %d", s)
					require.True(t, tc.poison)
					gaveUp = true
					break
				}
				require.NoError(t, err, "step %d", s)
				require.InDelta(t, ref.h, fl.H, 1e-12*ref.h, "step %d: next h", s)
				require.InDelta(t, wantDt, logDt, 1e-12*(1+math.Abs(wantDt)), "step %d: log Δt", s)
				for i := range want {
					require.InDelta(t, want[i], theta[i], 1e-12*(1+math.Abs(want[i])), "step %d: θ[%d]", s, i)
				}
				require.Equal(t, s+1, fl.Accepted)
			}
			t.Logf("%s: θ = %v, %d rejections, next h %.3g", tc.name, theta, fl.Rejected, fl.H)
			if tc.h0 > 0 || tc.poison {
				assert.Greater(t, fl.Rejected, 0, "the case must exercise rejections")
			}
			assert.Equal(t, tc.poison, gaveUp, "only the NaN wall ends the run")
		})
	}
}

// TestFlowStallsAtStationaryPoint: at a point where ∇F = 0 exactly but
// F > 0 (two samples at one point with opposite labels, θ = 0), the flow
// does not move: Step returns ErrStalled and Run ends normally, stalled.
func TestFlowStallsAtStationaryPoint(t *testing.T) {
	pair := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 1, 0}, Y: []float64{1, -1}}
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), pair)
	require.NoError(t, err)
	fl, err := NewFlow(0)
	require.NoError(t, err)
	tr, err := Run(obj, fl, []float64{0, 0}, Config{Steps: 10})
	require.NoError(t, err)
	assert.True(t, tr.Stalled)
	assert.Equal(t, 0, tr.Steps)
	assert.Equal(t, 0, fl.Accepted)
}

// TestFlowStepNoAlloc: after its first step the flow allocates nothing per
// step (the engine's rule for hot loops).
func TestFlowStepNoAlloc(t *testing.T) {
	obj, err := NewObjective(mustLinear(t, 2), losses.NewBinary(losses.Logistic{}), linearData())
	require.NoError(t, err)
	fl, err := NewFlow(1e-6)
	require.NoError(t, err)
	theta := []float64{0.2, -0.1}
	step := func() {
		ev, err := obj.Evaluate(theta, true)
		require.NoError(t, err)
		_, err = fl.Step(obj, theta, ev)
		require.NoError(t, err)
	}
	step()
	assert.Zero(t, testing.AllocsPerRun(20, step))
}

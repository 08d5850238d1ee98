package homogeneity

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// FD settings of ENG-grad.
const (
	// GradFDBound is the acceptance bound on the relative error between the
	// engine's gradient and finite differences (the criterion).
	// The differences use the fourth-order central stencil gradFD,
	// (f(x−2h) − 8f(x−h) + 8f(x+h) − f(x+2h))/12h, with truncation error
	// h⁴|f⁽⁵⁾|/30 and rounding error about 1.5·ε|f|/h (the sum of the
	// weights' magnitudes, 18/12), about 1e-10 of |∇f| at h = 6e-6 on
	// well-scaled points. The second-order stencil's h²|f‴|/6 was not
	// enough: at a point of a degree-7 CNN where ‖∇Φ‖ = 4e-8 it was 6e-6
	// of ‖∇Φ‖ (soak seed 1795335282021364; the error fell 4× per halving
	// of h, the engine's value being right).
	GradFDBound = 1e-6
	// GradFDStep is h (gonum's default central step, ≈ ε^{1/3}).
	GradFDStep = 6e-6
	// gradFDMaxCoords bounds the coordinates differenced per gradient; larger
	// models are checked on a random subset plus random directions.
	gradFDMaxCoords  = 256
	gradFDDirections = 4
)

// objFDStepShare is the largest step of ObjectiveGradientFD as a share of
// log F's distance to its singularity, 1/‖∇ log F‖: the stencil's relative
// truncation error is then of the order of 1e-8, two orders below
// GradFDBound, and its rounding floor (gradFDRounding·ε|log F|/(h‖∇ log F‖)
// = 3e-14·|log F|) stays far below it.
const objFDStepShare = 1e-2

// gradFD is the fourth-order central stencil of GradFDBound.
var gradFD = fd.Formula{
	Stencil: []fd.Point{
		{Loc: -2, Coeff: 1.0 / 12}, {Loc: -1, Coeff: -8.0 / 12},
		{Loc: 1, Coeff: 8.0 / 12}, {Loc: 2, Coeff: -1.0 / 12},
	},
	Derivative: 1,
	Step:       GradFDStep,
}

// gradFDRounding is the rounding error of gradFD relative to ε|f|/h.
const gradFDRounding = 1.5

// scalarFn is a function of θ together with the kink pattern at θ.
type scalarFn func(theta []float64, pattern []byte) (float64, []byte)

// fdCompare compares grad with central differences of f at theta on a subset
// of coordinates and along random directions. Differences whose stencil
// crosses a kink (the pattern at θ ± h differs from the one at θ) are
// skipped; it returns the relative error ‖fd − grad‖/‖grad‖ over the
// compared coordinates (directions: |D_v − ⟨grad,v⟩|/(‖grad‖‖v‖)), how many
// stencils were used, and how many were skipped. h is the stencil's step.
func fdCompare(f scalarFn, theta, grad []float64, h float64, rng *rand.Rand) (worst float64, used, skipped int, detail string) {
	p := len(theta)
	_, base := f(theta, nil)
	base = append([]byte(nil), base...)
	var buf []byte
	smooth := func(x []float64) bool {
		var pat []byte
		_, pat = f(x, buf[:0])
		buf = pat
		return bytes.Equal(pat, base)
	}
	gnorm := floats.Norm(grad, 2)
	if gnorm == 0 {
		return 0, 0, 0, ""
	}
	// Central differences cannot resolve a gradient below their rounding
	// floor ε|f|/h: if that floor is within a tenth of the bound, the
	// comparison cannot decide (undecided, never a pass).
	f0, _ := f(theta, buf[:0])
	if floor := gradFDRounding * 0x1p-52 * math.Abs(f0) / h / gnorm; floor > GradFDBound/10 {
		return math.NaN(), 0, 0, fmt.Sprintf("finite differences cannot resolve ‖∇‖ = %.3g at |f| = %.3g (rounding floor %.2g relative)", gnorm, math.Abs(f0), floor)
	}
	// Coordinates.
	idx := rng.Perm(p)
	if p > gradFDMaxCoords {
		idx = idx[:gradFDMaxCoords]
	}
	x := append([]float64(nil), theta...)
	var errSq float64
	for _, i := range idx {
		ok := true
		for _, k := range []float64{-2, -1, 1, 2} {
			x[i] = theta[i] + k*h
			ok = ok && smooth(x)
		}
		x[i] = theta[i]
		if !ok {
			skipped++
			continue
		}
		d := fd.Derivative(func(t float64) float64 {
			x[i] = t
			v, _ := f(x, buf[:0])
			return v
		}, theta[i], &fd.Settings{Formula: gradFD, Step: h})
		x[i] = theta[i]
		e := d - grad[i]
		errSq += e * e
		used++
		if math.Abs(e)/gnorm > worst || math.IsNaN(e) {
			worst = math.Abs(e) / gnorm
			detail = fmt.Sprintf("coordinate %d: finite difference %.12g, engine %.12g", i, d, grad[i])
		}
	}
	if rel := math.Sqrt(errSq) / gnorm; rel > worst || math.IsNaN(rel) {
		worst = rel
		detail = fmt.Sprintf("‖fd − ∇‖/‖∇‖ = %.3g over %d coordinates; %s", rel, used, detail)
	}
	// Random directions: one stencil checks every coordinate at once.
	v := make([]float64, p)
	for r := 0; r < gradFDDirections; r++ {
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		floats.Scale(1/floats.Norm(v, 2), v)
		ok := true
		for _, k := range []float64{-2, -1, 1, 2} {
			floats.AddScaledTo(x, theta, k*h, v)
			ok = ok && smooth(x)
		}
		if !ok {
			skipped++
			continue
		}
		d := fd.Derivative(func(t float64) float64 {
			floats.AddScaledTo(x, theta, t, v)
			val, _ := f(x, buf[:0])
			return val
		}, 0, &fd.Settings{Formula: gradFD, Step: h})
		want := floats.Dot(grad, v)
		e := math.Abs(d-want) / gnorm
		used++
		if e > worst || math.IsNaN(e) {
			worst = e
			detail = fmt.Sprintf("random direction %d: finite difference %.12g, engine ⟨∇,v⟩ %.12g", r, d, want)
		}
	}
	copy(x, theta)
	return worst, used, skipped, detail
}

// GradientFD checks ENG-grad on a model: ∇_θΦ_k(θ; x_n) from backpropagation
// equals central finite differences for every input and output, to
// GradFDBound relative. Stencils that cross a kink of a ReLU-type network are
// skipped (the point is not generic for them); if more than half are, the
// case is inconclusive. rng picks coordinates and directions.
func GradientFD(c PointCase, rng *rand.Rand) theorems.Verdict {
	if err := c.validate(); err != nil {
		return theorems.Invalid(err)
	}
	g := models.NewGrader(c.Model)
	grad := make([]float64, c.Model.NumParams())
	worst, used, skipped, detail := 0.0, 0, 0, ""
	live := false
	for n := 0; n < c.N; n++ {
		x := c.sample(n)
		for k := 0; k < c.Model.Out(); k++ {
			g.Grad(c.Theta, x, k, grad)
			if floats.Norm(grad, 2) > 0 {
				live = true
			}
			f := func(th []float64, pat []byte) (float64, []byte) {
				v := g.Value(th, x, k)
				return v, g.Pattern(th, x, pat)
			}
			w, u, s, d := fdCompare(f, c.Theta, grad, GradFDStep, rng)
			if math.IsNaN(w) && u == 0 {
				return theorems.Undecided("input %d output %d: %s", n, k, d)
			}
			used += u
			skipped += s
			if w > worst || math.IsNaN(w) {
				worst, detail = w, fmt.Sprintf("input %d output %d: %s", n, k, d)
			}
		}
	}
	if !live {
		return theorems.Undecided("degenerate point: ∇Φ = 0 at every input (dead units)")
	}
	if skipped > used {
		return theorems.Undecided("not a generic point: %d of %d finite-difference stencils cross a kink", skipped, used+skipped)
	}
	return theorems.Compare(worst, GradFDBound, detail)
}

// ObjectiveGradientFD checks ENG-grad on a training objective: the gradient
// direction Dir equals central finite differences of log(𝓛 + R) (∇ log F =
// ∇F/F = Dir), to GradFDBound relative. The step is GradFDStep, or
// objFDStepShare/‖∇ log F‖ when that is smaller: log F is singular where F
// vanishes, about 1/‖∇ log F‖ away (F/‖∇F‖, to first order), which bounds
// the radius of convergence of its Taylor series, and the stencil's
// truncation error relative to the derivative is of the order of
// (h/radius)⁴. Soak seed 1795342569138253: a squared loss on one sample
// near its fit (‖∇ log F‖ ≈ 3·10⁴, so h/radius = 0.16 at h = 6e-6) gave
// differences 3e-4 off, falling 16× per halving of h.
func ObjectiveGradientFD(obj *train.Objective, theta []float64, rng *rand.Rand) theorems.Verdict {
	ev, err := obj.Evaluate(theta, true)
	if err != nil {
		return theorems.Invalid(err)
	}
	grad := append([]float64(nil), ev.Dir...)
	gnorm := floats.Norm(grad, 2)
	if gnorm == 0 {
		return theorems.Undecided("degenerate point: ∇𝓛 = 0")
	}
	h := math.Min(GradFDStep, objFDStepShare/gnorm)
	f := func(th []float64, pat []byte) (float64, []byte) {
		e, err := obj.Evaluate(th, false)
		if err != nil {
			return math.NaN(), pat
		}
		return e.LogObjective, obj.Pattern(pat)
	}
	w, used, skipped, d := fdCompare(f, theta, grad, h, rng)
	if math.IsNaN(w) && used == 0 {
		return theorems.Undecided("%s", d)
	}
	if skipped > used {
		return theorems.Undecided("not a generic point: %d of %d finite-difference stencils cross a kink", skipped, used+skipped)
	}
	return theorems.Compare(w, GradFDBound, "objective "+d)
}

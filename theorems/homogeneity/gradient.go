package homogeneity

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// FD settings of ENG-grad.
const (
	// GradFDBound is the acceptance bound on the relative error between the
	// engine's gradient and finite differences (the criterion).
	//
	// The check differences along random unit directions v (fdCompare):
	// φ(t) = f(θ + tv), and the fourth-order central stencil (gradFDCoeffs),
	// D_v = (φ(−2h) − 8φ(−h) + 8φ(h) − φ(2h))/12h, is compared with
	// ⟨∇f, v⟩. Its errors, relative to ‖∇f‖:
	//
	//   - truncation h⁴|φ⁽⁵⁾|/30, and φ⁽⁵⁾ = D⁵f(θ)[v,v,v,v,v] is at most
	//     ‖D⁵f‖ for a unit v: the bound of a coordinate step (e_i is a unit
	//     direction too), with no factor of the dimension. On a ReLU-type
	//     network away from its kinks φ is a polynomial of degree L, so the
	//     stencil is exact there for L ≤ 4.
	//   - rounding of the four values, about 1.5·ε|f|/(h‖∇f‖) (the sum of
	//     the weights' magnitudes, 18/12): the coordinate step's.
	//   - rounding of the points θ + khv, which a direction moves in every
	//     coordinate: fl(θ + khv) = θ + khv + δ with |δ_i| ≤ ε|θ_i + khv_i|/2,
	//     so φ moves by ⟨∇f, δ⟩ ≤ ε‖∇f‖(‖θ‖ + 2h)/2, and D_v by at most
	//     1.5·ε(‖θ‖ + 2h)/(2h) of ‖∇f‖ (a coordinate step: |θ_i| for ‖θ‖);
	//     4e-9 at ‖θ‖ = 100, h = 6e-6.
	//
	// About 1e-10 of |∇f| at h = 6e-6 on well-scaled points, with the
	// rounding floor 1.5ε(|f|/‖∇f‖ + ‖θ‖/2)/h tested before every
	// comparison. The second-order stencil (two values,
	// jax.test_util.check_grads's) has truncation h²|φ‴|/6, and no step
	// makes both it and ε|f|/h small where the gradient is small next to
	// φ‴: at a point of a degree-7 CNN where ‖∇Φ‖ = 4e-8 it was 6e-6 of
	// ‖∇Φ‖ at h = 6e-6 (soak seed 1795335282021364; the error fell 4× per
	// halving of h, the engine's value being right), and at its best step,
	// (3ε|f|/|φ‴|)^{1/3}, it is still about ε^{2/3}|f|^{2/3}|φ‴|^{1/3},
	// 4e-11 at |f|, |φ‴| ≈ 1: 1e-3 of that ‖∇Φ‖. So a direction costs four
	// values, the central differences at h and 2h combined by Richardson
	// extrapolation.
	GradFDBound = 1e-6
	// GradFDStep is h (gonum's default central step, ≈ ε^{1/3}).
	GradFDStep = 6e-6
	// GradFDMinShift is the smallest relative error ‖∇' − ∇‖/‖∇‖ of a
	// wrong gradient ∇' that the number of directions is sized for: the
	// registry's loss faults are drawn where they shift ∇ log 𝓛 by at
	// least this much (properties/cases.faultGradShift is this constant), and its
	// backward-first-block shifts ∇Φ by the first block's share of ‖∇Φ‖,
	// ≥ 0.025 on 300 draws of ENG-grad's cases.
	GradFDMinShift = 1e-3
	// GradFDEscape is the largest probability, per gradient compared, that
	// a gradient wrong by GradFDMinShift passes (gradFDDirections).
	GradFDEscape = 1e-6
	// gradFDMaxDirections caps the directions per gradient: past p ≈ 2.5e5
	// parameters the escape bound is no longer met (the suite's models
	// have p ≤ 12000).
	gradFDMaxDirections = 64
)

// gradFDDirections returns K, the number of random directions compared per
// gradient of p parameters: the least K with q^K ≤ GradFDEscape, q the
// chance that one direction misses a gradient error e of relative size
// ρ = ‖e‖/‖∇‖ ≥ GradFDMinShift.
//
// The engine returns ∇' = ∇ + e; a direction passes when |D_v − ⟨∇', v⟩| ≤
// τ‖∇'‖ (τ = GradFDBound), and D_v = ⟨∇, v⟩ within τ‖∇‖ (else a correct
// engine would fail too), so it passes only if |⟨e, v⟩| ≤ τ(‖∇'‖ + ‖∇‖) ≤
// τ(2 + ρ)‖∇‖, that is |u| ≤ t = τ(2 + ρ)/ρ for u = ⟨e/‖e‖, v⟩. A wrong
// gradient passes for v ⊥ e only, probability 0 in exact arithmetic; with
// v uniform on the unit sphere of ℝᵖ (a normalized Gaussian), u has the
// density Γ(p/2)/(√π Γ((p−1)/2))·(1 − u²)^{(p−3)/2}, largest at 0 for
// p ≥ 3 and ≤ √((p−1)/2π) there (Wendel's inequality), so
// P(|u| ≤ t) ≤ t·√(2p/π) = q (also for p ≤ 2 at t ≪ 1). Directions are
// independent: a wrong gradient passes all K with probability ≤ q^K, and a
// case, which compares one gradient per input and output, with at most
// that. At ρ = 1e-3: q = 2.0e-3·√(2p/π), K = 3 at p = 10, 4 at p = 300,
// 8 at p = 12000 — against min(p, 256) coordinates at eight evaluations
// each before.
func gradFDDirections(p int) int {
	t := GradFDBound * (2 + GradFDMinShift) / GradFDMinShift
	q := t * math.Sqrt(2*float64(p)/math.Pi)
	if q >= 1 {
		return gradFDMaxDirections
	}
	return min(gradFDMaxDirections, max(1, int(math.Ceil(math.Log(GradFDEscape)/math.Log(q)))))
}

// objFDStepShare is the largest step of ObjectiveGradientFD as a share of
// log F's distance to its singularity, 1/‖∇ log F‖: the stencil's relative
// truncation error is then of the order of 1e-8, two orders below
// GradFDBound, and its rounding floor (gradFDRounding·ε|log F|/(h‖∇ log F‖)
// = 3e-14·|log F|) stays far below it.
const objFDStepShare = 1e-2

// gradFDLocs and gradFDCoeffs are the fourth-order central stencil of
// GradFDBound, in units of h.
var (
	gradFDLocs   = [4]float64{-2, -1, 1, 2}
	gradFDCoeffs = [4]float64{1.0 / 12, -8.0 / 12, 8.0 / 12, -1.0 / 12}
)

// gradFDRounding is the rounding error of the stencil relative to ε|f|/h.
const gradFDRounding = 1.5

// scalarFn is a function of θ together with the kink pattern at θ.
type scalarFn func(theta []float64, pattern []byte) (float64, []byte)

// fdCompare compares grad with central differences of f at theta along
// gradFDDirections(len(theta)) random unit directions (GradFDBound says
// why these errors are bounded, gradFDDirections how likely a wrong grad
// escapes). Differences whose stencil crosses a kink (the pattern at
// θ ± khv differs from the one at θ) are skipped and redrawn, up to as
// many again (where kinks leave fewer than K, the escape bound is
// q^used). It returns the largest |D_v − ⟨grad,v⟩|/‖grad‖, how many
// stencils were used, and how many were skipped. h is the stencil's step.
func fdCompare(f scalarFn, theta, grad []float64, h float64, rng *rand.Rand) (worst float64, used, skipped int, detail string) {
	p := len(theta)
	gnorm := floats.Norm(grad, 2)
	if gnorm == 0 {
		return 0, 0, 0, ""
	}
	f0, base := f(theta, nil)
	base = append([]byte(nil), base...)
	// Central differences cannot resolve a gradient below their rounding
	// floor (GradFDBound): if that floor is within a tenth of the bound,
	// the comparison cannot decide (undecided, never a pass).
	floor := gradFDRounding * 0x1p-52 * (math.Abs(f0)/gnorm + floats.Norm(theta, 2)/2) / h
	if floor > GradFDBound/10 {
		return math.NaN(), 0, 0, fmt.Sprintf("finite differences cannot resolve ‖∇‖ = %.3g at |f| = %.3g, ‖θ‖ = %.3g (rounding floor %.2g relative)", gnorm, math.Abs(f0), floats.Norm(theta, 2), floor)
	}
	k := gradFDDirections(p)
	x := make([]float64, p)
	v := make([]float64, p)
	var buf []byte
	for r := 0; used < k && r < 2*k; r++ {
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		floats.Scale(1/floats.Norm(v, 2), v)
		var d float64
		smooth := true
		for j, l := range gradFDLocs {
			floats.AddScaledTo(x, theta, l*h, v)
			val, pat := f(x, buf[:0])
			buf = pat
			smooth = smooth && bytes.Equal(pat, base)
			d += gradFDCoeffs[j] * val
		}
		if !smooth {
			skipped++
			continue
		}
		d /= h
		want := floats.Dot(grad, v)
		e := math.Abs(d-want) / gnorm
		used++
		if e > worst || math.IsNaN(e) {
			worst = e
			detail = fmt.Sprintf("random direction %d of %d: finite difference %.12g, engine ⟨∇,v⟩ %.12g", r, k, d, want)
		}
	}
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

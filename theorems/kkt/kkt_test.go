package kkt_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// linearProblem is a separable 2-D problem whose SVM is known in closed
// form (ExampleHardMarginSVM): w = (1, 1), support {0, 1}.
func linearProblem(t *testing.T, loss string) *train.Objective {
	d := &dataset.Dataset{N: 4, D: 2, X: []float64{1, 0, 0, 1, -2, 0, 1, -3}, Y: []float64{1, 1, -1, -1}}
	m, err := models.NewLinear(2, 1)
	require.NoError(t, err)
	l, err := losses.ByName(loss)
	require.NoError(t, err)
	obj, err := train.NewObjective(m, l, d)
	require.NoError(t, err)
	return obj
}

// TestMeasureKKTAtSVM: at the SVM direction the linear model's θ̃ is the
// exact KKT point of (P): ε = δ = 0 to rounding, λ = α = (1, 1, 0, 0), and
// the NTK-SVM is the SVM itself (angle 0).
func TestMeasureKKTAtSVM(t *testing.T) {
	obj := linearProblem(t, "exp")
	k, err := kkt.MeasureKKT(obj, []float64{7, 7}, 0)
	require.NoError(t, err)
	assert.InDelta(t, 0, k.Epsilon, 1e-14)
	assert.InDelta(t, 0, k.Delta, 1e-14)
	assert.InDelta(t, 0, k.EpsilonNNLS, 1e-14)
	assert.InDelta(t, 0, k.SVMAngle, 1e-14)
	assert.InDeltaSlice(t, []float64{1, 1, 0, 0}, k.Lambda, 1e-13)
	assert.InDelta(t, 7, k.QMin, 1e-14)
	assert.InDelta(t, math.Sqrt2, k.ThetaTildeNorm, 1e-14)
	// Off the SVM direction both residuals are positive.
	k, err = kkt.MeasureKKT(obj, []float64{7, 5}, 0)
	require.NoError(t, err)
	assert.Greater(t, k.Epsilon, 0.1)
	assert.Greater(t, k.SVMAngle, 0.1)
	// Not separated: θ̃ does not exist.
	_, err = kkt.MeasureKKT(obj, []float64{-1, 1}, 0)
	assert.ErrorContains(t, err, "q_min")
}

// TestLemmaC8Identity: the certificate's identity at a point, for both
// losses, and its failure for a wrong engine is covered by the property
// tests; here the bound's equality case β = 1 is checked: at θ ∝ (1, 1)
// with only the two support vectors, −∇𝓛 ∝ θ.
func TestLemmaC8Identity(t *testing.T) {
	d := &dataset.Dataset{N: 2, D: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, 1}}
	m, _ := models.NewLinear(2, 1)
	l, _ := losses.ByName("exp")
	obj, err := train.NewObjective(m, l, d)
	require.NoError(t, err)
	c, err := kkt.LemmaC8Certificate(obj, []float64{3, 3}, 0)
	require.NoError(t, err)
	assert.InDelta(t, 1, c.Beta, 1e-15)
	assert.InDelta(t, 0, c.LHS, 1e-14)
	assert.Equal(t, theorems.Holds, kkt.LemmaC8(obj, []float64{3, 3}, 0).Status)
	// Before separation (𝓛 ≥ ℓ(b_f) = 1) the lemma does not apply.
	assert.Equal(t, theorems.AssumptionFailed, kkt.LemmaC8(obj, []float64{0.1, 0.1}, 0).Status)
}

// TestMFCQGordan: the Gordan test of MFCQ fails when 0 is a convex
// combination of the active gradients — here g and −g — and holds for
// gradients in an open half-space. (The property tests' controls reach the
// witness part of LL-C7; no homogeneous network reaches this branch, which
// is the lemma.)
func TestMFCQGordan(t *testing.T) {
	g := mat.NewDense(3, 2, []float64{1, -1, 2, -2, 0.5, -0.5})
	v := kkt.MFCQGordan(g, []int{0, 1})
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "convex combination")
	g = mat.NewDense(3, 2, []float64{1, 0, 2, 1, 0.5, 3})
	assert.Equal(t, theorems.Holds, kkt.MFCQGordan(g, []int{0, 1}).Status)
}

func TestWindows(t *testing.T) {
	θ := []float64{1}
	tr := &train.Trajectory{Records: []train.Record{
		{Step: 0, Theta: θ}, {Step: 1, Theta: θ, Separated: true}, {Step: 2, Theta: θ, Separated: true},
		{Step: 5, Theta: θ, Separated: true}, {Step: 6}, {Step: 7, Theta: θ, Separated: true}, {Step: 8, Theta: θ, Separated: true},
	}}
	steps := func(ws [][]train.Record) [][]int {
		var out [][]int
		for _, w := range ws {
			var s []int
			for _, r := range w {
				s = append(s, r.Step)
			}
			out = append(out, s)
		}
		return out
	}
	assert.Equal(t, [][]int{{0, 1, 2}, {5}, {7, 8}}, steps(kkt.Windows(tr, false)))
	assert.Equal(t, [][]int{{1, 2}, {5}, {7, 8}}, steps(kkt.Windows(tr, true)))
}

// hatTrajectory builds records along θ = ρ(r cos φ, r sin φ, √(1−r²)) for
// the given (r, φ) pairs, with γ̃ from gt.
func hatTrajectory(rs, phis, gts []float64) *train.Trajectory {
	tr := &train.Trajectory{}
	for i := range rs {
		r := rs[i]
		tr.Records = append(tr.Records, train.Record{Step: i, Theta: []float64{r * math.Cos(phis[i]), r * math.Sin(phis[i]), math.Sqrt(1 - r*r)}, SmoothedMargin: gts[i]})
	}
	return tr
}

// TestMexicanHatCircling exercises the trajectory check of LL-I1 on
// trajectories built by hand: along the invariant curve (circling), a
// radial trajectory (the untwisted hat: r → 1, φ fixed), a decreasing γ̃,
// and a start off the curve.
func TestMexicanHatCircling(t *testing.T) {
	var rs, curve, fixed, gts, bad []float64
	for i := 0; i <= 400; i++ {
		r := 0.4 + 0.55*float64(i)/400
		rs = append(rs, r)
		curve = append(curve, 1/(1-r*r))
		fixed = append(fixed, 1/(1-0.4*0.4))
		gts = append(gts, 0.5+float64(i)/1000)
		bad = append(bad, 0.5+float64(i%7)/1000)
	}
	v := kkt.MexicanHatCircling(hatTrajectory(rs, curve, gts))
	assert.Equal(t, theorems.Holds, v.Status, v.String())
	v = kkt.MexicanHatCircling(hatTrajectory(rs, fixed, gts))
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "does not circle")
	v = kkt.MexicanHatCircling(hatTrajectory(rs, curve, bad))
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "γ̃ decreased")
	off := append([]float64(nil), curve...)
	off[0] += 0.5
	v = kkt.MexicanHatCircling(hatTrajectory(rs, off, gts))
	assert.Equal(t, theorems.AssumptionFailed, v.Status, v.String())
	// Too short a run: a tenth of a turn.
	v = kkt.MexicanHatCircling(hatTrajectory(rs[:20], curve[:20], gts[:20]))
	assert.Equal(t, theorems.Inconclusive, v.Status, v.String())
}

// TestSVMDirectionResidual: θ(T) = ŵ log T + r₀ with r₀ away from the
// residual's computed limit does not approach it: violated, whatever the
// steps. Here ŵ = (1, 1) = z₁ + z₂ (α = 1 on the support vectors e₁, e₂,
// weights 1), so the limit solves e^{−⟨r, e_i⟩} = 1: r = 0. A model that is
// not linear is outside the claim.
func TestSVMDirectionResidual(t *testing.T) {
	d := &dataset.Dataset{N: 4, D: 2, X: []float64{1, 0, 0, 1, -2, 0, 1, -3}, Y: []float64{1, 1, -1, -1}}
	sol, err := numerics.HardMarginSVM(mat.NewDense(4, 2, d.X), d.Y, nil)
	require.NoError(t, err)
	tr := &train.Trajectory{Degree: 1}
	for k := 1; k <= 40; k++ {
		logT := 0.25 * float64(k)
		tr.Records = append(tr.Records, train.Record{Step: k, LogT: logT, Theta: []float64{sol.W[0]*logT + 0.3, sol.W[1]*logT - 0.2}})
	}
	v := grwclass.SVMDirection(d, tr)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "computed limit")
	tr.Degree = 2
	assert.Equal(t, theorems.AssumptionFailed, grwclass.SVMDirection(d, tr).Status)
}

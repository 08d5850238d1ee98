package classification

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// ShiftCase is a synthetic covariate shift for XY Thm 1: source and target
// are Gaussians N(μ_s, I), N(μ_t, I) restricted to the box
// B = ([−4, −1] ∪ [1, 4]) × [−1.5, 1.5]^{D−1} (a margin gap of 1 around the
// labelling hyperplane x₁ = 0, and C = sup_B ‖x‖ finite), so the density
// ratio and the χ² divergence are exact (numerics.BoxSet). Labels are
// y = sign(x₁), flipped with probability Noise independently of x: p(y|x)
// is the same under both (covariate shift). With Concept set the target's
// labels are flipped instead (concept shift: XY-T1's control).
type ShiftCase struct {
	D       int     // 2…3
	Shift   float64 // ‖μ_t − μ_s‖ ∈ [0.2, 0.8]
	Noise   float64 // label noise ∈ [0, 0.05]
	Concept bool
	Seed    uint64
}

// Trials and sizes of a case: n training samples per trial, a target test
// sample of shiftTestN, shiftTrials repetitions at δ = shiftDelta. With
// C ≈ 4.3 and D_χ² ≲ 1 the proof's (II) is ≈ 42√(D+1)/(γ√n) ≈ 0.6 at
// γ ≈ 1, n = 10⁴: the bound is informative (below 1) so that the control's
// concept shift (target error ≈ 1) breaks it.
const (
	shiftN      = 10000
	shiftTestN  = 10000
	shiftTrials = 10
	shiftDelta  = 0.1
	shiftSteps  = 40
)

func (c ShiftCase) d() int { return min(max(c.D, 2), 6) }

// String describes the case.
func (c ShiftCase) String() string {
	kind := "covariate shift"
	if c.Concept {
		kind = "concept shift (target labels flipped)"
	}
	return fmt.Sprintf("d=%d ‖μ_t − μ_s‖=%.3g noise=%.3g %s seed=%d", c.d(), c.Shift, c.Noise, kind, c.Seed)
}

func (c ShiftCase) box() numerics.BoxSet {
	b := numerics.BoxSet{{{-4, -1}, {1, 4}}}
	for j := 1; j < c.d(); j++ {
		b = append(b, [][2]float64{{-1.5, 1.5}})
	}
	return b
}

// means returns μ_s (small random offset) and μ_t = μ_s + Shift·u.
func (c ShiftCase) means() ([]float64, []float64) {
	r := rand.New(rand.NewPCG(c.Seed, 101))
	d := c.d()
	muS := make([]float64, d)
	for j := range muS {
		muS[j] = 0.3 * r.NormFloat64()
	}
	muT := append([]float64(nil), muS...)
	floats.AddScaled(muT, c.Shift, numerics.RandomUnit(r, d))
	return muS, muT
}

// draw samples n labelled points from N(μ, I) on the box.
func (c ShiftCase) draw(r *rand.Rand, mu []float64, n int, flip bool) (*dataset.Dataset, error) {
	b, d := c.box(), c.d()
	ds := &dataset.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := 0; i < n; i++ {
		x := ds.Row(i)
		if err := b.Sample(r, mu, x); err != nil {
			return nil, err
		}
		y := math.Copysign(1, x[0])
		if r.Float64() < c.Noise {
			y = -y
		}
		if flip {
			y = -y
		}
		ds.Y[i] = y
	}
	return ds, nil
}

// Trials runs the Monte Carlo: per trial a training sample, importance-
// weighted logistic GD (weights η(x_i), step 1/max‖x‖²: the logistic risk
// with Σw̄ = 1 is L-smooth with L ≤ max‖x‖²/4) from 0 for shiftSteps
// steps, its margins, and its error on a fresh target sample. It returns
// the trials with D_χ²(P_t‖P_s) and C = sup_B ‖x‖.
func (c ShiftCase) Trials() ([]grwclass.IWTrial, float64, float64, error) {
	return c.trialsUntil(nil)
}

// trialsUntil is Trials ended after the first trial at which stop, given
// the trials so far, D_χ² and C, says the verdict is decided (nil: never).
// The trials are drawn from one stream in order, so the first k are those
// of a full run.
func (c ShiftCase) trialsUntil(stop func(trials []grwclass.IWTrial, chi2, maxNorm float64) bool) ([]grwclass.IWTrial, float64, float64, error) {
	b := c.box()
	muS, muT := c.means()
	chi2, maxNorm := b.Chi2(muT, muS), b.MaxNorm()
	lzt, lzs := b.LogGaussMass(muT), b.LogGaussMass(muS)
	r := rand.New(rand.NewPCG(c.Seed, 102))
	var out []grwclass.IWTrial
	for k := 0; k < shiftTrials; k++ {
		tr, err := c.draw(r, muS, shiftN, false)
		if err != nil {
			return nil, 0, 0, err
		}
		eta := make([]float64, tr.N)
		for i := range eta {
			eta[i] = math.Exp(b.LogDensityRatio(tr.Row(i), muT, muS, lzt, lzs))
		}
		obj, err := LinearObjective(tr, 1, "logistic")
		if err != nil {
			return nil, 0, 0, err
		}
		wbar, err := train.NormalizeWeights(eta)
		if err != nil {
			return nil, 0, 0, err
		}
		if err := obj.SetWeights(wbar); err != nil {
			return nil, 0, 0, err
		}
		gd, err := train.NewGD(1 / (b.MaxNorm() * b.MaxNorm()))
		if err != nil {
			return nil, 0, 0, err
		}
		theta := make([]float64, tr.D)
		if _, err := train.Run(obj, gd, theta, train.Config{Steps: shiftSteps, Every: shiftSteps}); err != nil {
			return nil, 0, 0, err
		}
		nrm := floats.Norm(theta, 2)
		if !(nrm > 0) {
			return nil, 0, 0, fmt.Errorf("training left θ = 0")
		}
		margins := make([]float64, tr.N)
		for i := range margins {
			margins[i] = tr.Y[i] * floats.Dot(tr.Row(i), theta) / nrm
		}
		test, err := c.draw(r, muT, shiftTestN, c.Concept)
		if err != nil {
			return nil, 0, 0, err
		}
		wrong := 0
		for i := 0; i < test.N; i++ {
			if test.Y[i]*floats.Dot(test.Row(i), theta) <= 0 {
				wrong++
			}
		}
		out = append(out, grwclass.IWTrial{Margins: margins, Eta: eta, TestError: float64(wrong) / float64(test.N), TestN: test.N})
		if stop != nil && stop(out, chi2, maxNorm) {
			break
		}
	}
	return out, chi2, maxNorm, nil
}

// GenShift generates covariate-shift cases (or concept-shift controls).
func GenShift(concept bool) properties.Gen[ShiftCase] {
	return properties.StructOf[ShiftCase](map[string]gopter.Gen{
		"D":       gen.IntRange(2, 3),
		"Shift":   gen.Float64Range(0.2, 0.8),
		"Noise":   gen.Float64Range(0, 0.05),
		"Concept": gen.Const(concept),
		"Seed":    gen.UInt64(),
	})
}

// shiftProperty checks XY-T1 on generated cases (concept: the concept-shift
// control). The control's Monte Carlo stops once more of its trials fail
// than IWMarginBound allows on shiftTrials (grwclass.IWBoundAllowed: 5 of
// 10 at δ = 0.1): the verdict on all shiftTrials is then violated whatever
// the rest give, and so is the verdict on the trials run. On concept shift
// every trial fails (target error ≈ 1), so the control runs 6 trials of
// 10 per case. The claim's trials all run (its statistic and worst trial
// are reported).
func shiftProperty(name string, concept bool) properties.Property[ShiftCase] {
	return properties.Property[ShiftCase]{Name: name, Gen: GenShift(concept), Check: func(r *properties.Runner, x ShiftCase) theorems.Verdict {
		var stop func([]grwclass.IWTrial, float64, float64) bool
		if concept {
			fails, allowed := 0, grwclass.IWBoundAllowed(shiftTrials, shiftDelta)
			stop = func(trials []grwclass.IWTrial, chi2, c float64) bool {
				if fail, _, _ := grwclass.IWTrialFails(trials[len(trials)-1], chi2, c, shiftDelta); fail {
					fails++
				}
				return fails > allowed
			}
		}
		trials, chi2, c, err := x.trialsUntil(stop)
		if err != nil {
			return properties.BuildFailed(err)
		}
		return grwclass.IWMarginBound(trials, chi2, c, shiftDelta)
	}}
}

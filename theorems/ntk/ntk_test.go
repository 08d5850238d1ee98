package ntk

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
)

// TestSlopeHalfWidth: the section's confidence levels on numerics' fit
// (numerics/fit_test.go tests the fit itself).
func TestSlopeHalfWidth(t *testing.T) {
	x := []float64{32, 64, 128, 256}
	y := []float64{1, 0.8, 0.5, 0.45}
	f, err := FitLogLog(x, y, []float64{0.1, 0.1, 0.1, 0.1})
	require.NoError(t, err)
	assert.Equal(t, SlopeZ*f.SE, f.HalfWidth())
	// A t-interval is wider than the normal one for few degrees of freedom.
	g := LogLogFit{numerics.LogLogFit{SE: 1, DF: 5}}
	assert.InDelta(t, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 5}.Quantile(1-slopeTail), g.HalfWidth(), 1e-12)
	assert.Greater(t, g.HalfWidth(), 3.0)
	assert.Equal(t, "-0.500 ± 0.000 (4 points)", LogLogFit{numerics.LogLogFit{Slope: -0.5, Points: 4}}.String())
}

// syntheticGrams draws, for each width, S Gram matrices mean + noise with
// noise variance ∝ width^{exponent}.
func syntheticGrams(r *rand.Rand, n, S int, widths []int, exponent float64) []KernelWidth {
	mean := make([]float64, n*n)
	for i := range mean {
		mean[i] = 0.1 * float64(i%(n+1))
	}
	var out []KernelWidth
	for _, w := range widths {
		kw := KernelWidth{Width: w}
		sd := math.Pow(float64(w), exponent/2)
		for k := 0; k < S; k++ {
			g := make([]float64, n*n)
			for i := range g {
				g[i] = mean[i] + sd*r.NormFloat64()
			}
			kw.Grams = append(kw.Grams, g)
		}
		out = append(out, kw)
	}
	return out
}

func TestNTKConcentration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	widths := []int{32, 64, 128, 256, 512, 1024}
	v := NTKConcentration(3, syntheticGrams(r, 3, 32, widths, -1))
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	// Variance that does not fall, or falls like 1/√d̃: violated.
	v = NTKConcentration(3, syntheticGrams(r, 3, 32, widths, 0))
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	v = NTKConcentration(3, syntheticGrams(r, 3, 64, widths, -0.5))
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	// Too few seeds, too few widths.
	assert.Equal(t, theorems.AssumptionFailed, NTKConcentration(3, syntheticGrams(r, 3, 4, widths, -1)).Status)
	assert.Equal(t, theorems.AssumptionFailed, NTKConcentration(3, syntheticGrams(r, 3, 32, widths[:2], -1)).Status)
	// Unequal seed counts: the jackknife's units are seeds of every width.
	uneven := syntheticGrams(r, 3, 32, widths, -1)
	uneven[2].Grams = uneven[2].Grams[:20]
	assert.Equal(t, theorems.AssumptionFailed, NTKConcentration(3, uneven).Status)
	// Equal Gram matrices: nothing to fit.
	flat := syntheticGrams(r, 3, 8, widths, -1)
	for i := range flat[0].Grams {
		flat[0].Grams[i] = flat[0].Grams[0]
	}
	assert.Equal(t, theorems.Inconclusive, NTKConcentration(3, flat).Status)
}

// TestNTKConcentrationCalibration: on synthetic sweeps whose variance falls
// exactly like 1/d̃, the slope's error over its jackknife standard error is
// distributed like Student's t with S − 1 degrees of freedom, so the check's
// false-alarm rate is the one it states. 1000 sweeps of 32 seeds: the count
// beyond the 97.5% quantile is Binomial(1000, 0.05) (sd 6.9), within 4 sd of
// 50; the mean square is 31/29 = 1.07 for t_31, its sampling sd here ~0.05.
func TestNTKConcentrationCalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	widths := []int{32, 64, 128, 256, 512, 1024}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 31}.Quantile(0.975)
	var beyond int
	var m2 float64
	const sweeps = 1000
	for range sweeps {
		ws := syntheticGrams(r, 3, 32, widths, -1)
		x := make([]float64, len(ws))
		y := make([]float64, len(ws))
		for i, w := range ws {
			kv, err := w.Variance(3)
			require.NoError(t, err)
			x[i], y[i] = float64(w.Width), kv.V
		}
		f, err := FitLogLog(x, y, nil)
		require.NoError(t, err)
		se, err := jackknifeSlopeSE(3, ws, x)
		require.NoError(t, err)
		z := (f.Slope - ConcentrationExponent) / se
		m2 += z * z / sweeps
		if math.Abs(z) > q {
			beyond++
		}
	}
	assert.InDelta(t, 50, beyond, 4*6.9)
	assert.InDelta(t, 31.0/29, m2, 4*0.05)
}

// syntheticPath is a linearized run on its computed path (to rounding)
// whose weights moved it by 0.03 from ERM's, as measured on the quick
// budget's claims.
var syntheticPath = LinPath{Err: 1e-14, Effect: 0.03}

// syntheticGaps makes GapRuns with gaps C·w^{slope} times log-normal noise.
func syntheticGaps(r *rand.Rand, slope, noise float64) []GapRun {
	var runs []GapRun
	for _, w := range []int{32, 64, 128, 256, 512} {
		for s := 0; s < 3; s++ {
			g := math.Pow(float64(w), slope) * math.Exp(noise*r.NormFloat64())
			runs = append(runs, GapRun{Width: w, Seed: uint64(s), GramMin: 0.01, GramMax: 0.3, Converged: true,
				LinGap: 2 * g, GRWGap: 0.1 * g, LinLimitGap: 1e-10, LinRisk: 1e-20, TestDiag: 0.3, N: 6, LinPath: syntheticPath})
		}
	}
	return runs
}

func TestNTKApproximation(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	v := NTKApproximation(syntheticGaps(r, -0.5, 0.2))
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	assert.Less(t, v.Statistic, ApproximationExponent)
	v = NTKApproximation(syntheticGaps(r, 0, 0.1))
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	// Too noisy to tell −1/2 from −1/4.
	v = NTKApproximation(syntheticGaps(r, -0.4, 1.5))
	assert.Equal(t, theorems.Inconclusive, v.Status, "%v", v)

	runs := syntheticGaps(r, -0.5, 0.2)
	runs[4].LastLayerNorm = 5
	v = NTKApproximation(runs)
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Contains(t, v.Detail, "measured anyway")

	runs = syntheticGaps(r, -0.5, 0.2)
	runs[2].GramMin = 0
	assert.Equal(t, theorems.AssumptionFailed, NTKApproximation(runs).Status)

	runs = syntheticGaps(r, -0.5, 0.2)
	runs[7].Converged = false
	assert.Equal(t, theorems.Inconclusive, NTKApproximation(runs).Status)

	// Cor. 15: a linearized run far from f* at a tiny risk.
	runs = syntheticGaps(r, -0.5, 0.2)
	runs[5].LinLimitGap = 1e-3
	v = NTKApproximation(runs)
	assert.Equal(t, theorems.Violated, v.Status)
	assert.Contains(t, v.Detail, "Cor. 15")

	// Weights that did nothing: every GRW gap is 0 and the linearized GRW
	// run is ERM's, off its computed path by the weights' effect.
	runs = syntheticGaps(r, -0.5, 0.2)
	for i := range runs {
		runs[i].GRWGap = 0
		runs[i].LinPath.Err = runs[i].LinPath.Effect
	}
	v = NTKApproximation(runs)
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "eq. (11)")

	// Weights too weak to tell GRW from ERM: the path test has no power.
	runs = syntheticGaps(r, -0.5, 0.2)
	runs[3].LinPath.Effect = LinPathTol
	assert.Equal(t, theorems.Inconclusive, NTKApproximation(runs).Status)

	runs = syntheticGaps(r, -0.5, 0.2)
	runs[0].GRWGap = math.NaN()
	assert.Equal(t, theorems.AssumptionFailed, NTKApproximation(runs).Status)
	assert.Equal(t, theorems.AssumptionFailed, NTKApproximation(runs[:6]).Status, "two widths")
}

// TestDeltaBound: the bound solves q*ℓ((1 − δ²/4)Rγ + M) = ℓ(Rγ − M), and
// tends to ZD eq. (160)'s 2√((2M − log q*)/(Rγ)) for large Rγ.
func TestDeltaBound(t *testing.T) {
	l := func(z float64) float64 { return math.Log1p(math.Exp(-z)) }
	for _, c := range []struct{ R, g, M, q float64 }{{40, 0.1, 0.05, 0.1}, {200, 0.08, 0.2, 0.04}, {1e4, 0.05, 0.1, 0.2}} {
		d := DeltaBound(c.R, c.g, c.M, c.q)
		require.Less(t, d, 2.0)
		lhs := c.q * l((1-d*d/4)*c.R*c.g+c.M)
		assert.InDelta(t, 1, lhs/l(c.R*c.g-c.M), 1e-9, "%+v", c)
	}
	R, g, M, q := 1e6, 0.05, 0.1, 0.2
	assert.InDelta(t, 2*math.Sqrt((2*M-math.Log(q))/(R*g)), DeltaBound(R, g, M, q), 1e-6)
	// Small Rγ: vacuous, capped at 2.
	assert.Equal(t, 2.0, DeltaBound(1, 0.05, 0.1, 0.2))
	assert.True(t, math.IsNaN(DeltaBound(1, 0, 0.1, 0.2)))
	assert.True(t, math.IsNaN(DeltaBound(1, 0.1, 0.1, 0)))
}

// syntheticSign makes SignRuns consistent with the linearized picture:
// f_lin = f⁰ + R(f_MM + small), the network off by a gap ∝ w^{slope}.
func syntheticSign(r *rand.Rand, slope float64) []SignRun {
	var runs []SignRun
	for _, w := range []int{32, 64, 128, 256, 512} {
		for s := 0; s < 3; s++ {
			run := SignRun{Width: w, Seed: uint64(s), Mu: 1e-3, Risk: 0.05, R: 30, Gamma: 0.08, M: 0.05, QStar: 0.05, Delta: 0.2, Settled: true, LinPath: syntheticPath}
			gap := 0.5 * math.Pow(float64(w), slope) * math.Exp(0.1*r.NormFloat64())
			run.ApproxGap = gap
			for i := 0; i < 16; i++ {
				fmm := 0.5 * (r.Float64() - 0.5)
				run.FMM = append(run.FMM, fmm)
				run.GNorm = append(run.GNorm, 0.5)
				run.F0 = append(run.F0, 0.05)
				flin := 0.05 + run.R*fmm
				run.FLin = append(run.FLin, flin)
				run.FReg = append(run.FReg, flin+gap*math.Copysign(1, fmm)*0.1)
			}
			runs = append(runs, run)
		}
	}
	return runs
}

func TestSignAgreement(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	v := SignAgreement(syntheticSign(r, -0.5))
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	v = SignAgreement(syntheticSign(r, 0))
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)

	runs := syntheticSign(r, -0.5)
	runs[3].Risk = 0.3
	v = SignAgreement(runs)
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Contains(t, v.Detail, "ε < 1/4 fails")

	// δ above the proof's bound (R = 1e4: the bound is ≈ 0.2).
	runs = syntheticSign(r, -0.5)
	runs[1].R, runs[1].Delta = 1e4, 0.9
	v = SignAgreement(runs)
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "App. D.6")

	runs = syntheticSign(r, -0.5)
	runs[2].LinPath.Err = 1e-3
	v = SignAgreement(runs)
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "eq. (11)")

	runs = syntheticSign(r, -0.5)
	runs[0].Settled = false
	assert.Equal(t, theorems.Inconclusive, SignAgreement(runs).Status)

	// The network disagrees at the widest width on a certified point while
	// the gaps fall: not yet asymptotic.
	runs = syntheticSign(r, -0.5)
	last := &runs[len(runs)-1]
	for i := range last.FMM {
		if math.Abs(last.FMM[i]) > 0.1 {
			last.FReg[i] = -last.FReg[i]
			break
		}
	}
	assert.Equal(t, theorems.Inconclusive, SignAgreement(runs).Status)
}

func syntheticReg(r *rand.Rand, slope float64) []RegRun {
	var runs []RegRun
	for _, w := range []int{32, 64, 128, 256, 512} {
		for s := 0; s < 3; s++ {
			for _, c := range []float64{0.2, 0.5} {
				g := math.Pow(float64(w), slope) * math.Exp(0.1*r.NormFloat64())
				runs = append(runs, RegRun{Width: w, Seed: uint64(s), C: c, Mu: c * 1e-4, GramMin: 0.01, GramMax: 0.3, TestDiag: 0.3, N: 6,
					Risk: c * 1e-4, LinRisk: c * 1e-4, RegGap: 0.05, LinRegGap: 0.01, ApproxGap: g, ERMGap: 0.5 * g, Drift: 1e-7, Converged: true, LinPath: syntheticPath})
			}
		}
	}
	return runs
}

func TestRegularizedWidthGap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	v := RegularizedWidthGap(syntheticReg(r, -0.6), 0.01)
	assert.Equal(t, theorems.Holds, v.Status, "%v", v)
	v = RegularizedWidthGap(syntheticReg(r, 0), 0.01)
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)

	// Hypothesis (14).
	v = RegularizedWidthGap(syntheticReg(r, -0.6), 1e-5)
	assert.Equal(t, theorems.AssumptionFailed, v.Status)
	assert.Contains(t, v.Detail, "training risk below ε fails")

	// Lemma 18: the linearized run farther from f* than its risk allows.
	runs := syntheticReg(r, -0.6)
	runs[4].LinRegGap = 1
	v = RegularizedWidthGap(runs, 0.01)
	assert.Equal(t, theorems.Violated, v.Status)
	assert.Contains(t, v.Detail, "Lemma 18")

	// A linearized run off its path (a regularizer centred at 0): violated
	// before any hypothesis is read.
	runs = syntheticReg(r, -0.6)
	runs[5].LinPath.Err = 0.02
	v = RegularizedWidthGap(runs, 1e-5)
	assert.Equal(t, theorems.Violated, v.Status, "%v", v)
	assert.Contains(t, v.Detail, "eq. (11)")

	runs = syntheticReg(r, -0.6)
	runs[3].Drift = 1
	assert.Equal(t, theorems.Inconclusive, RegularizedWidthGap(runs, 0.01).Status)
	assert.Equal(t, theorems.AssumptionFailed, RegularizedWidthGap(runs, 0).Status)
}

package grwclass

import (
	"math"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// nonSepToy is the smallest case of XY Prop. 2: the pair ±(1, 0) with
// opposite labels spans S = span(e₁) and makes the data non-separable;
// (0.5, 1) with label +1 is separable, with P x = (0, 1): ŵ = e₂, γ_sep = 1,
// and ‖Π_S x‖ = 0.5. With weights w₁, w₂ on the pair the finite part is
// θ̃ = ½ log(w₁/w₂)·e₁ (the minimizer of w₁e^{−θ₁} + w₂e^{θ₁}).
func nonSepToy() (*dataset.Dataset, []float64, float64) {
	d := &dataset.Dataset{N: 3, D: 2, X: []float64{1, 0, 1, 0, 0.5, 1}, Y: []float64{1, -1, 1}}
	w := []float64{3, 1, 1}
	return d, w, 0.5 * math.Log(3)
}

// toyRun records θ(t) = (θ̃ + e(t), θ_⊥(log T)) at t = 3·1.5^k up to 2·10⁵,
// T = t.
func toyRun(thetaS float64, e func(t float64) float64, perp func(logT float64) float64) *train.Trajectory {
	tr := &train.Trajectory{Degree: 1}
	for t := 3.0; t <= 2e5; t = math.Ceil(t * 1.5) {
		lt := math.Log(t)
		tr.Records = append(tr.Records, train.Record{Step: int(t), LogT: lt, Theta: []float64{thetaS + e(t), perp(lt)}})
	}
	return tr
}

// toyGD runs GD (η = 0.5) on the toy's exponential loss with the
// normalized weights applied (w̄ = applied/Σapplied, as train.Static) from
// 0, recording θ at steps growing by 1.5× up to steps: a run the bounds of
// NonSeparableLimit describe.
func toyGD(data *dataset.Dataset, applied []float64, steps int) *train.Trajectory {
	const eta = 0.5
	var sum float64
	for _, v := range applied {
		sum += v
	}
	theta := make([]float64, data.D)
	tr := &train.Trajectory{Degree: 1, Loss: losses.NewBinary(losses.Exponential{}), Step: train.StepRule{Kind: train.GDStep, LR: math.NaN()}}
	next := 1
	for t := 0; t <= steps; t++ {
		step := make([]float64, data.D)
		loss := 0.0
		for i := 0; i < data.N; i++ {
			x := data.Row(i)
			u := 0.0
			for j, v := range x {
				u += data.Y[i] * v * theta[j]
			}
			loss += applied[i] / sum * math.Exp(-u)
			for j, v := range x {
				step[j] += applied[i] / sum * math.Exp(-u) * data.Y[i] * v
			}
		}
		if t == next || t == steps {
			tr.Records = append(tr.Records, train.Record{Step: t, LogT: math.Log(eta * float64(t)), LogLoss: math.Log(loss), Theta: append([]float64(nil), theta...)})
			next = int(math.Ceil(1.5 * float64(next)))
		}
		for j := range theta {
			theta[j] += eta * step[j]
		}
	}
	return tr
}

// TestNonSeparableLimit: GD on the toy holds, and GD that applied uniform
// weights while the check is given w is violated (its finite part
// converges to θ̃ of uniform weights, 0, ½ log 3 from θ̃(w)); on drawn
// trajectories (not GD's: the replay of their segments fails too) a finite
// part stuck at another point is violated, and an S^⊥ residual that grows
// like (log T)^{3/2} is violated against its computed limit.
func TestNonSeparableLimit(t *testing.T) {
	data, w, thetaS := nonSepToy()
	none := func(float64) float64 { return 0 }
	exact := func(lt float64) float64 { return lt }
	growing := func(lt float64) float64 { return lt + 0.3*math.Pow(lt, 1.5) }
	for _, tc := range []struct {
		name string
		tr   *train.Trajectory
		want theorems.Status
		in   string
	}{
		{"GD", toyGD(data, w, 20000), theorems.Holds, ""},
		{"GD ignoring the weights", toyGD(data, []float64{1, 1, 1}, 20000), theorems.Violated, "Π_S θ"},
		{"growing residual, converged finite part", toyRun(thetaS, none, growing), theorems.Violated, "S^⊥: distance"},
		{"finite part at another point", toyRun(thetaS, func(float64) float64 { return 1 }, exact), theorems.Violated, "Π_S θ"},
	} {
		v := NonSeparableLimit(data, w, tc.tr)
		t.Logf("%s: %v %.3g", tc.name, v.Status, v.Statistic)
		if v.Status != tc.want || !strings.Contains(v.Detail, tc.in) {
			t.Errorf("%s: got %v (%s), want %v containing %q", tc.name, v.Status, v.Detail, tc.want, tc.in)
		}
	}
}

package grwclass

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/limits"
	"github.com/implicitbias/implicitbias/train"
)

// NonSeparableLimit checks XY Prop. 2 on a GD run of a linear model on the
// exponential loss with static weights w (any positive scale; the engine
// applies w̄ = w/Σw, train.Static) on data that are not linearly separable:
//
//   - the split D = D_sep ∪ D_nonsep (numerics.SplitSeparable, proved by its
//     certificates) has a non-empty D_nonsep;
//
//   - the projection of θ(t) on S = span{x_i : i ∈ D_nonsep} converges to
//     θ̃(w) = argmin_{θ∈S} Σ_{i∈D_nonsep} w_i e^{−y_i⟨θ, x_i⟩}
//     (numerics.MinimizeNonSep, unique and finite, depends on w): its
//     distance at the end may not exceed the bound GD's contraction on the
//     strongly convex finite part computes (FiniteContraction);
//
//   - the component in S^⊥ grows in the max-margin direction ŵ_sep of the
//     projected separable part {P x_i : i ∈ D_sep} (P the projection on
//     S^⊥), whatever w, and Pθ(t) − ŵ_sep log T tends to its computed
//     limit, which depends on w̄ and θ̃(w) (PerpLimit);
//
//   - each segment between records from T^{1/2} on is GD's under w̄
//     (NonSepReplay): the weights act at first order on every step,
//     however flat the finite part is.
//
// The verdict is the worst of the last three; all decide by computed
// bounds (issue 18), every ratio ≤ 1 on a correct engine by derivation.
func NonSeparableLimit(data *dataset.Dataset, w []float64, tr *train.Trajectory) theorems.Verdict {
	if tr.Degree != 1 {
		return theorems.Assumption("XY Prop. 2 is about the linear model (L = 1); the trajectory's model %s has L = %v", tr.Model, tr.Degree)
	}
	if err := data.ValidateBinary(); err != nil {
		return theorems.Invalid(err)
	}
	if len(w) != data.N {
		return theorems.Invalid(fmt.Errorf("%d weights for %d samples", len(w), data.N))
	}
	wbar, err := train.NormalizeWeights(w)
	if err != nil {
		return theorems.Invalid(err)
	}
	x := mat.NewDense(data.N, data.D, data.X)
	sp, err := numerics.SplitSeparable(x, data.Y, 0)
	if errors.Is(err, numerics.ErrAmbiguousSplit) {
		return theorems.Undecided("separable split: %v", err)
	}
	if err != nil {
		return theorems.Invalid(err)
	}
	if len(sp.Sc) == 0 {
		return theorems.Assumption("the data are linearly separable (D_nonsep is empty): XY Prop. 2 is about non-separable data")
	}
	recs, _, bad := limits.LimitRecords(tr, data.D)
	if bad != nil {
		return *bad
	}
	eta, notGD := limits.StepSize(tr, recs)
	if notGD != "" {
		return theorems.Undecided("XY Prop. 2's bounds follow constant-step GD: %s", notGD)
	}
	run := &limits.NonSepRun{Records: recs, Eta: eta, WBar: wbar, Z: signedRows(data)}
	sub := func(idx []int) (*mat.Dense, []float64, []float64) {
		xs := mat.NewDense(len(idx), data.D, nil)
		ys, ws := make([]float64, len(idx)), make([]float64, len(idx))
		for k, i := range idx {
			xs.SetRow(k, data.Row(i))
			ys[k], ws[k] = data.Y[i], w[i]
		}
		return xs, ys, ws
	}
	xc, yc, wc := sub(sp.Sc)
	mn, err := numerics.MinimizeNonSep(xc, yc, wc)
	if err != nil {
		return theorems.Invalid(err)
	}
	basis := mn.Basis
	rank, _ := basis.Dims()
	coords := make([]float64, rank)
	onS := func(dst, th []float64) { // dst = BᵀBθ
		cv := mat.NewVecDense(rank, coords)
		cv.MulVec(basis, mat.NewVecDense(data.D, th))
		dv := mat.NewVecDense(data.D, dst)
		dv.MulVec(basis.T(), cv)
	}
	finite := limits.FiniteContraction(run, sp.Sc, sp.S, mn.Theta, onS, mn.HessMinEig, floats.Sum(w))
	replay := limits.NonSepReplay(run)
	detail := fmt.Sprintf("D_sep %d samples, D_nonsep %v (rank %d); %s; %s", len(sp.S), sp.Sc, rank, replay.Detail, finite.Detail)
	finite = theorems.Worst(finite, replay)
	finite.Detail = detail
	if len(sp.S) == 0 {
		return finite
	}
	// The separable part, projected on S^⊥.
	xs, ys, _ := sub(sp.S)
	xp := numerics.ProjectOut(xs, basis)
	sol, err := numerics.HardMarginSVM(xp, ys, nil)
	if err != nil {
		return theorems.Undecided("SVM of the projected separable part: %v", err)
	}
	zp := mat.NewDense(len(sp.S), data.D, nil)
	for k := range sp.S {
		for f := 0; f < data.D; f++ {
			zp.Set(k, f, ys[k]*xp.At(k, f))
		}
	}
	sep := limits.PerpLimit(run, sp.S, zp, sol.W, mn.Theta, onS, fmt.Sprintf("projected separable part: margin γ_sep = %.4g", sol.Margin))
	v := theorems.Worst(finite, sep)
	v.Detail = fmt.Sprintf("%s; S^⊥: %s", finite.Detail, sep.Detail)
	return v
}

package grwclass

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/limits"
	"github.com/implicitbias/implicitbias/train"
)

// Section E: generalized reweighting and importance weighting for
// classification with linear models (ZD §5.1, App. B–D.5; XY §3). Every GRW
// whose weights stay positive, and every bounded importance weighting,
// leads gradient descent to the hard-margin SVM direction when the loss has
// an exponential tail; a polynomially tailed loss (ZD eq. 19) makes the
// limit depend on the weights.

// svm solves the hard-margin SVM of binary data: an AssumptionFailed
// verdict for non-separable data, Inconclusive when the solver fails.
func svm(data *dataset.Dataset) (*numerics.SVM, *theorems.Verdict) {
	if err := data.ValidateBinary(); err != nil {
		v := theorems.Invalid(err)
		return nil, &v
	}
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	if errors.Is(err, numerics.ErrNotSeparable) {
		v := theorems.Assumption("the data are not linearly separable: %v", err)
		return nil, &v
	}
	if err != nil {
		v := theorems.Undecided("SVM: %v", err)
		return nil, &v
	}
	return sol, nil
}

// GRWDirection checks ZD-T7 on a GD run of a linear model under a GRW
// scheme: θ̂(t) → θ̂_MM, the hard-margin SVM direction, whatever the
// weights q^{(t)}, at the rate of LL-lin, while the path depends on the
// weights (LinearLimit: the residual's computed limit and GD's flow under
// the recorded weights when they stay fixed; GD's weight-free cone and the
// weights' effect when they move). The theorem's
// Assumption 3 (liminf q_i > 0) is reported, not required: CVaR- and
// χ²-DRO give some samples weight 0 and are checked all the same (ZD's
// conclusion is then beyond the theorem). When the records kept the
// weights, the detail gives min_i n·q_i over the second half of the run.
func GRWDirection(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
	if tr.Degree != 1 {
		return theorems.Assumption("ZD Thm 7 is about the linear model (L = 1); the trajectory's model %s has L = %v", tr.Model, tr.Degree)
	}
	sol, bad := svm(data)
	if bad != nil {
		return *bad
	}
	return limits.LinearLimit(sol, signedRows(data), nil, tr, fmt.Sprintf("SVM margin %.6g; %s", sol.Margin, assumption3(tr)))
}

// gapLimit returns the limit of the Fenchel–Young gap S along GD with an
// exponentially tailed loss and training weights q (per row of z; nil:
// uniform). With θ = ŵ log T + r̃ + o(1), r̃ = a·θ* + δ_∞ + (a part ⟂ every
// support vector), ⟨θ, a_i⟩ = log T + aγ* + ⟨δ_∞, a_i⟩ on the support
// vectors S and γ*‖θ‖ = log T + aγ* + o(1) (γ*‖ŵ‖ = 1), so a cancels and
//
//	S → log Σ_{i∈S} p_i e^{−⟨δ_∞, a_i⟩} + KL(p*‖p),
//
// δ_∞ the tangent offset of PathOffset under q (the tangent part of r̃
// settles where the support vectors' weighted terms are balanced: the same
// minimizer as for the regularization path). Soak seed 1795337506020117
// (ZD-T7, schedule A1, three support vectors): S rose from 0.029 at
// log T = 5.4 to 0.0795 at log T = 11.5 towards this limit, 0.0803.
func gapLimit(sol *numerics.SVM, z *mat.Dense, p, q []float64) (float64, error) {
	delta, support, err := limits.PathOffset(z, q, sol)
	if err != nil {
		return 0, err
	}
	terms := make([]float64, len(support))
	for k, i := range support {
		terms[k] = math.Log(p[i]) - floats.Dot(z.RawRowView(i), delta)
	}
	return numerics.LogSumExp(terms) + numerics.KLDivergence(sol.Alpha, p), nil
}

// signedRows returns the rows y_i x_i of binary data.
func signedRows(data *dataset.Dataset) *mat.Dense {
	z := mat.NewDense(data.N, data.D, nil)
	for i := 0; i < data.N; i++ {
		for j, v := range data.Row(i) {
			z.Set(i, j, data.Y[i]*v)
		}
	}
	return z
}

// assumption3 describes min_i n·q_i^{(t)} over the second half of the
// recorded weights (ZD Assumption 3: liminf_t q_i > 0).
func assumption3(tr *train.Trajectory) string {
	lo, seen := math.Inf(1), false
	last := tr.Final().Step
	for _, r := range tr.Records {
		if r.Weights != nil && 2*r.Step >= last {
			lo, seen = math.Min(lo, floats.Min(r.Weights)*float64(len(r.Weights))), true
		}
	}
	if !seen {
		return fmt.Sprintf("weighting %q (weights not recorded)", tr.Scheme)
	}
	return fmt.Sprintf("weighting %q, min n·q_i over the second half %.3g", tr.Scheme, lo)
}

// FenchelYoungTol bounds the rounding of the XY (A.6) inequality below: its
// right side 2 + 2(log L + KL)/(γ*ρ) cancels 2 against a term of size 2, so
// its absolute error is a few ε times the size of log L/(γ*ρ) = O(1);
// 1e-12 leaves three orders for it.
const FenchelYoungTol = 1e-12

// IWDirection checks XY Prop. 1 (a, b) on a GD run of a linear model with
// static importance weights w (any positive scale): the direction tends to
// the SVM direction θ* at the rate 1/log t, with the residual θ − ŵ log T
// tending to its computed limit under w̄ (LinearLimit), and at every
// record the inequality behind eq. (2) holds — XY (A.5)–(A.6), the
// Fenchel–Young inequality for g(u) = log Σ_i w̄_i e^{u_i}, w̄ = w/Σw,
// whose conjugate is KL(p‖w̄):
//
//	‖θ̂ − θ*‖² ≤ 2 + 2(log Σ_i w̄_i e^{−y_i⟨θ, x_i⟩} + KL(p*‖w̄))/(γ*‖θ‖),
//
// with p* = α/Σα the normalized SVM dual (θ* = Σ p*_i y_i x_i/γ*). The
// inequality holds at every θ; along GD its right side goes to 0 like
// (log n + KL + M)/(γ*‖θ‖) (eq. 2), which is what makes weights near p*
// converge faster.
func IWDirection(data *dataset.Dataset, w []float64, tr *train.Trajectory) theorems.Verdict {
	if tr.Degree != 1 {
		return theorems.Assumption("XY Prop. 1 is about the linear model (L = 1); the trajectory's model %s has L = %v", tr.Model, tr.Degree)
	}
	sol, bad := svm(data)
	if bad != nil {
		return *bad
	}
	wbar, err := train.NormalizeWeights(w)
	if err != nil || len(wbar) != data.N {
		return theorems.Invalid(fmt.Errorf("importance weights: %v (%d for %d samples)", err, len(w), data.N))
	}
	kl := numerics.KLDivergence(sol.Alpha, wbar)
	gamma := sol.Margin
	star := sol.Direction()
	worst, bound := math.Inf(-1), math.NaN()
	terms := make([]float64, data.N)
	for _, r := range tr.Records {
		rho := floats.Norm(r.Theta, 2)
		if r.Theta == nil || !(rho > 0) {
			continue
		}
		for i := 0; i < data.N; i++ {
			terms[i] = math.Log(wbar[i]) - data.Y[i]*floats.Dot(data.Row(i), r.Theta)
		}
		b := 2 + 2*(numerics.LogSumExp(terms)+kl)/(gamma*rho)
		chord := 2 * math.Sin(numerics.Angle(r.Theta, star)/2)
		worst, bound = math.Max(worst, chord*chord-b), b
	}
	if math.IsInf(worst, -1) {
		return theorems.Undecided("no record with θ ≠ 0")
	}
	fy := theorems.Compare(worst, FenchelYoungTol, "")
	dir := limits.LinearLimit(sol, signedRows(data), wbar, tr, fmt.Sprintf("SVM margin %.6g; KL(p*‖w̄) = %.4g; XY (A.6) at the end: ‖θ̂ − θ*‖ ≤ %.4g", gamma, kl, math.Sqrt(math.Max(bound, 0))))
	if fy.Status != theorems.Holds {
		fy.Detail = fmt.Sprintf("XY (A.6) fails: ‖θ̂ − θ*‖² exceeds 2 + 2(log L + KL)/(γ*ρ) by %.3g (p* or γ* wrong?); %s", worst, dir.Detail)
		return fy
	}
	return dir
}

// KLOrdering is XY Prop. 1 (c), the finite-step prediction: of two
// weightings of the same data, the one closer to p* in KL is closer to θ*
// at equal steps. For pairs of runs it counts the pairs that order the two
// ways alike (concordant) among those whose KL values and angles differ
// (decided). The prediction comes from an upper bound, so it is reported
// as a frequency, never asserted.
func KLOrdering(kl1, kl2, angle1, angle2 []float64) (concordant, decided int) {
	for i := range kl1 {
		dk, da := kl1[i]-kl2[i], angle1[i]-angle2[i]
		if dk == 0 || da == 0 || math.IsNaN(dk) || math.IsNaN(da) {
			continue
		}
		decided++
		if (dk < 0) == (da < 0) {
			concordant++
		}
	}
	return concordant, decided
}

// MultiClassDirection checks ZD-B (ZD App. B, eq. 20) on a GD run of a
// linear classifier with K classes (θ stored class after class) on the
// cross-entropy: Θ(t) → the multi-class max-margin solution Θ̂
// (numerics.MultiClassSVM) whatever the GRW, with Θ(t) − Θ̂ log T tending
// to its computed limit under the weights (MultiClassLimit: the K-class
// form of Soudry et al.'s Thm 3).
func MultiClassDirection(data *dataset.Dataset, k int, tr *train.Trajectory) theorems.Verdict {
	if tr.Degree != 1 {
		return theorems.Assumption("ZD-B is about the linear model (L = 1); the trajectory's model %s has L = %v", tr.Model, tr.Degree)
	}
	if err := data.ValidateClasses(k); err != nil {
		return theorems.Invalid(err)
	}
	class := make([]int, data.N)
	for i, y := range data.Y {
		class[i] = int(y)
	}
	a, err := numerics.MultiClassConstraints(mat.NewDense(data.N, data.D, data.X), class, k)
	if err != nil {
		return theorems.Invalid(err)
	}
	rows, _ := a.Dims()
	sol, err := numerics.HardMarginSVM(a, limits.Ones(rows), nil)
	if errors.Is(err, numerics.ErrNotSeparable) {
		return theorems.Assumption("the data are not linearly separable into %d classes: %v", k, err)
	}
	if err != nil {
		return theorems.Undecided("multi-class SVM: %v", err)
	}
	return limits.MultiClassLimit(sol, a, k-1, tr, fmt.Sprintf("multi-class margin %.6g; %s", sol.Margin, assumption3(tr)))
}

// PathRay is a point θ_R of a regularization path.
type PathRay struct {
	R      float64
	ThetaR []float64
	// Precision bounds ‖ThetaR − θ_R‖ from the solver's own residual
	// (0: not known; then pathSolverFloor·R is assumed): with −∇log𝓛 =
	// μθ + r at θ (μ the ball's multiplier, r the tangential residual,
	// train.BallResult), θ minimizes log𝓛 + μ‖·‖²/2 − ⟨r, ·⟩, and log𝓛 +
	// μ‖·‖²/2 is μ-strongly convex (log𝓛 is convex), so θ lies within
	// ‖r‖/μ of that function's minimizer, the path's point at its own norm,
	// whose norm is itself within ‖r‖/μ of R.
	Precision float64
}

// pathSolverFloor is the relative precision, in θ_R/R, of a path point
// from train.MinimizeOnBall: its stationarity tolerance on the log
// objective's gradient is 1e-10 (train.DefaultMinimizeGradTol), which on
// these well-conditioned problems puts θ_R within ~1e-10·R of the exact
// point; ten times that is the floor below which the residual
// ‖θ_R − R·θ̂_MM‖ is rounding. A point whose own residual bounds it less
// tightly (PathRay.Precision: the minimizer stops within 100× its
// tolerance when rounding stalls its line search) raises the floor to
// twice that bound (the distance to the path's point at its norm and
// that norm's distance to R). A path that misses θ̂_MM by even 1e-6 rad
// has a residual of 1e-6·R, a thousand times above it.
const pathSolverFloor = 1e-9

// PathAgreement checks ZD-T8 (iii) with the logistic loss: the GD
// direction and the regularization path θ_R = argmin_{‖θ‖≤R} F(θ) have the
// same limit, the SVM direction θ̂_MM (ZD App. D.5.3), each decided by its
// computed limit:
//
//	θ(t) − ŵ log T      along the GD run tr (LinearLimit, as ZD-T7);
//	θ_R − R·θ̂_MM → δ_∞  along the path: at the largest R the distance
//	                    ‖θ_R − R·θ̂_MM − δ_∞‖ may not exceed the bound
//	                    PathLimitBound derives (the sphere's pull, the
//	                    samples off the margin and the tail's departure,
//	                    through the offset problem's curvature) plus the
//	                    solver's floor pathSolverFloor·R.
//
// δ_∞ (PathOffset) is the tangent offset the path's weights q (nil:
// uniform) set: weights spanning many orders of magnitude put it far out
// (soak seed 1795336113008019: Group DRO's q = 1e-9 on a support vector,
// ‖δ_∞‖ = 13.7, reached from R = 10⁵ on). The bound is an upper bound by
// derivation: false-alarm rate 0 on a correct path up to the solver's
// floor; at R = 10⁶ it is ~10⁻³, the floor. A path with another limit u
// has the distance R·∠(u, θ̂_MM) − O(1): a polynomial tail (the control)
// or a fault that moves the path's limit by 10⁻⁸ rad is violated. A path
// whose largest R is too small for the bound's derivation (PathLimitBound)
// is undecided. at, when set, is the path's point at the GD run's last
// norm: the detail then gives the angle between θ(T) and θ_{‖θ(T)‖}.
func PathAgreement(data *dataset.Dataset, q []float64, tr *train.Trajectory, path []PathRay, at *PathRay) theorems.Verdict {
	sol, bad := svm(data)
	if bad != nil {
		return *bad
	}
	if len(path) == 0 {
		return theorems.Undecided("no path point")
	}
	if q != nil && len(q) != data.N {
		return theorems.Invalid(fmt.Errorf("%d path weights for %d samples", len(q), data.N))
	}
	last := path[len(path)-1]
	off, bound, err := limits.PathLimitBound(signedRows(data), q, sol, last.R)
	if err != nil {
		// The path half is undecided, but the GD half needs no δ_∞: a run
		// that leaves GD (a stray preconditioner) is still violated (soak
		// seed 1795707632122573: Group DRO's limit weights made the offset
		// problem singular, condition number 8e16, and the preconditioned
		// run went undecided).
		return gdHalfOnly(sol, data, tr, fmt.Errorf("the limit offset δ_∞: %w", err))
	}
	dirMM := sol.Direction()
	dist := func(p PathRay) float64 {
		var sum float64
		for i, v := range p.ThetaR {
			d := v - p.R*dirMM[i] - off[i]
			sum += d * d
		}
		return math.Sqrt(sum)
	}
	floor := math.Max(pathSolverFloor*last.R, 2*last.Precision)
	end := dist(last)
	pv := theorems.Compare(end/(bound+floor), 1, "")
	gv := limits.LinearLimit(sol, signedRows(data), nil, tr, "")
	v := theorems.Worst(pv, gv)
	agree := ""
	if at != nil && len(tr.Theta) == len(at.ThetaR) {
		agree = fmt.Sprintf("; at ‖θ(T)‖ = %.4g: ∠(θ(T), θ_R) = %.3g rad", at.R, numerics.Angle(tr.Theta, at.ThetaR))
	}
	v.Detail = fmt.Sprintf("path: ‖θ_R − R·θ̂_MM − δ_∞‖ %.4g at R = %.3g (‖δ_∞‖ %.4g; R = %.3g: %.4g), bound %.3g + solver floor %.3g, ∠(θ_R, θ̂_MM) %.3g rad; GD: %s%s",
		end, last.R, floats.Norm(off, 2), path[0].R, dist(path[0]), bound, floor, numerics.Angle(last.ThetaR, dirMM), gv.Detail, agree)
	return v
}

// PathUnavailable is ZD-T8's verdict on a GD run tr whose regularization
// path could not be computed (err: the path's minimizer did not reach its
// stationarity tolerance): the path half is undecided, the GD half is
// decided as in PathAgreement, and the agreement is the worse of the two
// (theorems.Worst), as when δ_∞ has no finite value. A run that leaves GD
// is violated whatever the path; a correct run is never a pass (soak seed
// 1795881298007842: the path's solver stalled at R = 10³ on a
// preconditioned run, whose GD half was violated).
func PathUnavailable(data *dataset.Dataset, tr *train.Trajectory, err error) theorems.Verdict {
	sol, bad := svm(data)
	if bad != nil {
		return *bad
	}
	return gdHalfOnly(sol, data, tr, err)
}

// gdHalfOnly is ZD-T8's agreement when its path half is undecided (why):
// Worst(undecided, the GD half).
func gdHalfOnly(sol *numerics.SVM, data *dataset.Dataset, tr *train.Trajectory, why error) theorems.Verdict {
	gv := limits.LinearLimit(sol, signedRows(data), nil, tr, "")
	v := theorems.Worst(theorems.Undecided("the path: %v", why), gv)
	v.Detail = fmt.Sprintf("path: %v; GD: %s", why, gv.Detail)
	return v
}

// PolyLimitShare is the largest angle between a path's direction at its
// largest R and its computed limit u(q_k), as a share of the angle Δ
// between the two limits, for which ZD-PT holds: then the two directions
// are at least Δ(1 − 2·¼) = Δ/2 apart (triangle inequality), bounded away
// from 0 by a computed amount. The path approaches u(q) at rate O(1/R) (the
// shift 1 − β in ℓ = (q − β + 1)^{−α} is an O(1/R) perturbation of Φ), so
// at R ≥ 10⁴ the share is ~10⁻³ for the generated weightings. For an
// exponential tail both paths tend to θ̂_MM and one of the two limits u(q_k)
// is at least Δ/2 away from it: the share is then ≥ ½.
const PolyLimitShare = 0.25

// PolyTailLimits checks ZD-PT (ZD §6.1, App. C; Wang et al. 2022): for a
// polynomially tailed loss ℓ(q) ~ q^{−α} the regularization path θ_R/R —
// the limit of the GD direction (ZD Thm 8) — tends to the weight-dependent
// u(q) = argmin_{‖u‖=1} Σ q_i⟨u, y_i x_i⟩^{−α} (numerics.PolyTailDirection),
// so two weightings q1, q2 lead to directions Δ = ∠(u(q1), u(q2)) apart.
// paths[k] are points θ_R of the path under weights q[k] (the largest R
// last). The statistic is max_k ∠(θ_{R_max}(q_k), u(q_k))/Δ against
// PolyLimitShare.
func PolyTailLimits(data *dataset.Dataset, alpha float64, q [2][]float64, paths [2][]PathRay) theorems.Verdict {
	if err := data.ValidateBinary(); err != nil {
		return theorems.Invalid(err)
	}
	z := signedRows(data)
	var u [2][]float64
	for k := range q {
		if len(paths[k]) == 0 {
			return theorems.Undecided("no path under weighting %d", k+1)
		}
		pd, err := numerics.PolyTailDirection(z, q[k], alpha)
		if errors.Is(err, numerics.ErrNotSeparable) {
			return theorems.Assumption("the data are not linearly separable: %v", err)
		}
		if err != nil {
			return theorems.Undecided("poly-tail limit: %v", err)
		}
		u[k] = pd.U
	}
	delta := numerics.Angle(u[0], u[1])
	// Below 1e-6 rad the two limits cannot be told apart from the paths'
	// O(1/R) distance to them.
	if !(delta > 1e-6) {
		return theorems.Undecided("the two weightings have the same limit (∠ = %.2g): draw weights further apart", delta)
	}
	var off [2]float64
	for k := range paths {
		off[k] = numerics.Angle(paths[k][len(paths[k])-1].ThetaR, u[k])
	}
	last0, last1 := paths[0][len(paths[0])-1], paths[1][len(paths[1])-1]
	between := numerics.Angle(last0.ThetaR, last1.ThetaR)
	first := numerics.Angle(paths[0][0].ThetaR, paths[1][0].ThetaR)
	return theorems.Compare(math.Max(off[0], off[1])/delta, PolyLimitShare, fmt.Sprintf(
		"limits u(q1), u(q2) %.4g rad apart; paths at R = %.3g are %.3g, %.3g rad from them; ∠ between the two paths %.4g (R = %.3g) → %.4g (R = %.3g)",
		delta, last0.R, off[0], off[1], first, paths[0][0].R, between, last0.R))
}

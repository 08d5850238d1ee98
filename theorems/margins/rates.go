package margins

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Rate-fit settings of LL-4.3.
const (
	// RateWindow is the width, in log log T, of the fit window at the end
	// of the run: log T grows by e ≈ 2.7× across it. A margin that settles
	// like 1/log T drifts across a window of width W by a share e^W − 1 of
	// its distance to the limit, against an allowance proportional to W
	// (see Rates): W = 1 halves that ratio compared with W = 2.
	RateWindow = 1.0
	// rateMinStart is the smallest log log T the window may start at
	// (log T ≥ e² ≈ 7.4, T ≥ 1600): below it log log T is not yet a
	// meaningful scale.
	rateMinStart = 2.0
	// rateMinPoints is the fewest records a window must hold.
	rateMinPoints = 20
	// rateMaxFlowStep bounds η‖∇𝓛‖²/𝓛, the first-order decrease of log 𝓛 in
	// one gradient-descent step: LL (S5) asks η ≤ H(𝓛) = Θ(1/(𝓛 log(1/𝓛)^{3−2/L})),
	// which makes it O(1/log(1/𝓛)) → 0; a step that divides 𝓛 by more than e
	// does not follow the flow the rates are proved for.
	rateMaxFlowStep = 1.0
)

// RateTolerances returns the slope tolerances of LL-4.3 for the order L:
// half the smallest drift that the exponents of L ± 1 would add to the
// fitted slopes (loss ratio: |2/L − 2/L′|, norm ratio: |1/L − 1/L′|), so that
// a fit within them tells L from its neighbours (the negative control).
func RateTolerances(L float64) (loss, norm float64) {
	loss, norm = math.Inf(1), math.Inf(1)
	for _, lp := range []float64{L - 1, L + 1} {
		if lp <= 0 {
			continue
		}
		loss = math.Min(loss, math.Abs(2/L-2/lp)/2)
		norm = math.Min(norm, math.Abs(1/L-1/lp)/2)
	}
	return loss, norm
}

// RateCase is a long recorded run for LL-4.3.
type RateCase struct {
	// Records are the run's records (any spacing), with LogT; for gradient
	// descent also LogEta and LogGradNorm of consecutive steps.
	Records []train.Record
	// Flow marks a gradient-flow trajectory (T = t exactly); otherwise the
	// records are gradient descent and (S5) is checked.
	Flow bool
	// Degree is the L whose exponents are fitted (the declared order).
	Degree float64
	// ModelDegree is the trajectory's own L (train.Trajectory.Degree), which
	// decides whether the run is asymptotic; 0 means Degree. The regime is a
	// property of the run, so that a fit with wrong exponents is decided
	// exactly when the right one is.
	ModelDegree float64
	// Margin is the loss's margin form; its g enters the general rates.
	Margin losses.Margin
}

// FitRates fits LL-4.3 (Thm 4.3 / A.10 / E.5): with T = Σ_{τ ≥ t₀} η(τ) (the
// flow time after t₀ for gradient flow),
//
//	𝓛 = Θ(g(log T)^{2/L}/(T (log T)²)),   ρ = Θ(g(log T)^{1/L}),
//
// which for the exponential and logistic losses (g(x) = Θ(x)) is
// 𝓛 = Θ(1/(T (log T)^{2−2/L})), ρ = Θ((log T)^{1/L}). Over the window of the
// last RateWindow of x = log log T it fits, by least squares, the slopes of
//
//	y₁ = log(𝓛·T·(log T)²/g(log T)^{2/L}),   y₂ = log(ρ/g(log T)^{1/L})
//
// against x; Θ(1) ratios have slope → 0, and Rates asks |slope₁| and
// |slope₂| to be within RateTolerances(L); fitting with the exponents of
// L ± 1 adds a drift of twice the tolerance or more, which must then be
// reported violated.
//
// The run has reached the asymptotic regime when the window starts at
// log log T ≥ 2 and holds ≥ 20 records, and when the smoothed margin has
// settled: ρ^L = g(log 1/𝓛)/γ̃, so a change Δ log γ̃ across the window
// moves slope₂ by Δ/(L·RateWindow); it must not move it by more than half
// its tolerance (with the run's own L, ModelDegree). Otherwise the check is
// inconclusive, except that along a flow a fall of log γ̃ larger than that
// allowance is violated: γ̃ is non-decreasing under the flow (LL Thm 4.1),
// so the run's order or flow is wrong. For gradient descent the steps must follow the flow ((S5),
// see rateMaxFlowStep): otherwise the assumption failed. Those outcomes come
// back as a verdict instead of a fit.
func FitRates(c RateCase) (RateFit, *theorems.Verdict) {
	fail := func(v theorems.Verdict) (RateFit, *theorems.Verdict) { return RateFit{}, &v }
	L := c.Degree
	if !(L > 0) {
		return fail(theorems.Invalid(fmt.Errorf("theorems: rate check needs a declared order L > 0, got %v", L)))
	}
	if c.Margin == nil {
		return fail(theorems.Invalid(errors.New("theorems: rate check needs the loss's margin form")))
	}
	th := losses.LogThreshold(c.Margin)
	t0 := -1
	for i, r := range c.Records {
		if r.LogLoss < th {
			t0 = i
			break
		}
	}
	if t0 < 0 {
		return fail(theorems.Undecided("the run never separated the data (𝓛 < ℓ(b_f))"))
	}
	logT0 := c.Records[t0].LogT
	var xs, y1, y2, gam []float64
	for i := t0 + 1; i < len(c.Records); i++ {
		r := c.Records[i]
		// log T = log(T_t − T_{t₀}).
		lt := r.LogT
		if !math.IsInf(logT0, -1) {
			lt = r.LogT + math.Log(-math.Expm1(logT0-r.LogT))
		}
		if !(lt > 0) {
			continue
		}
		x := math.Log(lt)
		g := c.Margin.G(lt)
		xs = append(xs, x)
		y1 = append(y1, r.LogLoss+lt+2*x-(2/L)*math.Log(g))
		y2 = append(y2, math.Log(r.Rho)-math.Log(g)/L)
		gam = append(gam, math.Log(r.SmoothedMargin))
	}
	if len(xs) == 0 {
		return fail(theorems.Undecided("the run has no record with log T > 0 after t₀"))
	}
	if !c.Flow {
		// (S5) before anything else: a run outside the theorem's
		// hypotheses is not asked whether it is asymptotic.
		worst := 0.0
		for i := t0; i+1 < len(c.Records); i++ {
			r, next := c.Records[i], c.Records[i+1]
			if next.Step != r.Step+1 {
				return fail(theorems.Invalid(errors.New("theorems: gradient-descent rate check needs consecutive records (Config.Every = 1)")))
			}
			worst = math.Max(worst, math.Exp(next.LogEta+2*r.LogGradNorm-r.LogObjective))
		}
		if worst > rateMaxFlowStep {
			return fail(theorems.Assumption("(S5) learning rate: steps with η‖∇𝓛‖²/𝓛 up to %.3g (> %g) after t₀; GD does not follow the flow there (LL asks η ≤ H(𝓛) = Θ(1/(𝓛 log(1/𝓛)^{3−2/L})))", worst, rateMaxFlowStep))
		}
	}
	xEnd := xs[len(xs)-1]
	start := xEnd - RateWindow
	lo := 0
	for lo < len(xs) && xs[lo] < start {
		lo++
	}
	tolLoss, tolNorm := RateTolerances(L)
	if start < rateMinStart || len(xs)-lo < rateMinPoints {
		return fail(theorems.Undecided("%s", rateWindowShort(start, xEnd, len(xs)-lo))) // rateswindow.go
	}
	lm := c.ModelDegree
	if lm == 0 {
		lm = L
	}
	_, tolNormModel := RateTolerances(lm)
	settled := lm * RateWindow * tolNormModel / 2
	if fall := gam[lo] - gam[len(gam)-1]; c.Flow && fall > settled {
		// Not a short run: along a gradient flow γ̃ is non-decreasing
		// after separation (LL Thm 4.1), so a fall larger than the
		// settling allowance (which the integrator's error, ~1e-9, is far
		// below) refutes the premise the rates rest on: the run's order L
		// or its flow is wrong (fault degree-plus-one falls by ~1).
		return fail(theorems.Verdict{Status: theorems.Violated, Statistic: fall, Bound: settled, Detail: fmt.Sprintf("log γ̃ fell by %.3g across the window log log T ∈ [%.3g, %.3g] (allowed %.3g): under gradient flow γ̃ is non-decreasing after separation (LL Thm 4.1), with L = %g", fall, xs[lo], xEnd, settled, lm)})
	}
	if dg := math.Abs(gam[len(gam)-1] - gam[lo]); !(dg <= settled) {
		return fail(theorems.Undecided("not asymptotic: log γ̃ still moved by %.3g across the window (allowed %.3g: half the norm slope's tolerance at L = %g)", dg, lm*RateWindow*tolNormModel/2, lm))
	}
	f := RateFit{L: L, Points: len(xs) - lo, LogLogTStart: xs[lo], LogLogTEnd: xEnd, TolLoss: tolLoss, TolNorm: tolNorm}
	wx := xs[lo:]
	_, f.SlopeLoss = stat.LinearRegression(wx, y1[lo:], nil, false)
	_, f.SlopeNorm = stat.LinearRegression(wx, y2[lo:], nil, false)
	f.BandLoss = floats.Max(y1[lo:]) - floats.Min(y1[lo:])
	f.BandNorm = floats.Max(y2[lo:]) - floats.Min(y2[lo:])
	return f, nil
}

// RateFit is LL-4.3's fit over the window: the slopes of the log ratios
// against log log T, their tolerances (RateTolerances) and bands (max − min
// of the log ratio over the window).
type RateFit struct {
	L                        float64
	Points                   int
	LogLogTStart, LogLogTEnd float64
	SlopeLoss, SlopeNorm     float64
	TolLoss, TolNorm         float64
	BandLoss, BandNorm       float64
}

// Rates checks LL-4.3 on the fit of FitRates: it holds when both slopes are
// within their tolerances (statistic: the larger ratio of |slope| to
// tolerance, bound 1).
func Rates(c RateCase) theorems.Verdict {
	f, bad := FitRates(c)
	if bad != nil {
		return *bad
	}
	stat := math.Max(math.Abs(f.SlopeLoss)/f.TolLoss, math.Abs(f.SlopeNorm)/f.TolNorm)
	return theorems.Compare(stat, 1, fmt.Sprintf("L = %g, %d records, log log T ∈ [%.3g, %.3g] (log T up to %.5g): slope of log(𝓛·T·(log T)²/g(log T)^{2/L}) = %.4f (tolerance %.4f, band %.3g), of log(ρ/g(log T)^{1/L}) = %.4f (tolerance %.4f, band %.3g)",
		f.L, f.Points, f.LogLogTStart, f.LogLogTEnd, math.Exp(f.LogLogTEnd), f.SlopeLoss, f.TolLoss, f.BandLoss, f.SlopeNorm, f.TolNorm, f.BandNorm))
}

// ScheduleCase is a run of the loss-based learning rate for LL-K1.
type ScheduleCase struct {
	// Records are consecutive steps (Config.Every = 1).
	Records []train.Record
	// RunErr is the error train.Run returned, if any.
	RunErr error
	// Target is the log 𝓛 the run must reach (LL-K1: −2000).
	Target float64
	// Stalled is the run's Trajectory.Stalled: no step the schedule may
	// take decreased 𝓛 any more.
	Stalled bool
	// Kinked reports that the model is only piecewise smooth (ReLU,
	// LeakyReLU, ReLU², max pooling: models.Network.Kinked).
	Kinked bool
}

// LossBasedSchedule checks LL-K1 (App. K.1) on a run of the loss-based
// learning rate: the run ended without error and reached log 𝓛 ≤ Target;
// every accepted step decreased 𝓛 strictly (the schedule's success test);
// the relative rate α_t = η_t·𝓛(θ_t) (η on the summed loss, see
// train.LossBased) starts at α(0) = 0.1 and between accepted steps moves by
// +log r_u − k·log r_d for an integer k ≥ 0 (k rollbacks), to 1e-6; log 𝓛,
// ‖∇𝓛‖, ρ and the normalized and smoothed margins are finite at every step
// (no underflow, no NaN), and 0 < γ̃ ≤ γ̄ at the end. Statistic: the final
// log 𝓛, bound: Target.
func LossBasedSchedule(c ScheduleCase) theorems.Verdict {
	if c.RunErr != nil {
		return theorems.Verdict{Status: theorems.Violated, Statistic: math.NaN(), Bound: c.Target, Detail: "the run failed: " + c.RunErr.Error()}
	}
	rs := c.Records
	if len(rs) < 2 {
		return theorems.Invalid(errors.New("theorems: schedule check needs at least two records"))
	}
	logAlpha := math.Log(train.LossBasedAlpha0)
	const up, dn = math.Ln2 / 5, math.Ln2 / 10
	rollbacks := 0
	for i := 1; i < len(rs); i++ {
		prev, r := rs[i-1], rs[i]
		if r.Step != prev.Step+1 {
			return theorems.Invalid(errors.New("theorems: schedule check needs consecutive records (Config.Every = 1)"))
		}
		if !(r.LogObjective < prev.LogObjective) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: r.LogLoss, Bound: c.Target, Detail: fmt.Sprintf("step %d: log 𝓛 went from %.10g to %.10g; the schedule accepts only strict decreases", r.Step, prev.LogObjective, r.LogObjective)}
		}
		used := r.LogEta + prev.LogObjective
		k := (logAlpha - used) / dn
		if math.IsNaN(k) || math.Abs(k-math.Round(k)) > 1e-6 || math.Round(k) < 0 {
			return theorems.Verdict{Status: theorems.Violated, Statistic: r.LogLoss, Bound: c.Target, Detail: fmt.Sprintf("step %d: α moved from %.6g to %.6g, not by r_u·r_d^{−k} with an integer k ≥ 0 (k = %.6g)", r.Step, math.Exp(logAlpha), math.Exp(used), k)}
		}
		logAlpha = used + up
		rollbacks += int(math.Round(k))
	}
	for _, r := range rs {
		for _, v := range []struct {
			x    float64
			name string
		}{{r.LogLoss, "log 𝓛"}, {r.Rho, "ρ"}, {r.NormalizedMargin, "γ̄"}, {r.SmoothedMargin, "γ̃"}, {r.LogGradNorm, "log ‖∇𝓛‖"}} {
			if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
				return theorems.Verdict{Status: theorems.Violated, Statistic: r.LogLoss, Bound: c.Target, Detail: fmt.Sprintf("step %d: %s = %v (underflow or NaN)", r.Step, v.name, v.x)}
			}
		}
	}
	last := rs[len(rs)-1]
	if v := stallOutsideAnalysis(c.Stalled, c.Kinked, last, fmt.Sprintf("α = %.3g", math.Exp(logAlpha))); v != nil {
		return *v
	}
	if !(last.SmoothedMargin > 0 && last.SmoothedMargin <= last.NormalizedMargin) {
		return theorems.Verdict{Status: theorems.Violated, Statistic: last.LogLoss, Bound: c.Target, Detail: fmt.Sprintf("γ̃ = %.6g is not in (0, γ̄ = %.6g]", last.SmoothedMargin, last.NormalizedMargin)}
	}
	if v := budgetOutsideAnalysis(c.Stalled, c.Kinked, last, c.Target, logAlpha, fmt.Sprintf("%d rollbacks", rollbacks)); v != nil {
		return *v
	}
	return theorems.Compare(last.LogLoss, c.Target, fmt.Sprintf("%d accepted steps, final α = %.4g, log T = %.6g, ρ = %.6g, γ̄ = %.6g, γ̃ = %.6g",
		last.Step, math.Exp(logAlpha), last.LogT, last.Rho, last.NormalizedMargin, last.SmoothedMargin))
}

// LossEvaluator computes log 𝓛 at θ and the gradient direction ∇log 𝓛 into
// dir. The engine's Objective is one (EngineEvaluator); a plain float64
// computation is LL-K2's negative control.
type LossEvaluator func(theta, dir []float64) (logLoss float64, err error)

// EngineEvaluator returns the Objective's log-domain evaluation as a
// LossEvaluator.
func EngineEvaluator(obj *train.Objective) LossEvaluator {
	return func(theta, dir []float64) (float64, error) {
		ev, err := obj.Evaluate(theta, true)
		if err != nil {
			return math.NaN(), err
		}
		copy(dir, ev.Dir)
		return ev.LogLoss, nil
	}
}

// stallOutsideAnalysis returns the undecided verdict of a loss-based run
// that stalled (ErrStalled) where LL's analysis does not reach, or nil:
//
//   - before separating the data: LL App. K.1 analyses the schedule from a
//     separated point (B4), and a kinked (ReLU) network can stop GD before
//     it separates, where no step size decreases 𝓛 (soak seeds
//     1795337506107226: a 3-layer ReLU net stalled at log 𝓛 = 0.286 with
//     η = e^{−36}; 1795706067117878, LL-K2: log 𝓛 = −0.318 at step 557);
//   - on a kinked network: LL's analysis of GD (App. E) assumes a C²
//     network; on a kinked one 𝓛 is not differentiable everywhere, and at
//     such a point no step along −∇𝓛 need decrease it, so the rollbacks
//     drive α down until the run stalls (soak seed 1795345548060081: a
//     3-layer LeakyReLU net, α = 5.5e-17, a stall at log 𝓛 = −1390 after
//     223 776 steps).
//
// A stall on a C² network after separating stays the caller's violation.
// state describes the run's state at the stall for the detail.
func stallOutsideAnalysis(stalled, kinked bool, last train.Record, state string) *theorems.Verdict {
	switch {
	case stalled && !last.Separated:
		v := theorems.Undecided("the run stalled at step %d before separating the data (log 𝓛 = %.6g, not below log ℓ(b_f); %s): the schedule's analysis (LL App. K) starts from a separated point", last.Step, last.LogLoss, state)
		return &v
	case stalled && kinked:
		v := theorems.Undecided("the run stalled at step %d (log 𝓛 = %.6g, %s) on a kinked network, where GD's steps can stall at a point of non-differentiability; LL's analysis of GD assumes a C² network", last.Step, last.LogLoss, state)
		return &v
	}
	return nil
}

// budgetOutsideAnalysis returns the undecided verdict of a loss-based run
// on a kinked network that used up its step budget short of the target
// after rollbacks had cut α below its start α(0), or nil. α starts at α(0)
// and every accepted step multiplies it by r_u > 1: only rollbacks (steps
// that failed to decrease 𝓛) bring it below α(0). On a kinked network
// that is the kinks' effect stallOutsideAnalysis describes, caught before
// the stall: LL's analysis of GD (App. E, K) assumes a C² network, so the
// run neither confirms nor refutes the claim (soak seed 1795883474800560:
// a 2-layer LeakyReLU net, α = 2.4e-5, log 𝓛 = −1247 after 500 000
// steps). A C² network short of the target, a stall (stallOutsideAnalysis
// decides it) and a kinked run whose α never fell below α(0) stay the
// caller's violation. logAlpha is log α for the next step (an upper bound
// of it where the records are not consecutive); state describes the run.
func budgetOutsideAnalysis(stalled, kinked bool, last train.Record, target, logAlpha float64, state string) *theorems.Verdict {
	if stalled || !kinked || last.LogLoss <= target || !(logAlpha < math.Log(train.LossBasedAlpha0)) {
		return nil
	}
	v := theorems.Undecided("the run used up its %d steps at log 𝓛 = %.6g, above the target %.6g, on a kinked network whose rollbacks cut α to %.3g, below α(0) = %g (%s): LL's analysis of GD assumes a C² network, and a step across a kink can fail to decrease 𝓛; a C² activation or a longer budget would decide",
		last.Step, last.LogLoss, target, math.Exp(logAlpha), train.LossBasedAlpha0, state)
	return &v
}

// nextAlphaBound returns an upper bound of log α for the step after the
// last of records spaced any way (LL-K2's): the last step used
// log α = log η + log 𝓛 of the state before it, which is at most the
// previous record's log 𝓛 (𝓛 decreases strictly at every accepted step),
// and a success multiplies α by r_u. NaN with fewer than two records.
func nextAlphaBound(rs []train.Record) float64 {
	if len(rs) < 2 {
		return math.NaN()
	}
	return rs[len(rs)-1].LogEta + rs[len(rs)-2].LogObjective + train.LossBasedLogUp
}

// LogDomainCase is a long run for LL-K2.
type LogDomainCase struct {
	Obj *train.Objective
	// Records are recorded states with θ (Config.KeepTheta); any spacing.
	Records []train.Record
	// Target is the log 𝓛 the run must reach (LL-K2: ≈ −10⁴).
	Target float64
	// Eval computes log 𝓛 and the direction (nil: EngineEvaluator(Obj)).
	Eval LossEvaluator
	// Stalled and Kinked are as in ScheduleCase: the loss-based run ended
	// with ErrStalled, on a piecewise smooth model.
	Stalled, Kinked bool
}

// LogDomainReference is LL-K2's agreement bound between the evaluator and an
// independent recomputation: log 𝓛 as numerics.LogSumExp of the per-sample
// log-losses of per-sample forward passes (models.Grader), and ∇log 𝓛 as
// Σ_n p_n ∇log ℓ_n with p_n = e^{log ℓ_n − log 𝓛} from per-sample backward
// passes. Both sides round like the identities of section A (relative
// ≈ 4e-14, EulerBound) in the magnitudes of their terms: |log 𝓛| up to 10⁴
// and ‖∇log ℓ_n‖; 1e-10 relative leaves room for the summation over N.
const LogDomainReference = 1e-10

// LogDomain checks LL-K2 (App. K.2): along a run that reaches log 𝓛 ≤ Target,
// at every recorded θ the evaluator gives a finite log 𝓛, a finite non-zero
// direction ∇log 𝓛 (so the step direction exists), finite γ̃ and γ̄ (both
// > 0 once the data are separated) and ρ > 0, and agrees with an
// independent recomputation to LogDomainReference. Statistic: the worst disagreement, bound
// LogDomainReference.
func LogDomain(c LogDomainCase) theorems.Verdict {
	if c.Obj == nil || len(c.Records) == 0 {
		return theorems.Invalid(errors.New("theorems: log-domain check needs an objective and records"))
	}
	m, ok := losses.MarginOf(c.Obj.Loss)
	if !ok || c.Obj.Loss.Kind() != losses.Binary {
		return theorems.Assumption("LL-K2 is checked for binary margin losses, got %s", c.Obj.Loss.Name())
	}
	d := c.Obj.Model.Degree()
	if !d.Homogeneous {
		return theorems.Assumption("(A2) homogeneity: model %s is %s", c.Obj.Model, d)
	}
	eval := c.Eval
	if eval == nil {
		eval = EngineEvaluator(c.Obj)
	}
	p := c.Obj.Model.NumParams()
	dir, ref := make([]float64, p), make([]float64, p)
	grader := models.NewGrader(c.Obj.Model)
	data := c.Obj.Data
	logl := make([]float64, data.N)
	grad := make([]float64, p)
	worst, worstDetail := 0.0, ""
	for _, r := range c.Records {
		if r.Theta == nil {
			return theorems.Invalid(errors.New("theorems: log-domain check needs θ in the records (Config.KeepTheta)"))
		}
		logLoss, err := eval(r.Theta, dir)
		if err != nil {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: LogDomainReference, Detail: fmt.Sprintf("step %d: %v", r.Step, err)}
		}
		rho := floats.Norm(r.Theta, 2)
		dn := floats.Norm(dir, 2)
		// Independent recomputation, sample by sample.
		qmin := math.Inf(1)
		for n := 0; n < data.N; n++ {
			q := data.Y[n] * grader.Value(r.Theta, data.Row(n), 0)
			qmin = math.Min(qmin, q)
			logl[n] = m.LogLoss(q)
		}
		refLog := numerics.LogSumExp(logl)
		clear(ref)
		for n := 0; n < data.N; n++ {
			q := data.Y[n] * grader.Grad(r.Theta, data.Row(n), 0, grad)
			// ∇log ℓ_n = −f′(q)·y_n·∇Φ, weighted by p_n = ℓ_n/𝓛.
			floats.AddScaled(ref, -math.Exp(logl[n]-refLog)*m.FPrime(q)*data.Y[n], grad)
		}
		rhoL := math.Pow(rho, d.Order)
		gt := m.G(-logLoss) / rhoL
		gb := qmin / rhoL
		sep := refLog < losses.LogThreshold(m) // γ̃, γ̄ > 0 only once separated
		for _, v := range []struct {
			x        float64
			name     string
			positive bool
		}{{logLoss, "log 𝓛", false}, {dn, "‖∇log 𝓛‖", true}, {gt, "γ̃", sep}, {gb, "γ̄", sep}, {rho, "ρ", true}} {
			if math.IsNaN(v.x) || math.IsInf(v.x, 0) || (v.positive && !(v.x > 0)) {
				return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: LogDomainReference, Detail: fmt.Sprintf(
					"step %d: %s = %v (log 𝓛 = %.6g by the independent recomputation, ρ = %.6g)", r.Step, v.name, v.x, refLog, rho)}
			}
		}
		eL := math.Abs(logLoss-refLog) / math.Max(1, math.Abs(refLog))
		floats.Sub(ref, dir)
		eD := floats.Norm(ref, 2) / dn
		if e := math.Max(eL, eD); e > worst || math.IsNaN(e) {
			worst = e
			worstDetail = fmt.Sprintf("step %d: log 𝓛 %.17g vs %.17g, direction error %.3g", r.Step, logLoss, refLog, eD)
		}
	}
	last := c.Records[len(c.Records)-1]
	if !(last.LogLoss <= c.Target) {
		// A stall is not a failure of the log-domain numerics where LL-K1
		// counts it undecided (the same rule); any other early stop stays a
		// violation.
		if v := stallOutsideAnalysis(c.Stalled, c.Kinked, last, fmt.Sprintf("the %d records agreed to %.3g", len(c.Records), worst)); v != nil {
			return *v
		}
		if v := budgetOutsideAnalysis(c.Stalled, c.Kinked, last, c.Target, nextAlphaBound(c.Records), fmt.Sprintf("α bounded from the records; the %d records agreed to %.3g", len(c.Records), worst)); v != nil {
			return *v
		}
		return theorems.Verdict{Status: theorems.Violated, Statistic: worst, Bound: LogDomainReference, Detail: fmt.Sprintf("the run stopped at log 𝓛 = %.6g, above the target %.6g", last.LogLoss, c.Target)}
	}
	return theorems.Compare(worst, LogDomainReference, fmt.Sprintf("%d records down to log 𝓛 = %.6g (ρ = %.6g, γ̃ = %.6g); worst %s", len(c.Records), last.LogLoss, last.Rho, last.SmoothedMargin, worstDetail))
}

// rateWindowShort says why LL-4.3's fit window (FitRates) does not decide
// yet and what would: the window is the last RateWindow (one e-fold of
// log T) and must start at log log T ≥ rateMinStart, so log T must reach
// e^{rateMinStart+RateWindow} = e³ ≈ 20 (T = Σ η ≥ 5·10⁸ in the summed
// loss's time); and it must hold rateMinPoints records.
func rateWindowShort(start, end float64, points int) string {
	if start < rateMinStart {
		need := math.Exp(rateMinStart + RateWindow) // log T at the end
		have := math.Exp(end)
		return fmt.Sprintf("not asymptotic yet: the fit window is the last e-fold of log T (log log T ∈ [%.3g, %.3g]) and must start at log log T ≥ %g, so log T must reach %.3g (T = Σ η ≥ %.2g) where this run reached log T = %.3g: train about %.2g times longer at the same step size",
			start, end, rateMinStart, need, math.Exp(need), have, math.Exp(need-have))
	}
	return fmt.Sprintf("the fit window log log T ∈ [%.3g, %.3g] holds %d records, fewer than %d: record every step in it", start, end, points, rateMinPoints)
}

package check

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// Row is what the engine measured at one record: the curves a person reads
// next to the verdicts (and the figures of the report).
type Row struct {
	Step int
	// LogLoss is log 𝓛 (𝓛 = Σ_n ℓ_n), Rho = ‖θ‖, Gamma = γ̃ and GammaBar = γ̄
	// (NaN before separation or for a model that is not homogeneous).
	LogLoss, Rho, Gamma, GammaBar float64
	// OneMinusBeta is 1 − cos∠(θ, −∇𝓛); Eps is ε/‖θ̃‖ and Delta δ of the
	// Lemma C.8 / SVM multipliers (kkt.MeasureKKTWindowSVM); NaN where
	// not defined (before separation, a model that is not homogeneous).
	OneMinusBeta, Eps, Delta float64
	// StepResidual is ‖θ(t+1) − θ(t) + η∇𝓛(θ(t))‖/‖η∇𝓛(θ(t))‖ for a record
	// followed by the next step (0 up to rounding for gradient descent), NaN
	// otherwise.
	StepResidual float64
}

// rows measures every record (once), on GOMAXPROCS workers (eachRecord:
// the KKT measurement of each separated record is the cost).
func (r *recorded) rows() []Row {
	if r.measured != nil {
		return r.measured
	}
	idx := make([]int, len(r.tr.Records))
	for i := range idx {
		idx[i] = i
	}
	r.progress.start("measured rows", 0)
	r.measured = eachRecord(r, idx, func(w *recorded, i int) Row { return w.row(i) })
	r.weightsAt(len(r.tr.Records) - 1)
	return r.measured
}

// row measures record i.
func (r *recorded) row(i int) Row {
	rec := r.tr.Records[i]
	row := Row{Step: rec.Step, LogLoss: rec.LogLoss, Rho: rec.Rho, Gamma: math.NaN(), GammaBar: math.NaN(),
		OneMinusBeta: math.NaN(), Eps: math.NaN(), Delta: math.NaN(), StepResidual: math.NaN()}
	if rec.Separated {
		row.Gamma, row.GammaBar = rec.SmoothedMargin, rec.NormalizedMargin
	}
	r.weightsAt(i)
	if !math.IsNaN(r.tr.Degree) && rec.Separated && !r.weightsVary {
		if k, err := kkt.MeasureKKTWindowSVM(r.obj, [][]float64{rec.Theta}, 0); err == nil {
			row.OneMinusBeta, row.Eps, row.Delta = 1-k.Beta, k.Epsilon/k.ThetaTildeNorm, k.Delta
		}
	}
	if i+1 < len(r.tr.Records) && r.tr.Records[i+1].Step == rec.Step+1 && !r.t.Flow() {
		row.StepResidual = r.stepResidual(&rec, &r.tr.Records[i+1])
	}
	return row
}

// stepResidual returns ‖Δθ + η∇𝓛‖/‖η∇𝓛‖ for the step from a to b.
func (r *recorded) stepResidual(a, b *train.Record) float64 {
	res, g, _ := r.residual(a, b)
	return floats.Norm(res, 2) / g
}

// residual returns Δθ + η∇𝓛(θ(t)) for the step from a to b (η from b's
// LogEta), ‖η∇𝓛‖, and θ(t).
func (r *recorded) residual(a, b *train.Record) (res []float64, g float64, theta []float64) {
	ev, err := r.obj.Evaluate(a.Theta, true)
	if err != nil {
		return nil, math.NaN(), nil
	}
	c := math.Exp(b.LogEta + ev.LogObjective)
	res = make([]float64, len(a.Theta))
	floats.SubTo(res, b.Theta, a.Theta)
	floats.AddScaled(res, c, ev.Dir)
	return res, c * floats.Norm(ev.Dir, 2), a.Theta
}

// premiseHint names the likely cause of a failed descent-step identity
// from the residual e = Δθ + η∇𝓛 of the consecutive pairs (a hint only: the
// verdict is the identity's):
//
//   - e parallel to ∇𝓛 (within 1° at every pair): the step is −cη∇𝓛 with
//     c ≠ 1, a step size or reduction other than the recorded one (a mean
//     declared for a summed loss makes c = n); the hint gives the median c;
//   - e parallel to −θ: weight decay (coupled or decoupled), e = −ηλθ; the
//     hint gives the median λ = −⟨e, θ⟩/(η‖θ‖²) on the summed loss;
//   - otherwise a tangential part: Adam's per-coordinate scaling, momentum,
//     mini-batches.
func (r *recorded) premiseHint(tr *train.Trajectory) string {
	var lambdas, factors, lengths []float64
	var blockFactors [][]float64
	var factorSteps, lengthSteps []int
	alongTheta, alongGrad, pairs, perBlock := true, true, 0, true
	within := math.Cos(math.Pi / 180)
	for i := 0; i+1 < len(tr.Records); i++ {
		a, b := &tr.Records[i], &tr.Records[i+1]
		if b.Step != a.Step+1 {
			continue
		}
		res, g, theta := r.residual(a, b)
		if res == nil {
			continue
		}
		e, rho := floats.Norm(res, 2), floats.Norm(theta, 2)
		if e == 0 || rho == 0 || g == 0 {
			continue
		}
		pairs++
		eta := math.Exp(b.LogEta)
		step := make([]float64, len(res)) // Δθ
		floats.SubTo(step, b.Theta, a.Theta)
		const u = 0x1p-53
		if e <= kkt.StepIdentityUlps*u*(rho+floats.Norm(b.Theta, 2)+(4+math.Abs(b.LogEta)+2*math.Abs(a.LogObjective))*g) {
			// A gradient step to rounding (c = 1): it says what changed
			// elsewhere (an lr schedule), not how.
			factors = append(factors, 1)
			factorSteps = append(factorSteps, a.Step)
			lengths = append(lengths, floats.Norm(step, 2)/g)
			lengthSteps = append(lengthSteps, a.Step)
			continue
		}
		// −η∇𝓛 = Δθ − e, of norm g; e ∥ ∇𝓛 when |⟨e, Δθ − e⟩| = ‖e‖g.
		down := make([]float64, len(res))
		floats.SubTo(down, step, res)
		if math.Abs(floats.Dot(res, down))/(e*g) < within {
			alongGrad = false
		} else {
			factors = append(factors, floats.Dot(step, down)/(g*g))
			factorSteps = append(factorSteps, a.Step)
		}
		lengths = append(lengths, floats.Norm(step, 2)/g)
		lengthSteps = append(lengthSteps, a.Step)
		if cs, ok := r.blockFactors(step, down, within); ok {
			blockFactors = append(blockFactors, cs)
		} else {
			perBlock = false
		}
		if -floats.Dot(res, theta)/(e*rho) < within {
			alongTheta = false
		} else {
			lambdas = append(lambdas, -floats.Dot(res, theta)/(eta*rho*rho))
		}
	}
	switch {
	case pairs == 0:
		return ""
	case r.float32Theta():
		return " (every θ in the file is a float32 value: the run trained in float32 and was converted to float64 when saved, and float32's rounding is 10⁹ times float64's; train in float64 from the first step: torch.set_default_dtype(torch.float64) or model.double() with float64 data)"
	case alongGrad && spread(factors) > 1.01:
		lo, hi := extremes(factors)
		return fmt.Sprintf(" (the steps are −cη∇𝓛 with c changing along the run, from %.4g (step %d) to %.4g (step %d): a learning-rate schedule such as StepLR with lr recorded as constant; record optimizer.param_groups[0][\"lr\"] at every record)", factors[lo], factorSteps[lo], factors[hi], factorSteps[hi])
	case alongGrad:
		return fmt.Sprintf(" (the steps are −cη∇𝓛 with c ≈ %.4g: another step size or reduction than the recorded one; a mean declared for a summed loss gives c = 1/n, a sum declared as mean c = n)", numerics.Median(factors))
	case alongTheta:
		return fmt.Sprintf(" (the residual is −ηλθ: weight decay, λ ≈ %.3g on the summed loss)", numerics.Median(lambdas))
	case perBlock && len(blockFactors) > 0:
		return fmt.Sprintf(" (each tensor's step is −c_kη∇_k𝓛 with its own c_k ≈ %.4g: per-layer learning rates (parameter groups); one lr for every parameter is gradient descent)", blockFactors[len(blockFactors)-1])
	case growing(lengths):
		lo, hi := extremes(lengths)
		return fmt.Sprintf(" (the steps are %.3g (step %d) to %.3g (step %d) times ‖η∇𝓛‖ and grow along the run: gradients accumulating across steps — a missing optimizer.zero_grad() — or momentum)", lengths[lo], lengthSteps[lo], lengths[hi], lengthSteps[hi])
	}
	return " (the residual has a part orthogonal to θ and to ∇𝓛: Adam's per-coordinate scaling, momentum, or mini-batches)"
}

// float32Theta reports a file whose θ entries are all float32 values (a
// float32 run converted to float64 when saved).
func (r *recorded) float32Theta() bool {
	for _, th := range r.t.Theta {
		for _, v := range th {
			if float64(float32(v)) != v {
				return false
			}
		}
	}
	return true
}

// blockFactors returns, when the step restricted to every tensor of the
// file is parallel to that tensor's part of −η∇𝓛 (within the cosine
// within), the factors c_k of each; false otherwise.
func (r *recorded) blockFactors(step, down []float64, within float64) ([]float64, bool) {
	var cs []float64
	off := 0
	for _, p := range r.t.Params {
		n := p.Size()
		s, d := step[off:off+n], down[off:off+n]
		off += n
		ns, nd := floats.Norm(s, 2), floats.Norm(d, 2)
		if ns == 0 || nd == 0 {
			continue
		}
		if floats.Dot(s, d)/(ns*nd) < within {
			return nil, false
		}
		cs = append(cs, floats.Dot(s, d)/(nd*nd))
	}
	return cs, off == len(step) && len(cs) > 1
}

// spread returns max/min of positive xs (1 for fewer than two).
func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 1
	}
	lo, hi := extremes(xs)
	return xs[hi] / xs[lo]
}

// extremes returns the indices of the smallest and largest of xs.
func extremes(xs []float64) (lo, hi int) {
	for i, x := range xs {
		if x < xs[lo] {
			lo = i
		}
		if x > xs[hi] {
			hi = i
		}
	}
	return lo, hi
}

// growing reports step lengths (‖Δθ‖/‖η∇𝓛‖, in record order) that grow
// by orders of magnitude along the run: the largest ≥ 100 times the first
// and at least two thirds of the successive pairs longer than the one
// before. Accumulated gradients (a missing zero_grad) sum every past
// gradient while the current one shrinks (the missing-zero_grad scenario:
// 1, 2, 6, 13, 92, 6·10⁴, …); a mini-batch's steps stay within a few times
// ‖η∇𝓛‖ and come and go (0.8–3.3 on the mini-batch scenario).
func growing(xs []float64) bool {
	if len(xs) < 2 {
		return false
	}
	up := 0
	for i := 1; i < len(xs); i++ {
		if xs[i] > xs[i-1] {
			up++
		}
	}
	_, hi := extremes(xs)
	return xs[hi] >= 100*xs[0] && 3*up >= 2*(len(xs)-1)
}

// curves draws the measured rows as the figures of the entries they
// illustrate: the margins for LL-4.1, the KKT residuals for LL-4.4 and
// LL-A9, and the step residual (how far the run is from gradient descent)
// with them.
func (r *recorded) curves() map[string][]theorems.Figure {
	rows := r.rows()
	series := func(name string, y func(Row) float64) theorems.Series {
		s := theorems.Series{Name: name}
		for _, row := range rows {
			// Records are usually spaced geometrically: log10 of the step.
			if v := y(row); !math.IsNaN(v) && !math.IsInf(v, 0) && row.Step > 0 {
				s.X = append(s.X, math.Log10(float64(row.Step)))
				s.Y = append(s.Y, v)
			}
		}
		return s
	}
	// The figures' fonts have no ∇ or 𝓛: the labels spell them out.
	caption := "measured by the engine at every record of " + r.opts.Name
	const x = "log10 step"
	margins := theorems.Figure{Name: "margins", Title: "normalized margins along the run", XLabel: x, YLabel: "margin", Caption: caption,
		Series: []theorems.Series{series("γ̃ (smoothed)", func(w Row) float64 { return w.Gamma }), series("γ̄ = q_min/ρ^L", func(w Row) float64 { return w.GammaBar })}}
	kkt := theorems.Figure{Name: "kkt", Title: "KKT residuals along the run (log10)", XLabel: x, YLabel: "log10", Caption: caption,
		Series: []theorems.Series{
			series("ε/‖θ̃‖", func(w Row) float64 { return math.Log10(w.Eps) }),
			series("1 − β", func(w Row) float64 { return math.Log10(w.OneMinusBeta) }),
			series("δ", func(w Row) float64 { return math.Log10(w.Delta) })}}
	steps := theorems.Figure{Name: "steps", Title: "distance of each recorded step from the gradient step", XLabel: x, YLabel: "log10 |Δθ + η grad L| / |η grad L|", Caption: caption + "; gradient descent stays at the rounding of θ (about 1e-16·ρ/|η grad L|, which grows as the steps shrink); Adam, momentum or weight decay are 1e-2 to 1e6 away",
		Series: []theorems.Series{series("step residual", func(w Row) float64 { return math.Log10(w.StepResidual) })}}
	loss := theorems.Figure{Name: "loss", Title: "loss and norm along the run", XLabel: x, YLabel: "natural log", Caption: caption,
		Series: []theorems.Series{series("log L (summed loss)", func(w Row) float64 { return w.LogLoss }), series("log ρ", func(w Row) float64 { return math.Log(w.Rho) })}}
	return map[string][]theorems.Figure{
		theorems.LL_4_1: {margins, steps},
		theorems.LL_4_2: {margins},
		theorems.LL_4_3: {loss},
		theorems.LL_F:   {margins, steps},
		theorems.LL_4_4: {kkt, steps},
		theorems.LL_A9:  {kkt},
	}
}

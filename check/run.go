package check

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// Options say how to read a run.
type Options struct {
	// Loss is the training loss: exp, logistic or ce; "" takes logistic for
	// one output and ce for several (PyTorch's BCEWithLogitsLoss and
	// CrossEntropyLoss).
	Loss string
	// Name names the run in the case column (the file name).
	Name string
	// Figures asks for the measured curves as figures (for the HTML report),
	// Rows for them as Report.Rows (what the CLI prints); measuring the KKT
	// quantities at every record costs about as much as the claims.
	Figures, Rows bool
	// Only, when not empty, lists the claims to run (catalog IDs); the
	// others are not run and not reported.
	Only []string
	// Progress, when not nil, gets a progress line rewritten in place
	// (carriage returns): the claim being checked and its records done.
	// The CLI gives it standard error when that is a terminal.
	Progress io.Writer
}

// Data returns the dataset a trajectory file carries, with labels for the
// loss: for a binary loss, y ∈ {0, 1} (BCEWithLogitsLoss's targets) is read
// as −1, +1, and ±1 is kept; for ce, class indices 0…K−1.
func Data(t *Trajectory, loss losses.Loss) (*dataset.Dataset, error) {
	if t.X == nil {
		return nil, errors.New("the file has no X and y: give the data (--data FILE)")
	}
	d := &dataset.Dataset{N: t.N, D: t.D, X: append([]float64(nil), t.X...), Y: append([]float64(nil), t.Y...)}
	if loss.Kind() == losses.Binary {
		zeroOne := true
		for _, y := range d.Y {
			if y != 0 && y != 1 {
				zeroOne = false
			}
		}
		if zeroOne {
			for i, y := range d.Y {
				d.Y[i] = 2*y - 1
			}
		}
		for i, y := range d.Y {
			if y != 1 && y != -1 {
				return nil, fmt.Errorf("y: sample %d has label %v; a binary loss (BCEWithLogitsLoss) reads y ∈ {0, 1} or {−1, +1}; for class indices 0…K−1 use CrossEntropyLoss, a net with K outputs and --loss ce", i+1, y)
			}
		}
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// LossFor returns the loss a name (or "" for the default of a model with
// out outputs) stands for: the margin losses of LL, or squared for ZD's
// regression.
func LossFor(name string, out int) (losses.Loss, error) {
	if name == "" {
		name = "logistic"
		if out > 1 {
			name = "ce"
		}
	}
	switch name {
	case "exp", "logistic", "ce", "squared":
		return losses.ByName(name)
	}
	return nil, fmt.Errorf("loss %q: want exp, logistic, ce or squared", name)
}

// Run checks a recorded run against every catalog claim it can speak to
// (doc.go lists them and what each needs) and returns one Result per claim,
// in catalog order, as verify reports them: the pointwise identities with
// one case per record, the trajectory claims with one case (the run). A
// claim whose hypotheses the run does not meet is assumption-failed with the
// reason, its measured statistic kept. The error is for input that cannot be
// checked at all (shapes that do not fit the model or the data).
func Run(t *Trajectory, model models.Model, data *dataset.Dataset, opts Options) ([]theorems.Result, error) {
	rep, err := Check(t, model, data, opts)
	if err != nil {
		return nil, err
	}
	return rep.Results, nil
}

// Report is what Check found: the verdicts, the measured rows and the
// premise of the gradient-descent claims.
type Report struct {
	Results []theorems.Result
	Rows    []Row
	// Premise is the descent-step identity Δθ = −η∇𝓛 on the run's
	// consecutive records (kkt.DescentSteps): holds for full-batch
	// gradient descent on the loss read.
	Premise theorems.Verdict
	// OutputsDiff is ‖Φ_engine − Φ_run‖∞/‖Φ_run‖∞ at the last record when
	// the run recorded its outputs (CompareOutputs), NaN otherwise.
	OutputsDiff float64
}

// Check is Run with the measured rows and the premise.
func Check(t *Trajectory, model models.Model, data *dataset.Dataset, opts Options) (*Report, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if model.NumParams() != t.NumParams() {
		return nil, fmt.Errorf("model %s has %d parameters, the run's tensors %d", model, model.NumParams(), t.NumParams())
	}
	if model.In() != data.D {
		return nil, fmt.Errorf("model %s takes %d inputs, the data have %d features", model, model.In(), data.D)
	}
	if t.Weights != nil && len(t.Weights[0]) != data.N {
		return nil, fmt.Errorf("weights: %d per record for %d samples", len(t.Weights[0]), data.N)
	}
	loss, err := LossFor(opts.Loss, model.Out())
	if err != nil {
		return nil, err
	}
	diff, err := CompareOutputs(t, model)
	if err != nil {
		return nil, err
	}
	obj, err := train.NewObjective(model, loss, data)
	if err != nil {
		return nil, err
	}
	r, err := newRecorded(t, obj, opts)
	if err != nil {
		return nil, err
	}
	if t.Scalars != nil {
		// Scalars that are not the run's (another reduction, loss or run)
		// are bad input, found before any claim reads them.
		if _, err := r.scalarRecords(); err != nil {
			return nil, err
		}
	}
	rep := &Report{Results: r.results(), Premise: r.gd, OutputsDiff: diff}
	if opts.Rows {
		rep.Rows = r.rows()
	}
	return rep, nil
}

// recorded is a run re-measured by the engine: the records as a
// train.Trajectory, and what the premise checks found.
type recorded struct {
	t    *Trajectory
	obj  *train.Objective
	opts Options
	tr   *train.Trajectory
	// gd is the verdict of the descent-step identity (discrete runs): the
	// premise of every gradient-descent claim.
	gd theorems.Verdict
	// weightsVary reports GRW weights that change along the run.
	weightsVary bool
	// biasFreeL is the order L of the model without its bias terms (0 when
	// that is not homogeneous either, or the model has no biases).
	biasFreeL float64
	// biasFreeBlocks are the block degrees k_i of that network (nil
	// unless biasFreeL is set), for LL-B3m.
	biasFreeBlocks []float64
	measured       []Row // rows, once measured
	// fixedWeights are the sample weights set on obj for the whole run
	// (nil: none, or weights that vary), for the workers' objectives.
	fixedWeights []float64
	// weightScale is w_min, the smallest positive declared weight:
	// fixedWeights = weights/w_min (rescaledWeights).
	weightScale float64
	progress    *progress
	// tail is LL-4.4's and LL-A9's measured windows (tail.go).
	tail *tailShare
	// points are LL-B3's and LL-B3m's verdicts per record (pointinputs.go).
	points *pointShare
}

// newRecorded re-measures every record with the engine: log 𝓛, ρ, q_min,
// the margins, and the step sizes on the summed loss (η = lr/n for a mean
// reduction, since ∇(𝓛/n) = ∇𝓛/n). T = Σ η accumulates lr[i]·(step[i+1] −
// step[i]): the step size recorded at a record holds until the next one.
func newRecorded(t *Trajectory, obj *train.Objective, opts Options) (*recorded, error) {
	r := &recorded{t: t, obj: obj, opts: opts, progress: &progress{w: opts.Progress}, tail: &tailShare{}, points: newPointShare(len(t.Theta))}
	if t.Weights != nil {
		for _, w := range t.Weights[1:] {
			for j := range w {
				if w[j] != t.Weights[0][j] {
					r.weightsVary = true
				}
			}
		}
		if !r.weightsVary {
			r.fixedWeights, r.weightScale = rescaledWeights(t.Weights[0])
			if err := obj.SetWeights(r.fixedWeights); err != nil {
				return nil, err
			}
		}
	}
	scale := 1.0
	if t.Reduction == "mean" {
		scale = 1 / float64(obj.Data.N)
	}
	if r.fixedWeights != nil {
		// GD on Σ w_n ℓ_n with step η is GD on Σ (w_n/w_min) ℓ_n with
		// step η·w_min (rescaledWeights).
		scale *= r.weightScale
	}
	deg := obj.Model.Degree()
	L := math.NaN()
	if deg.Homogeneous {
		L = deg.Order
	}
	r.tr = &train.Trajectory{Model: obj.Model.String(), Loss: obj.Loss, Step: t.Rule(), Degree: L}
	logT := math.Inf(-1)
	if !t.Flow() && t.Steps[0] > 0 {
		logT = accumulate(logT, math.Log(t.LR[0]*scale), t.Steps[0])
	}
	for i, theta := range t.Theta {
		logEta := math.Inf(-1)
		if i > 0 {
			if t.Flow() {
				logT = math.Log(t.Time[i])
				logEta = math.Log(t.Time[i] - t.Time[i-1])
			} else {
				logEta = math.Log(t.LR[i-1] * scale)
				logT = accumulate(logT, logEta, t.Steps[i]-t.Steps[i-1])
			}
		} else if t.Flow() && t.Time[0] > 0 {
			logT = math.Log(t.Time[0])
		}
		if r.weightsVary {
			if err := obj.SetWeights(t.Weights[i]); err != nil {
				return nil, err
			}
		}
		ev, err := obj.Evaluate(theta, true)
		if err != nil {
			return nil, fmt.Errorf("record %d (step %d): %w", i, t.Steps[i], err)
		}
		rec := train.Measure(obj, theta, ev, t.Steps[i], logT)
		rec.Theta = theta // read only: no second copy of every θ
		rec.LogEta = logEta
		if r.fixedWeights != nil {
			rec.Weights = append([]float64(nil), r.fixedWeights...)
			// Weighted (A4): 𝓛' < ℓ(b_f) with every weight ≥ 1 puts every
			// q_n above b_f; q_min > 0 is said explicitly all the same.
			rec.Separated = rec.Separated && rec.QMin > 0
		} else if t.Weights != nil {
			rec.Weights = append([]float64(nil), t.Weights[i]...)
		}
		if t.WeightSum != nil && i > 0 {
			// In the time T the records' log T measure (lr·scale for
			// steps, the flow's own time), as train records it.
			s := scale
			if t.Flow() {
				s = 1
			}
			rec.WeightSum = make([]float64, len(t.WeightSum[i]))
			for j, v := range t.WeightSum[i] {
				rec.WeightSum[j] = s * v
			}
		}
		if t.LocalError != nil {
			rec.LocalError = t.LocalError[i]
		}
		r.tr.Records = append(r.tr.Records, rec)
	}
	if r.weightsVary {
		if err := obj.SetWeights(t.Weights[len(t.Weights)-1]); err != nil {
			return nil, err
		}
	}
	r.tr.Steps = t.Steps[len(t.Steps)-1]
	r.tr.Theta = r.tr.Records[len(r.tr.Records)-1].Theta
	if t.Weights != nil {
		r.tr.Weights = t.Weights[len(t.Weights)-1]
		r.tr.Scheme = train.Scheme{Kind: train.RecordedScheme}
		if !r.weightsVary {
			r.tr.Scheme = train.Scheme{Kind: train.StaticScheme} // fixed weights (ZD-T7 decides its limit)
		}
	}
	r.gd = r.descentPremise()
	if spec, _, ok := strings.Cut(obj.Model.String(), "+bias"); ok && !deg.Homogeneous {
		if m, err := models.Parse(spec, obj.Model.In()); err == nil && m.Degree().Homogeneous {
			r.biasFreeL = m.Degree().Order
			r.biasFreeBlocks = m.Degree().Blocks
		}
	}
	return r, nil
}

// accumulate returns log(e^logT + k·e^logEta): T after k more steps of η,
// added one step at a time as train.Run adds them (numerics.LogAddExp), so
// that an exported engine run gets back its own T bit for bit; beyond 10⁶
// steps in one gap, in closed form.
func accumulate(logT, logEta float64, k int) float64 {
	if k > 1_000_000 {
		return numerics.LogAddExp(logT, logEta+math.Log(float64(k)))
	}
	for range k {
		logT = numerics.LogAddExp(logT, logEta)
	}
	return logT
}

// descentPremise checks the descent-step identity Δθ = −η∇𝓛 at every pair
// of consecutive records after t0 (kkt.DescentSteps, to its rounding
// bound): holds when the run is full-batch gradient descent on the loss
// read, violated when some step is something else (Adam, weight decay,
// momentum, mini-batches, a different loss or reduction), inconclusive when
// no pair of consecutive records was separated or the run is a flow.
func (r *recorded) descentPremise() theorems.Verdict {
	if r.t.Flow() {
		return theorems.Undecided("a gradient flow: no discrete steps to check")
	}
	if r.weightsVary {
		return theorems.Assumption("the GRW weights change along the run: the objective is not one fixed 𝓛 = Σ_n ℓ(q_n)")
	}
	v := kkt.DescentSteps(r.obj, r.tr)
	if v.Status == theorems.Violated {
		v.Detail += r.premiseHint(r.tr)
	}
	if v.Status == theorems.Inconclusive {
		// No consecutive records after separation: replay the gaps.
		g := r.replayGaps()
		if g.Status != theorems.Inconclusive {
			return g
		}
		v.Detail = r.pairsBeforeSeparation(v.Detail) + "; " + g.Detail
	}
	return v
}

// Rule returns the step rule the file declares: gradient descent with the
// recorded step sizes (lr; θ(t+1) = θ(t) − lr_t·∇ of the loss and
// reduction read), or a gradient flow (time). The premise
// (kkt.DescentSteps) is what checks the first; nothing in check
// changes what a run declares.
func (t *Trajectory) Rule() train.StepRule {
	if t.Flow() {
		return train.StepRule{Kind: train.FlowStep}
	}
	return train.StepRule{Kind: train.GDStep, LR: math.NaN()}
}

// results runs the claims (claims.go).
func (r *recorded) results() []theorems.Result {
	var run []claim
	var out []theorems.Result
	for _, c := range claims {
		if !c.applies(r) || !r.selected(c.id) {
			continue
		}
		info, ok := theorems.Lookup(c.id)
		if !ok {
			continue
		}
		run = append(run, c)
		out = append(out, theorems.Result{Info: info, Claims: theorems.Summary{ID: c.id}})
	}
	// The claims are independent: on GOMAXPROCS workers when the run is
	// small enough that a worker's objective and KKT matrices (N·P each)
	// may be held several times; one after the other otherwise (a CNN).
	idx := make([]int, len(run))
	for k := range idx {
		idx[k] = k
	}
	each := func(w *recorded, k int) theorems.Summary {
		s := theorems.Summary{ID: run[k].id}
		w.progress.start(run[k].id, 0)
		run[k].run(w, &s)
		return s
	}
	var sums []theorems.Summary
	if r.obj.Data.N*r.obj.Model.NumParams() <= concurrentClaimsSize {
		sums = eachRecord(r, idx, each)
	} else {
		for _, k := range idx {
			sums = append(sums, each(r, k))
		}
	}
	for k := range out {
		out[k].Claims = sums[k]
	}
	r.progress.end()
	if r.opts.Figures && len(out) > 0 {
		figs := r.curves()
		for i := range out {
			out[i].Figures = figs[out[i].ID]
		}
	}
	return out
}

// selected reports whether Options.Only asks for the claim (all when empty).
func (r *recorded) selected(id string) bool {
	return len(r.opts.Only) == 0 || slices.Contains(r.opts.Only, id)
}

// rescaledWeights returns the declared fixed weights w divided by the
// smallest positive one, and that w_min. LL's lemmas for a weighted loss
// 𝓛 = Σ_n w_n ℓ(q_n) are the unweighted proofs with every sample counted
// w_n times, and they use e^{−f(q_n)} ≤ 𝓛 for every n (LL Lemma A.5 (a),
// B.4, hence 5.1 and Thm 4.1), which holds when every w_n ≥ 1: so the run is
// read on 𝓛' = 𝓛/w_min, whose weights are ≥ 1 — the same gradient-descent
// path, with the step η·w_min — and the constant that changes is N, which
// becomes Σ_n w_n/w_min (Lemma A.5's log N; t₀ is 𝓛' < ℓ(b_f)). Constant
// weights become weights 1: the unweighted run, exactly. A weight of 0
// stays 0 (the sample is not in 𝓛).
func rescaledWeights(w []float64) ([]float64, float64) {
	wmin := math.Inf(1)
	for _, v := range w {
		if v > 0 {
			wmin = math.Min(wmin, v)
		}
	}
	if math.IsInf(wmin, 1) {
		return append([]float64(nil), w...), 1
	}
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = v / wmin
	}
	return out, wmin
}

// pairsBeforeSeparation says, when the run has consecutive records but none
// after separation (the premise is checked after t₀), where they are and
// what to record; detail otherwise.
func (r *recorded) pairsBeforeSeparation(detail string) string {
	pairs, t0 := 0, -1
	for i, rec := range r.tr.Records {
		if rec.Separated && t0 < 0 {
			t0 = rec.Step
		}
		if i > 0 && rec.Step == r.tr.Records[i-1].Step+1 && !(rec.Separated && r.tr.Records[i-1].Separated) {
			pairs++
		}
	}
	if pairs == 0 {
		return detail
	}
	if t0 < 0 {
		return fmt.Sprintf("the run's %d pairs of consecutive records are all before separation (no record is separated) and the premise is checked after it: train until the loss is below ℓ(b_f) and record a pair (t, t+1) there", pairs)
	}
	return fmt.Sprintf("the run's %d pairs of consecutive records are all before separation (the first separated record is step %d) and the premise is checked after it: record a pair (t, t+1) after step %d", pairs, t0, t0)
}

// concurrentClaimsSize is the largest N·P (samples × parameters) for which
// the claims run concurrently: 2²⁴ float64s is 128 MB per copy of the P×N
// gradient matrix the KKT claims hold.
const concurrentClaimsSize = 1 << 24

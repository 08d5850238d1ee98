package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/internal/linalg"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
)

// Objective is Σ_n w_n ℓ(Φ(θ; x_n); y_n) + R(θ) over a dataset, evaluated in
// log domain. It owns its buffers: Evaluate does not allocate.
type Objective struct {
	Model models.Model
	Loss  losses.Loss
	Data  *dataset.Dataset
	Reg   Regularizer // nil: none

	// weightFault is a deliberate engine fault for the verification
	// suite's negative controls, planted by PlantFault (package faults):
	// when set, the sample weights given to SetWeights and Reweight are
	// passed through it (on a copy) before they take effect, so a GRW
	// scheme's weights are recorded as the scheme wrote them but applied
	// wrongly; with honestFault it rewrites the caller's slice itself, so
	// the records say what is applied. Unset, it costs one nil check per
	// reweighting.
	weightFault func(w []float64)
	honestFault bool
	faultW      []float64
	givenLogW   []float64 // log of the weights as given, under a weightFault

	logW []float64 // log w_n; nil means w_n = 1

	ws       models.Workspace
	blk      blocks // blocked evaluation of large runs (blocked.go)
	ev       Eval
	gOut     []float64
	cachedθ  []float64
	cacheOK  bool
	cacheGrd bool
	// runθ (set by Run for GD, whose step reads no evaluation) is Run's
	// θ: an evaluation at that very slice keeps it as its cache key, lentθ,
	// instead of copying it into cachedθ. Run changes θ only by the step,
	// drops the key before it (stepping) and copies it at its end
	// (endLending). Saves a copy of θ per step (3.8% of LL's CNN step W5).
	runθ, lentθ []float64
	// evaluations counts the evaluations computed (not read from the
	// cache) and the Reweights: Run compares it around an Observe callback
	// to see whether the callback overwrote the run's evaluation (ev).
	evaluations uint64
	// unsummed marks a cached evaluation whose weighted sums were left for
	// the Reweight that follows (evaluate with sum false): a GRW step sums
	// under the new weights only, so Evaluate must not return it as is.
	unsummed bool
	// givenW holds the weights of the last SetWeights or Reweight when no
	// weight fault is planted (nil otherwise): a static scheme gives the
	// same weights at every step, whose logs are then already in logW.
	givenW []float64

	// share[n] = e^{log w_n + log ℓ_n − m} and shareSum = Σ share, with m the
	// largest exponent: 𝓛 = e^m·shareSum, and the relative weight of sample n
	// is p_n = share[n]/shareSum. Kept from the loss pass so that the
	// gradient pass needs no second exponential per sample.
	share    []float64
	shareSum float64
	// batch is the loss as a losses.Batch (nil for a loss without one: a
	// regression loss): one call per evaluation computes every log ℓ_n,
	// q_n and d log ℓ_n/ds into LogSample, Margins and dlog, on the vector
	// kernels, with work as its scratch. The gradient pass then needs no
	// call per sample: w_n ∂ℓ_n/∂s·e^{−log(𝓛+R)} = dlog·p_n·𝓛/(𝓛+R).
	batch losses.Batch
	dlog  []float64
	work  []float64
}

// Eval is the objective at one θ. Its slices are owned by the Objective and
// valid until the next Evaluate.
type Eval struct {
	// LogLoss is log 𝓛, 𝓛 = Σ_n w_n ℓ_n (the data term).
	LogLoss float64
	// LogObjective is log(𝓛 + R(θ)); it equals LogLoss without a regularizer.
	LogObjective float64
	// Dir is the gradient direction: ∇(𝓛 + R) = e^{LogObjective}·Dir.
	// Filled only when the gradient was asked for.
	Dir []float64
	// LogGradNorm is log ‖∇(𝓛 + R)‖.
	LogGradNorm float64
	// Scores is the n×Out model output.
	Scores []float64
	// LogSample holds log ℓ_n (unweighted).
	LogSample []float64
	// Margins holds q_n: y_n·Φ_n (binary) or s_{n,y} − max_{j≠y} s_{n,j}
	// (multi-class); nil for regression.
	Margins []float64
	// QMin is min_n q_n (NaN for regression).
	QMin float64
}

// ErrNonFinite reports a NaN or infinite value met during evaluation.
var ErrNonFinite = errors.New("train: non-finite value")

// NewObjective checks that the model, loss and data fit together and
// returns the objective with all weights 1 and no regularizer.
func NewObjective(m models.Model, l losses.Loss, d *dataset.Dataset) (*Objective, error) {
	if m == nil || l == nil {
		return nil, errors.New("train: objective needs a model and a loss")
	}
	if m.In() != d.D {
		return nil, fmt.Errorf("train: model %s takes %d inputs, data have %d features", m, m.In(), d.D)
	}
	switch l.Kind() {
	case losses.Binary:
		if m.Out() != 1 {
			return nil, fmt.Errorf("train: loss %s needs one output, model %s has %d", l.Name(), m, m.Out())
		}
		if err := d.ValidateBinary(); err != nil {
			return nil, err
		}
	case losses.MultiClass:
		if m.Out() < 2 {
			return nil, fmt.Errorf("train: loss %s needs ≥ 2 outputs (model spec …/K), model %s has %d", l.Name(), m, m.Out())
		}
		if err := d.ValidateClasses(m.Out()); err != nil {
			return nil, err
		}
	case losses.Regression:
		if m.Out() != 1 {
			return nil, fmt.Errorf("train: loss %s needs one output, model %s has %d", l.Name(), m, m.Out())
		}
		if err := d.Validate(); err != nil {
			return nil, err
		}
	}
	o := &Objective{Model: m, Loss: l, Data: d}
	n, k := d.N, m.Out()
	if b, ok := l.(losses.Batch); ok && l.Kind() != losses.Regression {
		o.batch = b
		o.dlog = make([]float64, n*k)
		o.work = make([]float64, 2*n)
	}
	o.share = make([]float64, n)
	o.ws = o.newWorkspace()
	o.gOut = make([]float64, n*k)
	o.ev.Dir = make([]float64, m.NumParams())
	o.ev.LogSample = make([]float64, n)
	if l.Kind() != losses.Regression {
		o.ev.Margins = make([]float64, n)
	}
	o.cachedθ = make([]float64, m.NumParams())
	return o, nil
}

// SetWeights sets the sample weights w_n ≥ 0 (nil: all 1). The slice is
// copied into log form; a weight of 0 drops the sample.
func (o *Objective) SetWeights(w []float64) error {
	o.cacheOK = false
	if w == nil {
		o.logW, o.givenW = nil, nil
		return nil
	}
	if len(w) != o.Data.N {
		return fmt.Errorf("train: %d weights for %d samples", len(w), o.Data.N)
	}
	return o.setLogWeights(w)
}

// setLogWeights sets logW from the weights w (len N), through the weight
// fault when one is planted. Weights bitwise equal to the last ones given
// (no fault planted) keep their logs: a static GRW scheme costs no
// logarithm per step.
func (o *Objective) setLogWeights(w []float64) error {
	if o.weightFault == nil && o.logW != nil && sameBits(w, o.givenW) {
		return nil
	}
	o.givenW = o.givenW[:0]
	w = o.faulty(w)
	if o.logW == nil {
		o.logW = make([]float64, len(w))
	}
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("train: weight %d is %v; weights must be finite and ≥ 0", i+1, v)
		}
	}
	// One batched call (below 1 ulp, subnormal weights included, where
	// math.Log is wrong on amd64) instead of a call per sample: a
	// scheme's weights move at every step.
	linalg.Log(o.logW, w)
	if o.weightFault == nil {
		o.givenW = append(o.givenW, w...)
	}
	return nil
}

// sameBits reports whether a and b have the same length and bits.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// PlantFault plants the reweighting fault h (nil: none). Its argument's
// type is internal to this module: only the fault registry (package faults)
// can build one, a caller of the engine can pass nil only.
func (o *Objective) PlantFault(h *enginefault.Objective) {
	o.weightFault, o.honestFault, o.givenLogW = nil, false, nil
	if h != nil {
		o.weightFault, o.honestFault = h.Weights, h.Honest
	}
}

// Faulted reports whether a weight fault is planted (PlantFault): such an
// objective is not the engine's production objective, and an outside engine
// cannot be asked to run it.
func (o *Objective) Faulted() bool { return o.weightFault != nil }

// faulty returns w, or, with a weightFault set, the fault's rewrite of a
// copy of w (of w itself under an honest fault).
func (o *Objective) faulty(w []float64) []float64 {
	if o.weightFault == nil {
		return w
	}
	if o.honestFault {
		o.weightFault(w)
		return w
	}
	if len(o.faultW) != len(w) {
		o.faultW = make([]float64, len(w))
	}
	copy(o.faultW, w)
	if len(o.givenLogW) != len(w) {
		o.givenLogW = make([]float64, len(w))
	}
	linalg.Log(o.givenLogW, w)
	o.weightFault(o.faultW)
	return o.faultW
}

// LogWeight returns log w_n, the weight as set (under a weight fault, as
// given, not as applied: the fault is a bug the objective does not report).
func (o *Objective) LogWeight(n int) float64 {
	if o.weightFault != nil && !o.honestFault && o.givenLogW != nil && o.logW != nil {
		return o.givenLogW[n]
	}
	return o.appliedLogWeight(n)
}

// logWeights returns the log weights LogWeight reads, as a slice (nil: all
// 0), for the loops over every sample.
func (o *Objective) logWeights() []float64 {
	if o.weightFault != nil && !o.honestFault && o.givenLogW != nil && o.logW != nil {
		return o.givenLogW
	}
	return o.logW
}

// appliedLogWeight returns the log weight the sums use.
func (o *Objective) appliedLogWeight(n int) float64 {
	if o.logW == nil {
		return 0
	}
	return o.logW[n]
}

// Evaluate computes the objective at θ and, when grad is true, its gradient.
// The result is owned by o. Re-evaluating at a bitwise-equal θ returns the
// cached result.
func (o *Objective) Evaluate(theta []float64, grad bool) (*Eval, error) {
	return o.evaluate(theta, grad, true)
}

// evaluate is Evaluate; with sum false (and grad false) it stops after the
// per-sample log-losses and margins, for a Reweight to sum them under new
// weights: what the weighted sums at the old weights would set, Reweight
// overwrites.
func (o *Objective) evaluate(theta []float64, grad, sum bool) (*Eval, error) {
	if o.cacheOK && !o.unsummed && (o.cacheGrd || !grad) && floats.Same(theta, o.lastθ()) {
		return &o.ev, nil
	}
	o.cacheOK, o.unsummed, o.lentθ = false, false, nil
	o.evaluations++
	ev := &o.ev
	d, k := o.Data, o.Model.Out()
	ev.Scores = o.forward(theta)
	for i, v := range ev.Scores {
		// ReLU maps NaN to 0, so an overflow can surface only here.
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: model output of sample %d is %v (diverged)", ErrNonFinite, i/k+1, v)
		}
	}
	if o.batch != nil {
		o.batch.LogLosses(ev.LogSample, ev.Margins, o.dlog, ev.Scores, d.Y, o.work)
	}
	qmin := math.Inf(1)
	sq, squared := o.Loss.(losses.Squared) // a static call per sample, not an interface call
	for n := 0; n < d.N; n++ {
		var ll float64
		switch {
		case o.batch != nil:
			ll = ev.LogSample[n]
		case squared:
			ll = sq.LogLoss(ev.Scores[n*k:(n+1)*k], d.Y[n])
		default:
			ll = o.Loss.LogLoss(ev.Scores[n*k:(n+1)*k], d.Y[n])
		}
		if math.IsNaN(ll) || math.IsInf(ll, 1) {
			return nil, fmt.Errorf("%w: log-loss of sample %d is %v (scores %v)", ErrNonFinite, n+1, ll, ev.Scores[n*k:(n+1)*k])
		}
		ev.LogSample[n] = ll
		if ev.Margins != nil {
			if o.batch == nil {
				ev.Margins[n] = margin(ev.Scores[n*k:(n+1)*k], d.Y[n], o.Loss.Kind())
			}
			qmin = min(qmin, ev.Margins[n])
		}
	}
	ev.QMin = qmin
	if ev.Margins == nil {
		ev.QMin = math.NaN()
	}
	if !sum && !grad {
		o.keep(theta)
		o.cacheOK, o.cacheGrd, o.unsummed = true, false, true
		return ev, nil
	}
	o.sumLosses(ev)
	r := o.regularize(ev, theta)
	if grad {
		if err := o.gradient(theta, ev, r); err != nil {
			return nil, err
		}
	}
	o.keep(theta)
	o.cacheOK, o.cacheGrd = true, grad
	return ev, nil
}

// keep makes theta the θ of the cached evaluation: lent when it is Run's
// θ (runθ), copied otherwise.
func (o *Objective) keep(theta []float64) {
	if len(theta) > 0 && len(theta) == len(o.runθ) && &theta[0] == &o.runθ[0] {
		o.lentθ = theta
		return
	}
	copy(o.cachedθ, theta)
}

// lastθ returns the θ of the last evaluation (valid while cacheOK).
func (o *Objective) lastθ() []float64 {
	if o.lentθ != nil {
		return o.lentθ
	}
	return o.cachedθ
}

// stepping tells the objective that Run's θ is about to change: an
// evaluation keyed by it (lent) is no longer cached.
func (o *Objective) stepping() {
	if o.lentθ != nil {
		o.cacheOK, o.lentθ = false, nil
	}
}

// endLending ends Run's lending: a lent key is copied, so that the cache
// outlives the run as without lending.
func (o *Objective) endLending() {
	o.runθ = nil
	if o.lentθ != nil {
		copy(o.cachedθ, o.lentθ)
		o.lentθ = nil
	}
}

func (o *Objective) gradient(theta []float64, ev *Eval, r float64) error {
	d, k := o.Data, o.Model.Out()
	if ev.LogObjective == math.Inf(-1) {
		clear(ev.Dir)
		ev.LogGradNorm = math.Inf(-1)
		return nil
	}
	// w_n ℓ_n e^{−log(𝓛+R)} = p_n·𝓛/(𝓛+R), with p_n = share[n]/shareSum
	// (without a regularizer 𝓛/(𝓛+R) = e⁰ = 1 exactly: no call).
	scale := 1 / o.shareSum
	if ev.LogLoss != ev.LogObjective {
		scale = math.Exp(ev.LogLoss-ev.LogObjective) / o.shareSum
	}
	sq, squared := o.Loss.(losses.Squared)
	for n := 0; n < d.N; n++ {
		g := o.gOut[n*k : (n+1)*k]
		lw := o.appliedLogWeight(n)
		switch {
		case lw == math.Inf(-1):
			clear(g)
		case o.batch != nil:
			// ∂ℓ/∂s = ℓ·d log ℓ/ds: times w_n e^{−log(𝓛+R)}.
			for j, v := range o.dlog[n*k : (n+1)*k] {
				g[j] = v * o.share[n] * scale
			}
		case squared:
			sq.ScaledGrad(g, ev.Scores[n*k:(n+1)*k], d.Y[n], ev.LogObjective-lw)
		default:
			// w_n ∂ℓ_n/∂s · e^{−log(𝓛+R)}: each term is in [−1, 1]·|ℓ'/ℓ|.
			o.Loss.ScaledGrad(g, ev.Scores[n*k:(n+1)*k], d.Y[n], ev.LogObjective-lw)
		}
	}
	o.backward(theta, ev.Dir)
	if o.Reg != nil && r > 0 {
		o.Reg.AddGrad(ev.Dir, math.Exp(-ev.LogObjective), theta)
	}
	norm := norm2(ev.Dir)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return fmt.Errorf("%w: gradient direction has norm %v", ErrNonFinite, norm)
	}
	ev.LogGradNorm = ev.LogObjective + math.Log(norm)
	return nil
}

// sumLosses sets LogLoss = log Σ_n w_n ℓ_n = LSE_n(log w_n + log ℓ_n) from
// LogSample and the weights, keeping the shares e^{log w_n + log ℓ_n − m}
// for the gradient pass: two passes (the maximum, then the sum), one
// exponential per sample.
func (o *Objective) sumLosses(ev *Eval) {
	// The exponents log w_n + log ℓ_n, once (the shares' buffer holds them).
	share := o.share[:len(ev.LogSample)]
	m := math.Inf(-1)
	for n, ll := range ev.LogSample {
		share[n] = ll + o.appliedLogWeight(n)
		m = max(m, share[n])
	}
	var s float64
	if !math.IsInf(m, -1) {
		for n, v := range share {
			share[n] = v - m
		}
		linalg.Exp(share, share)
		for _, e := range o.share {
			s += e
		}
	} else {
		clear(o.share)
	}
	o.shareSum = s
	ev.LogLoss = m + math.Log(s)
	if s == 0 {
		ev.LogLoss = math.Inf(-1)
	}
}

// regularize sets LogObjective = log(𝓛 + R(θ)) and returns R(θ).
func (o *Objective) regularize(ev *Eval, theta []float64) float64 {
	ev.LogObjective = ev.LogLoss
	if o.Reg == nil {
		return 0
	}
	r := o.Reg.Value(theta)
	if r > 0 {
		ev.LogObjective = numerics.LogAddExp(ev.LogLoss, math.Log(r))
	}
	return r
}

// norm2 returns ‖x‖₂ as √(Σx²) when that sum is a normal number, and by
// gonum's scaled (slower, overflow-free) algorithm otherwise.
func norm2(x []float64) float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	if ss > 0x1p-1000 && ss < 0x1p1000 {
		return math.Sqrt(ss)
	}
	return floats.Norm(x, 2)
}

// margin returns q = y·s (binary) or s_y − max_{j≠y} s_j (multi-class).
func margin(s []float64, y float64, kind losses.Kind) float64 {
	if kind == losses.Binary {
		return y * s[0]
	}
	c := int(y)
	best := math.Inf(-1)
	for j, v := range s {
		if j != c && v > best {
			best = v
		}
	}
	return s[c] - best
}

// Pattern appends the kink pattern of the last Evaluate: the model's
// (models.Kinked) and, for a margin loss with kinks (losses.Kinked), the side
// of each kink every margin is on. It appends nothing when both are smooth.
func (o *Objective) Pattern(dst []byte) []byte {
	if k, ok := o.Model.(models.Kinked); ok {
		dst = o.modelPattern(k, dst)
	}
	if m, ok := losses.MarginOf(o.Loss); ok {
		if k, ok := m.(losses.Kinked); ok && o.ev.Margins != nil {
			for _, kink := range k.Kinks() {
				for _, q := range o.ev.Margins {
					var side byte
					if q >= kink {
						side = 1
					}
					dst = append(dst, side)
				}
			}
		}
	}
	return dst
}

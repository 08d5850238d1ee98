package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
)

// SGDConfig sets up mini-batch SGD.
type SGDConfig struct {
	// Batch is the number of samples per step (LL App. J: 100); the last
	// batch of an epoch takes what is left.
	Batch int
	// Seed seeds the shuffles: one permutation of the training set per
	// epoch, drawn from a PCG stream of its own.
	Seed uint64
	// LR is the constant step size η, or with LossBased the initial
	// relative rate α(0) (0: LL's 0.1).
	LR float64
	// LossBased selects LL App. K.1's per-epoch loss-based schedule.
	LossBased bool
}

// SGD is mini-batch stochastic gradient descent on the mean loss
//
//	𝓛̄(θ) = (1/N) Σ_n ℓ(Φ(θ; x_n); y_n),
//
// shuffled into batches B each epoch, θ ← θ − η∇𝓛̄_B(θ) with 𝓛̄_B the mean
// over the batch, with a constant η or LL App. K.1's loss-based schedule:
//
//	η(t) = α(t)/𝓛̄(t−1),
//
// where 𝓛̄(t−1) is the training loss at the end of epoch t−1. An epoch is
// run through with α, then 𝓛̄(t) is evaluated on the whole training set:
// if 𝓛̄(t) < 𝓛̄(t−1) the epoch stands and α ← α·r_u for the next; otherwise
// θ is rolled back to the epoch's start, α ← α/r_d and the epoch is run
// again, on the same permutation (so a retry differs only in α).
// r_u = 2^{1/5}, r_d = 2^{1/10}, α(0) = 0.1 as in LL (the constants of
// LossBased, the full-batch version).
//
// Everything is carried in log domain (LL App. K.2, on exact float64
// instead of its float32 forward pass and Q = 30 switch): a batch's loss is
// log 𝓛̄_B = LSE_n log ℓ_n − log |B| and its gradient the direction
// ∇𝓛̄_B/𝓛̄_B, so the loss-based step
//
//	η∇𝓛̄_B = e^{log α + log 𝓛̄_B − log 𝓛̄(t−1)} · ∇𝓛̄_B/𝓛̄_B
//
// stays finite at 𝓛̄ = 1e-800. The sums are serial and the products
// deterministic (package linalg), so a run gives the same bits whatever
// GOMAXPROCS.
//
// An SGD owns its buffers: after NewSGD, Epoch and Evaluate do not
// allocate. Model, Loss and Data must not be changed after NewSGD.
type SGD struct {
	Model models.Model
	Loss  losses.Loss
	Data  *dataset.Dataset
	cfg   SGDConfig

	// LogAlpha is log α for the next epoch (loss-based).
	LogAlpha float64
	// Rejected counts the epochs rolled back (loss-based).
	Rejected int

	rng     *rand.Rand
	perm    []int
	epoch   int
	logMean float64 // log 𝓛̄ at the end of the last epoch; NaN until known

	ws        models.Workspace
	xb, yb    []float64 // the batch's samples, gathered
	gOut, dir []float64
	logL      []float64 // log ℓ_n of the batch
	theta0    []float64 // θ at the epoch's start, for the rollback
}

// EpochStats reports one epoch.
type EpochStats struct {
	// Epoch counts from 1.
	Epoch int
	// LogLoss is log 𝓛̄, the mean training loss at the end of the epoch.
	LogLoss float64
	// LogAlpha is log α of the epoch that stood (loss-based; NaN for a
	// constant step).
	LogAlpha float64
	// Retries counts the runs of this epoch rolled back (loss-based).
	Retries int
	// Steps is the number of batches of the epoch.
	Steps int
}

// Summary is the model on a dataset: the mean loss, the smallest margin
// and the accuracy.
type Summary struct {
	// LogLoss is log 𝓛̄ = log((1/N) Σ_n ℓ_n).
	LogLoss float64
	// QMin is min_n q_n: y·Φ (binary) or s_y − max_{j≠y} s_j
	// (multi-class); NaN for regression.
	QMin float64
	// Correct counts the samples with q_n > 0 (a tie is an error).
	Correct, N int
}

// Accuracy is Correct/N.
func (s Summary) Accuracy() float64 { return float64(s.Correct) / float64(s.N) }

// sgdMaxRetries bounds the rollbacks of one epoch, as lossBasedMaxRetries
// bounds those of one full-batch step: α shrinks by at most 2⁻⁴⁰.
const sgdMaxRetries = lossBasedMaxRetries

// NewSGD checks that the model, loss and data fit together and returns
// SGD at its first epoch.
func NewSGD(m models.Model, l losses.Loss, d *dataset.Dataset, cfg SGDConfig) (*SGD, error) {
	if m == nil || l == nil || d == nil {
		return nil, errors.New("train: SGD needs a model, a loss and data")
	}
	if err := checkFit(m, l, d); err != nil {
		return nil, err
	}
	if cfg.Batch < 1 {
		return nil, fmt.Errorf("train: SGD batch size must be ≥ 1, got %d", cfg.Batch)
	}
	s := &SGD{Model: m, Loss: l, Data: d, cfg: cfg, logMean: math.NaN(), LogAlpha: math.NaN()}
	if cfg.LossBased {
		lb, err := NewLossBased(cfg.LR)
		if err != nil {
			return nil, err
		}
		s.LogAlpha = lb.LogAlpha
	} else if _, err := NewGD(cfg.LR); err != nil {
		return nil, err
	}
	b := min(cfg.Batch, d.N)
	s.rng = rand.New(rand.NewPCG(cfg.Seed, 0x5eed5d))
	s.perm = make([]int, d.N)
	for i := range s.perm {
		s.perm[i] = i
	}
	s.ws = m.NewWorkspace(b)
	s.xb = make([]float64, b*d.D)
	s.yb = make([]float64, b)
	s.gOut = make([]float64, b*m.Out())
	s.logL = make([]float64, b)
	s.dir = make([]float64, m.NumParams())
	s.theta0 = make([]float64, m.NumParams())
	return s, nil
}

// checkFit checks that the model takes the data's samples and the loss
// reads its outputs and targets.
func checkFit(m models.Model, l losses.Loss, d *dataset.Dataset) error {
	if m.In() != d.D {
		return fmt.Errorf("train: model %s takes %d inputs, data have %d features", m, m.In(), d.D)
	}
	switch {
	case l.Kind() == losses.MultiClass && m.Out() < 2:
		return fmt.Errorf("train: loss %s needs ≥ 2 outputs, model %s has %d", l.Name(), m, m.Out())
	case l.Kind() == losses.MultiClass:
		return d.ValidateClasses(m.Out())
	case m.Out() != 1:
		return fmt.Errorf("train: loss %s needs one output, model %s has %d", l.Name(), m, m.Out())
	case l.Kind() == losses.Binary:
		return d.ValidateBinary()
	}
	return d.Validate()
}

// Rule returns SGD with its η (α(0) with the loss-based schedule) and
// batch size.
func (s *SGD) Rule() StepRule {
	lr := s.cfg.LR
	if s.cfg.LossBased && lr == 0 {
		lr = LossBasedAlpha0
	}
	return StepRule{Kind: SGDStep, LR: lr, Batch: s.cfg.Batch}
}

// Epoch runs one epoch from θ (in place) and reports it. With the
// loss-based schedule it returns an error wrapping ErrStalled, θ
// unchanged, when sgdMaxRetries runs all failed to decrease 𝓛̄.
func (s *SGD) Epoch(theta []float64) (EpochStats, error) {
	if len(theta) != s.Model.NumParams() {
		return EpochStats{}, fmt.Errorf("train: θ has %d entries, model %s needs %d", len(theta), s.Model, s.Model.NumParams())
	}
	if err := checkFinite(theta, "θ at the epoch's start"); err != nil {
		return EpochStats{}, err
	}
	s.rng.Shuffle(len(s.perm), func(i, j int) { s.perm[i], s.perm[j] = s.perm[j], s.perm[i] })
	s.epoch++
	st := EpochStats{Epoch: s.epoch, LogAlpha: math.NaN(), Steps: (s.Data.N + s.cfg.Batch - 1) / s.cfg.Batch}
	if !s.cfg.LossBased {
		if err := s.pass(theta, math.Log(s.cfg.LR)); err != nil {
			return st, err
		}
		sum, err := s.Evaluate(theta, s.Data)
		if err != nil {
			return st, err
		}
		s.logMean, st.LogLoss = sum.LogLoss, sum.LogLoss
		return st, nil
	}
	if math.IsNaN(s.logMean) {
		sum, err := s.Evaluate(theta, s.Data)
		if err != nil {
			return st, fmt.Errorf("train: loss at the start: %w", err)
		}
		s.logMean = sum.LogLoss
	}
	if math.IsInf(s.logMean, -1) {
		return st, fmt.Errorf("%w (SGD loss-based schedule: 𝓛̄ = 0 at epoch %d, nothing to decrease)", ErrStalled, s.epoch)
	}
	copy(s.theta0, theta)
	for ; st.Retries < sgdMaxRetries; st.Retries++ {
		// log η = log α − log 𝓛̄(t−1).
		err := s.pass(theta, s.LogAlpha-s.logMean)
		var sum Summary
		if err == nil {
			sum, err = s.Evaluate(theta, s.Data)
		}
		if err != nil && !errors.Is(err, ErrNonFinite) {
			copy(theta, s.theta0)
			return st, err
		}
		// A run that overflows fails like one that raises the loss.
		if err == nil && sum.LogLoss < s.logMean {
			st.LogAlpha, st.LogLoss = s.LogAlpha, sum.LogLoss
			s.logMean = sum.LogLoss
			s.LogAlpha += LossBasedLogUp
			return st, nil
		}
		copy(theta, s.theta0)
		s.LogAlpha -= lossBasedLogDn
		s.Rejected++
	}
	return st, fmt.Errorf("%w (SGD loss-based schedule: %d runs of epoch %d down to α = %.3g at log 𝓛̄ = %.6g)",
		ErrStalled, sgdMaxRetries, s.epoch, math.Exp(s.LogAlpha), s.logMean)
}

// pass runs the batches of the current permutation with step size e^{logEta}.
func (s *SGD) pass(theta []float64, logEta float64) error {
	for lo := 0; lo < s.Data.N; lo += s.cfg.Batch {
		idx := s.perm[lo:min(lo+s.cfg.Batch, s.Data.N)]
		for i, n := range idx {
			copy(s.xb[i*s.Data.D:(i+1)*s.Data.D], s.Data.Row(n))
			s.yb[i] = s.Data.Y[n]
		}
		logLoss, err := s.batchGradient(theta, len(idx))
		if err != nil {
			return err
		}
		// θ ← θ − η∇𝓛̄_B = θ − e^{log η + log 𝓛̄_B}·∇𝓛̄_B/𝓛̄_B.
		c := -math.Exp(logEta + logLoss)
		for j, v := range s.dir {
			theta[j] += c * v
		}
	}
	// A ReLU maps NaN to 0, so a θ that overflowed need not show in the
	// outputs: check it once per pass.
	return checkFinite(theta, "θ after the epoch's steps")
}

// checkFinite returns an error wrapping ErrNonFinite if some entry of v is
// NaN or infinite.
func checkFinite(v []float64, what string) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s: entry %d is %v", ErrNonFinite, what, i, x)
		}
	}
	return nil
}

// batchGradient sets dir = ∇𝓛̄_B/𝓛̄_B on the gathered batch of b samples
// and returns log 𝓛̄_B.
func (s *SGD) batchGradient(theta []float64, b int) (float64, error) {
	k := s.Model.Out()
	scores := s.Model.Forward(s.ws, theta, s.xb[:b*s.Data.D], b)
	for i := 0; i < b; i++ {
		ll, err := s.logLoss(scores[i*k:(i+1)*k], s.yb[i])
		if err != nil {
			return 0, err
		}
		s.logL[i] = ll
	}
	// ∇𝓛̄_B/𝓛̄_B = Σ_n ∂ℓ_n/∂s · e^{−log Σ_n ℓ_n} ∇Φ_n: the 1/|B| cancels.
	logSum := numerics.LogSumExp(s.logL[:b])
	if math.IsInf(logSum, -1) {
		clear(s.dir)
		return logSum, nil
	}
	for i := 0; i < b; i++ {
		s.Loss.ScaledGrad(s.gOut[i*k:(i+1)*k], scores[i*k:(i+1)*k], s.yb[i], logSum)
	}
	s.Model.Backward(s.ws, theta, s.gOut[:b*k], s.dir)
	if err := checkFinite(s.dir, "SGD batch gradient"); err != nil {
		return 0, err
	}
	return logSum - math.Log(float64(b)), nil
}

// logLoss returns log ℓ(s; y), or an error wrapping ErrNonFinite.
func (s *SGD) logLoss(sc []float64, y float64) (float64, error) {
	for _, v := range sc {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: model output %v (diverged)", ErrNonFinite, v)
		}
	}
	ll := s.Loss.LogLoss(sc, y)
	if math.IsNaN(ll) || math.IsInf(ll, 1) {
		return 0, fmt.Errorf("%w: log-loss %v (scores %v)", ErrNonFinite, ll, sc)
	}
	return ll, nil
}

// Evaluate returns the mean loss, the smallest margin and the accuracy of
// θ on d (the training set or a held-out one with the same features),
// forward passes only, in batches of the configured size.
func (s *SGD) Evaluate(theta []float64, d *dataset.Dataset) (Summary, error) {
	if d.D != s.Data.D {
		return Summary{}, fmt.Errorf("train: data have %d features, model %s takes %d", d.D, s.Model, s.Data.D)
	}
	if d.N == 0 {
		return Summary{}, dataset.ErrEmpty
	}
	k := s.Model.Out()
	sum := Summary{QMin: math.Inf(1), N: d.N}
	// Running log Σ ℓ_n: m + log acc with acc = Σ e^{log ℓ_n − m}.
	m, acc := math.Inf(-1), 0.0
	b := s.ws.Cap()
	for lo := 0; lo < d.N; lo += b {
		n := min(b, d.N-lo)
		scores := s.Model.Forward(s.ws, theta, d.X[lo*d.D:(lo+n)*d.D], n)
		for i := 0; i < n; i++ {
			sc, y := scores[i*k:(i+1)*k], d.Y[lo+i]
			ll, err := s.logLoss(sc, y)
			if err != nil {
				return Summary{}, err
			}
			if ll > m {
				acc = acc*math.Exp(m-ll) + 1
				m = ll
			} else if !math.IsInf(ll, -1) {
				acc += math.Exp(ll - m)
			}
			if s.Loss.Kind() == losses.Regression {
				continue
			}
			q := margin(sc, y, s.Loss.Kind())
			sum.QMin = min(sum.QMin, q)
			if q > 0 {
				sum.Correct++
			}
		}
	}
	sum.LogLoss = m + math.Log(acc) - math.Log(float64(d.N))
	if math.IsInf(m, -1) {
		sum.LogLoss = m
	}
	if s.Loss.Kind() == losses.Regression {
		sum.QMin = math.NaN()
	}
	return sum, nil
}

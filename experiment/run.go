package experiment

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// The two schedules of LL's Fig. 1.
const (
	// LossBased is LL App. K.1's per-epoch loss-based schedule,
	// η(t) = α(t)/𝓛̄(t−1), α(0) = Config.LR (0: 0.1).
	LossBased = "loss-based"
	// Constant is the constant step size η = Config.LR (LL Fig. 1: 0.01).
	Constant = "constant"
)

// Config is one training run.
type Config struct {
	// Spec is the model (models.Parse), taking the data's samples; it must
	// be multi-homogeneous.
	Spec     string
	Schedule string
	// LR is α(0) (loss-based, 0 for LL's 0.1) or η (constant).
	LR    float64
	Batch int
	// Seed seeds θ₀ (He-normal) and the shuffles.
	Seed uint64
	// EvalEvery evaluates the margin and accuracies every EvalEvery
	// epochs, besides the epochs that cross a threshold and the last.
	EvalEvery int
	// MaxEpochs and StopLog10Loss end the run: after MaxEpochs epochs, or
	// at the first epoch with log₁₀ 𝓛̄ ≤ StopLog10Loss.
	MaxEpochs     int
	StopLog10Loss float64
}

func (c Config) validate() error {
	switch {
	case c.Schedule != LossBased && c.Schedule != Constant:
		return fmt.Errorf("experiment: schedule %q, want %s or %s", c.Schedule, LossBased, Constant)
	case c.Batch < 1:
		return fmt.Errorf("experiment: batch %d, want ≥ 1", c.Batch)
	case c.EvalEvery < 1:
		return fmt.Errorf("experiment: evaluation every %d epochs, want ≥ 1", c.EvalEvery)
	case c.MaxEpochs < 1:
		return fmt.Errorf("experiment: %d epochs at most, want ≥ 1", c.MaxEpochs)
	case math.IsNaN(c.StopLog10Loss) || c.StopLog10Loss >= 0:
		return fmt.Errorf("experiment: stop at log₁₀ loss %v, want a number < 0", c.StopLog10Loss)
	case math.IsNaN(c.LR) || math.IsInf(c.LR, 0) || c.LR < 0 || (c.Schedule == Constant && c.LR == 0):
		return fmt.Errorf("experiment: learning rate %v, want a finite number > 0", c.LR)
	}
	return nil
}

// Run is one schedule of the experiment: θ, the SGD that trains it and the
// curve of evaluations so far. It is not safe for concurrent use.
type Run struct {
	Config Config
	Model  models.Model
	Theta  []float64
	Curve  []Point
	// Done is set when the run has ended; Reason says why.
	Done   bool
	Reason string

	sgd         *train.SGD
	train, test *dataset.Dataset
	crossed     int // thresholds the curve is below
}

// RunState is what a checkpoint stores of a Run.
type RunState struct {
	Config  Config
	Theta   []float64
	SGD     train.SGDState
	Curve   []Point
	Crossed int
	Done    bool
	Reason  string
}

// NewRun draws θ₀ and evaluates it (the curve's epoch 0).
func NewRun(cfg Config, trainSet, testSet *dataset.Dataset) (*Run, error) {
	r, err := newRun(cfg, trainSet, testSet)
	if err != nil {
		return nil, err
	}
	r.Model.Init(rand.New(rand.NewPCG(cfg.Seed, 0x1417)), r.Theta)
	p, err := r.evaluate(0)
	if err != nil {
		return nil, err
	}
	r.record(p)
	return r, nil
}

func newRun(cfg Config, trainSet, testSet *dataset.Dataset) (*Run, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if trainSet == nil || testSet == nil {
		return nil, errors.New("experiment: a run needs a training and a test set")
	}
	m, err := models.Parse(cfg.Spec, trainSet.D)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if d := m.Degree(); !d.Homogeneous {
		return nil, fmt.Errorf("experiment: model %s is not multi-homogeneous (degree %s): its normalized margin is undefined", m, d)
	}
	if err := testSet.ValidateClasses(m.Out()); err != nil {
		return nil, fmt.Errorf("experiment: test set: %w", err)
	}
	s, err := train.NewSGD(m, losses.CrossEntropy{}, trainSet, train.SGDConfig{
		Batch: cfg.Batch, Seed: cfg.Seed, LR: cfg.LR, LossBased: cfg.Schedule == LossBased,
	})
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	return &Run{Config: cfg, Model: m, Theta: make([]float64, m.NumParams()), sgd: s, train: trainSet, test: testSet}, nil
}

// Resume rebuilds the run stored in st on the same data: the next Epoch
// gives the bits the stopped run would have given.
func Resume(st RunState, trainSet, testSet *dataset.Dataset) (*Run, error) {
	r, err := newRun(st.Config, trainSet, testSet)
	if err != nil {
		return nil, err
	}
	if len(st.Theta) != len(r.Theta) {
		return nil, fmt.Errorf("experiment: stored θ has %d entries, model %s needs %d", len(st.Theta), r.Model, len(r.Theta))
	}
	if err := r.sgd.Restore(st.SGD); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	copy(r.Theta, st.Theta)
	r.Curve = append([]Point(nil), st.Curve...)
	r.crossed, r.Done, r.Reason = st.Crossed, st.Done, st.Reason
	return r, nil
}

// State returns the run's state for a checkpoint (copies).
func (r *Run) State() RunState {
	return RunState{
		Config: r.Config, Theta: append([]float64(nil), r.Theta...), SGD: r.sgd.State(),
		Curve: append([]Point(nil), r.Curve...), Crossed: r.crossed, Done: r.Done, Reason: r.Reason,
	}
}

// Epochs is the number of epochs run.
func (r *Run) Epochs() int { return r.sgd.State().Epoch }

// Epoch trains one epoch and evaluates θ when due: every EvalEvery epochs,
// at an epoch whose loss is first below one of Log10Thresholds, and at the
// last epoch. The run ends (Done) at MaxEpochs, at StopLog10Loss, or when
// the loss-based schedule stalls (𝓛̄ cannot be lowered further in float64),
// after which Epoch does nothing. A run whose θ overflows ends with an
// error wrapping train.ErrNonFinite.
func (r *Run) Epoch() error {
	if r.Done {
		return nil
	}
	st, err := r.sgd.Epoch(r.Theta)
	switch {
	case errors.Is(err, train.ErrStalled):
		// θ is the last epoch's: evaluate it unless the curve has it.
		r.Done, r.Reason = true, fmt.Sprintf("stalled at epoch %d: %v", st.Epoch, err)
		if last := r.Curve[len(r.Curve)-1]; last.Epoch != st.Epoch-1 {
			p, err := r.evaluate(st.Epoch - 1)
			if err != nil {
				return err
			}
			r.record(p)
		}
		return nil
	case err != nil:
		r.Done, r.Reason = true, fmt.Sprintf("diverged at epoch %d", st.Epoch)
		return fmt.Errorf("experiment: %s run, epoch %d: %w", r.Config.Schedule, st.Epoch, err)
	}
	log10 := st.LogLoss / math.Ln10
	switch {
	case log10 <= r.Config.StopLog10Loss:
		r.Done, r.Reason = true, fmt.Sprintf("log₁₀ loss %.2f ≤ %g at epoch %d", log10, r.Config.StopLog10Loss, st.Epoch)
	case st.Epoch >= r.Config.MaxEpochs:
		r.Done, r.Reason = true, fmt.Sprintf("%d epochs", st.Epoch)
	}
	th := Log10Thresholds()
	crosses := r.crossed < len(th) && log10 < th[r.crossed]
	if r.Done || crosses || st.Epoch%r.Config.EvalEvery == 0 {
		p, err := r.evaluate(st.Epoch)
		if err != nil {
			return err
		}
		r.record(p)
	}
	return nil
}

// evaluate reads the loss, the normalized margin and both accuracies of θ.
func (r *Run) evaluate(epoch int) (Point, error) {
	tr, err := r.sgd.Evaluate(r.Theta, r.train)
	if err != nil {
		return Point{}, fmt.Errorf("experiment: evaluating epoch %d on the training set: %w", epoch, err)
	}
	te, err := r.sgd.Evaluate(r.Theta, r.test)
	if err != nil {
		return Point{}, fmt.Errorf("experiment: evaluating epoch %d on the test set: %w", epoch, err)
	}
	gamma, err := NormalizedMargin(r.Model, r.Theta, tr.QMin)
	if err != nil {
		return Point{}, fmt.Errorf("experiment: epoch %d: %w", epoch, err)
	}
	return Point{
		Schedule: r.Config.Schedule, Epoch: epoch, Log10Loss: tr.LogLoss / math.Ln10,
		NormalizedMargin: gamma, TrainAcc: tr.Accuracy(), TestAcc: te.Accuracy(),
	}, nil
}

func (r *Run) record(p Point) {
	r.Curve = append(r.Curve, p)
	th := Log10Thresholds()
	for r.crossed < len(th) && p.Log10Loss < th[r.crossed] {
		r.crossed++
	}
}

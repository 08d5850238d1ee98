package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/train"
)

// errInterrupted ends a run at SIGINT or SIGTERM (see interruptible).
var errInterrupted = errors.New("interrupted")

// traceFile streams train's --trace: the file is created before any work
// (an unwritable path fails at once, not after the run) and every record is
// written and flushed as the run records it, so an interrupted or diverged
// run leaves the steps it took.
type traceFile struct {
	f *os.File
	w *csv.Writer
}

// createTrace creates the trace file at path and writes its header; a nil
// *traceFile (path "") writes nothing.
func createTrace(path string) (*traceFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %v", err)
	}
	t := &traceFile{f: f, w: csv.NewWriter(f)}
	t.w.Write([]string{"step", "log_T", "log_loss", "log_grad_norm", "norm", "q_min", "normalized_margin", "smoothed_margin", "log_eta", "local_error"})
	t.w.Flush()
	if err := t.w.Error(); err != nil {
		f.Close()
		return nil, fmt.Errorf("--trace: %v", err)
	}
	return t, nil
}

func (t *traceFile) write(r *train.Record) error {
	if t == nil {
		return nil
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 17, 64) }
	t.w.Write([]string{strconv.Itoa(r.Step), g(r.LogT), g(r.LogLoss), g(r.LogGradNorm), g(r.Rho), g(r.QMin), g(r.NormalizedMargin), g(r.SmoothedMargin), g(r.LogEta), g(r.LocalError)})
	t.w.Flush()
	return t.w.Error()
}

// close flushes and closes the file; safe to call twice and on nil.
func (t *traceFile) close() error {
	if t == nil || t.f == nil {
		return nil
	}
	t.w.Flush()
	err := t.w.Error()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	t.f = nil
	return err
}

// reduction is --reduce: the objective is the sum Σ ℓ_n (the papers' 𝓛,
// the default) or the mean (1/n)Σ ℓ_n, trained as the sum with weights 1/n.
// Every reported number keeps the papers' meaning: log_loss is log of the
// sum, and separation (LL (B4): 𝓛 < ℓ(b_f)) and the smoothed margin
// γ̃ = g(log 1/𝓛)/ρ^L are computed from the sum, since 𝓛/n < ℓ(b_f) does
// not mean every q_n > b_f.
type reduction struct {
	mean bool
	logN float64
}

func parseReduction(s string, n int, weighted bool) (reduction, error) {
	switch s {
	case "sum":
		return reduction{}, nil
	case "mean":
		if weighted {
			return reduction{}, fmt.Errorf("--reduce mean with --weights: the GRW weights already sum to 1 (the objective is their weighted mean)")
		}
		return reduction{mean: true, logN: math.Log(float64(n))}, nil
	}
	return reduction{}, fmt.Errorf("--reduce must be sum or mean, got %q", s)
}

// meanStep: without --lr, --reduce mean steps by η = 0.1·n, the default
// step of the sum: GD on (1/n)Σℓ with step nη is GD on Σℓ with step η, so
// the default run is the same whichever reduction, and only a given --lr is
// on the mean's scale (where a step size carries over between datasets of
// different sizes). A mean with η = 0.1 is n times slower than the default
// on the sum: on the 1797 digits (standardized, ce) it has q_min = −4.1
// after the default 1000 steps, where the sum separates.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// apply sets the objective's weights for the reduction.
func (r reduction) apply(obj *train.Objective) error {
	if !r.mean {
		return nil
	}
	w := make([]float64, obj.Data.N)
	for i := range w {
		w[i] = 1 / float64(len(w))
	}
	return obj.SetWeights(w)
}

// summed returns the record with the loss-derived numbers of the sum.
func (r reduction) summed(obj *train.Objective, degree float64, rec train.Record) train.Record {
	if !r.mean {
		return rec
	}
	rec.LogLoss += r.logN
	rec.LogObjective += r.logN
	if m, ok := losses.MarginOf(obj.Loss); ok {
		rec.Separated = rec.LogLoss < losses.LogThreshold(m)
		if !math.IsNaN(degree) {
			rec.SmoothedMargin = train.SmoothedMargin(m, rec.LogLoss, rec.Rho, degree)
		}
	}
	return rec
}

// classLabelHint adds to a binary loss's label error the flags that train
// on class labels 0…K−1 (the shared digits and Fashion-MNIST files).
func classLabelHint(err error, data *dataset.Dataset, lossName string) error {
	if lossName == "ce" || !strings.Contains(err.Error(), "binary losses need labels") {
		return err
	}
	k := 0
	for _, y := range data.Y {
		if y < 0 || y != math.Trunc(y) || y > 1e6 {
			return err
		}
		k = max(k, int(y)+1)
	}
	return fmt.Errorf("%v; for class labels 0…%d use --loss ce --model linear/%d (a model with %d outputs)", err, k-1, k, k)
}

// lastState keeps the record and θ of the step at which a run was
// interrupted.
type lastState struct {
	rec   train.Record
	theta []float64
	ok    bool
}

// observeTrain streams each record to the trace and ends the run with
// errInterrupted once ctx is done (SIGINT, SIGTERM); the record of that
// step is kept in last. The check happens at recorded steps: with --record
// K, an interrupt ends the run within K steps.
func observeTrain(ctx context.Context, obj *train.Objective, degree float64, red reduction, trace *traceFile, last *lastState) func(*train.Record, []float64, *train.Eval) error {
	return func(r *train.Record, theta []float64, _ *train.Eval) error {
		rec := red.summed(obj, degree, *r)
		if err := trace.write(&rec); err != nil {
			return fmt.Errorf("--trace: %v", err)
		}
		if ctx.Err() != nil {
			last.rec, last.theta, last.ok = rec, append([]float64(nil), theta...), true
			return errInterrupted
		}
		return nil
	}
}

// interruptedTrajectory is the trajectory up to the interrupted step.
func (last *lastState) trajectory(tr *train.Trajectory) *train.Trajectory {
	tr.Records = append(tr.Records, last.rec)
	tr.Theta, tr.Steps = last.theta, last.rec.Step
	return tr
}

// divergenceHint is the message of a run that diverged: the engine's error
// (which names the step and the value) and what to try, leaving out what is
// already in use. The usual cause on real data is a step far too large for
// the scale of the loss: a summed loss over n samples and raw features
// (pixels 0…255) make the gradient n·‖x‖² times larger than the step size
// was chosen for.
func divergenceHint(err error, lr float64, opt, reduce string, standardized bool) string {
	tries := []string{fmt.Sprintf("a smaller --lr (now %g)", lr)}
	if opt != "lossbased" && opt != "flow" {
		tries = append(tries, "--opt lossbased (LL App. K.1: the step adapts to the loss)")
	}
	if !standardized {
		tries = append(tries, "--standardize (every feature to mean 0, standard deviation 1)")
	}
	if reduce != "mean" {
		tries = append(tries, "--reduce mean (the loss averaged over the samples, not summed)")
	}
	return fmt.Sprintf("training diverged: %v; try %s", err, strings.Join(tries, ", or "))
}

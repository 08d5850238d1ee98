package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/experiment"
)

// experimentRun drives the runs of one experiment command: the loss-based
// run, then (ll-fig1) the constant-rate run for as many epochs.
type experimentRun struct {
	flags       experimentFlags
	key         string
	train, test *dataset.Dataset
	runs        []*experiment.Run
	stderr      io.Writer
	progress    *epochProgress
}

// config is the run of a schedule; the constant run's epoch budget is the
// loss-based run's epochs (LL Fig. 1 compares them over the same epochs).
func (x *experimentRun) config(schedule string) experiment.Config {
	c := experiment.Config{
		Spec: x.flags.model, Schedule: schedule, Batch: x.batch(), Seed: x.flags.seed, EvalEvery: x.flags.evalEvery,
		MaxEpochs: x.flags.maxEpochs, StopLog10Loss: x.flags.stop,
	}
	if schedule == experiment.Constant {
		c.LR = x.flags.lrConst
		c.MaxEpochs = x.runs[0].Epochs()
	}
	return c
}

// batch is --batch, 0 meaning the whole training set (gradient descent).
func (x *experimentRun) batch() int {
	if x.flags.batch == 0 {
		return x.train.N
	}
	return x.flags.batch
}

func (x *experimentRun) schedules() []string {
	if x.flags.name == "ll-fig1" {
		return []string{experiment.LossBased, experiment.Constant}
	}
	return []string{experiment.LossBased}
}

func (x *experimentRun) restore(c experiment.Checkpoint) error {
	if len(c.Runs) > len(x.schedules()) {
		return fmt.Errorf("checkpoint %s holds %d runs, %s has %d", x.flags.check, len(c.Runs), x.flags.name, len(x.schedules()))
	}
	for _, st := range c.Runs {
		r, err := experiment.Resume(st, x.train, x.test)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", x.flags.check, err)
		}
		x.runs = append(x.runs, r)
	}
	return nil
}

// where says how far the runs are.
func (x *experimentRun) where() string {
	var parts []string
	for _, r := range x.runs {
		parts = append(parts, fmt.Sprintf("%s run at epoch %d", r.Config.Schedule, r.Epochs()))
	}
	if len(parts) == 0 {
		return "no epoch run"
	}
	return strings.Join(parts, ", ")
}

func (x *experimentRun) save() error {
	c := experiment.Checkpoint{Key: x.key}
	for _, r := range x.runs {
		c.Runs = append(c.Runs, r.State())
	}
	return experiment.SaveCheckpoint(x.flags.check, c)
}

// run trains every schedule to its end, storing the checkpoint every
// --checkpoint-every epochs; it returns ctx's error when interrupted.
func (x *experimentRun) run(ctx context.Context, afterEpoch func(string, int)) error {
	defer x.progress.done()
	for i, sched := range x.schedules() {
		if i == len(x.runs) {
			r, err := experiment.NewRun(x.config(sched), x.train, x.test)
			if err != nil {
				return err
			}
			x.runs = append(x.runs, r)
		}
		r := x.runs[i]
		for !r.Done {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := r.Epoch(); err != nil {
				return err
			}
			last := r.Curve[len(r.Curve)-1]
			x.progress.show(sched, r.Epochs(), last)
			if x.flags.check != "" && r.Epochs()%x.flags.checkEvery == 0 {
				if err := x.save(); err != nil {
					return err
				}
			}
			if afterEpoch != nil {
				afterEpoch(sched, r.Epochs())
			}
		}
	}
	return nil
}

// epochProgress rewrites one line on a terminal: the run, its epoch and
// its last evaluation.
type epochProgress struct {
	w    io.Writer
	name string
	on   bool
}

func newEpochProgress(w io.Writer, name string) *epochProgress {
	p := &epochProgress{w: w, name: name}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *epochProgress) show(schedule string, epoch int, last experiment.Point) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K%s %s: epoch %d (evaluated at %d: log₁₀ loss %.2f, normalized margin %.3g, train %.1f%%)",
			p.name, schedule, epoch, last.Epoch, last.Log10Loss, last.NormalizedMargin, 100*last.TrainAcc)
	}
}

func (p *epochProgress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

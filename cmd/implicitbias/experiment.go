package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/experiment"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/train"
)

const experimentUsage = `implicitbias experiment ll-table1|ll-fig1 [--preset small] [--data DIR] [--n-train N] [--n-test N] [--image S]
                        [--width-scale S] [--model SPEC] [--batch B] [--seed S] [--max-epochs N] [--stop-log10-loss X]
                        [--eval-every K] [--lr-constant η] [--json] [--report DIR] [--checkpoint FILE] [--checkpoint-every K]

Lyu and Li's experiment on real images (LL App. J, Table 1, Fig. 1) on Fashion-MNIST: LL's CNN
without bias (cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1, its widths times
--width-scale), He-normal θ₀, mini-batch SGD (batch 100) on the cross-entropy in log domain, on a
seeded balanced subset of all 10 classes. See docs/cnn.md, "Reproducing LL's Table 1".

  --preset small   the Table 1 two cores finish (every threshold to 1e-800 in minutes of CPU; docs/cnn.md,
                   "A Table 1 two cores finish"): --image 14 --n-train 50 --n-test 1000 --batch 5
                   --width-scale 0.125 --max-epochs 1000000 --eval-every 1000; flags given beside it win,
                   and the flags it sets are printed on stderr

  ll-table1   the loss-based schedule (LL App. K.1); prints LL's Table 1 rows — the first epochs with
              training loss below 1e-10, 1e-15, 1e-20, 1e-120, and the final epoch — with the epoch,
              log₁₀ loss, normalized margin q_min/Π‖w_i‖, train and test accuracy, beside LL's own
  ll-fig1     ll-table1, then the constant rate --lr-constant for as many epochs (LL Fig. 1), and
              both runs' final normalized margins

The margin and accuracies are evaluated every --eval-every epochs, at every epoch that first falls
below a threshold and at the last one. A run ends at --stop-log10-loss, at --max-epochs, or when
the loss-based schedule stalls (no α lowers the loss in float64).

Flags:
  --data DIR             Fashion-MNIST's gzipped IDX files (default /usr/share/datasets/fashion-mnist,
                         from apt-get install dataset-fashion-mnist)
  --n-train N            training images, a multiple of 10 ≥ 10 (default 1000)
  --n-test N             held-out test images, a multiple of 10 ≥ 10 (default 1000)
  --image S              the images averaged over (28/S)×(28/S) blocks to S×S pixels, S a divisor of 28
                         (default 28)
  --width-scale S        channel and dense widths as a fraction of LL's (default 0.25; S > 0)
  --model SPEC           another multi-homogeneous model on S×S×1 images with 10 outputs (overrides
                         --width-scale)
  --batch B              samples per SGD step (default 100, LL's; 0: the whole training set)
  --seed S               seeds the subsets, θ₀ and the shuffles (default 1)
  --max-epochs N         at most N epochs (default 10000, LL's)
  --stop-log10-loss X    stop at the first epoch with log₁₀ loss ≤ X (default -800)
  --eval-every K         evaluate the margin every K epochs (default 10)
  --lr-constant η        ll-fig1's constant rate (default 0.01, LL's)
  --json                 print {"rows": […], "curve": […], …} instead of the table
  --report DIR           write DIR/index.html with the table and the plots (log₁₀ loss and normalized
                         margin against epochs), DIR/results.json and DIR/figures/
  --checkpoint FILE      store the runs in FILE every --checkpoint-every epochs (default: --eval-every),
                         on SIGINT/SIGTERM and at the end; if FILE exists, resume from it (same flags
                         required): the resumed run gives the same bits as one never stopped; ll-fig1
                         continues an ll-table1 checkpoint of the same flags with the constant run
  --checkpoint-every K   epochs between checkpoints

A progress line is shown on stderr when it is a terminal.

Exit status: 0 when the runs ended (thresholds never reached are shown as not reached), 2 for bad
input (a bad flag, missing data, an unwritable --report or --checkpoint, a checkpoint of other
flags), 4 when the constant-rate run diverged, 130 when interrupted (SIGINT, SIGTERM: the
checkpoint and the partial table or JSON are written).
`

// experimentFlags are the flags of an experiment run.
type experimentFlags struct {
	name                       string
	data, model, report, check string
	nTrain, nTest              int
	image, batch               int
	preset                     string
	widthScale, stop, lrConst  float64
	seed                       uint64
	maxEpochs, evalEvery       int
	checkEvery                 int
	json                       bool
}

// llSpec is LL's CNN without bias (App. J) on side×side images with its
// widths times scale, each at least 1.
func llSpec(side int, scale float64) string {
	w := func(n int) int { return max(1, int(math.Round(float64(n)*scale))) }
	return fmt.Sprintf("cnn2d:%dx%dx1:relu:%dc5-max2,%dc3-max2:%d:10+bias@1", side, side, w(32), w(64), w(1024))
}

func parseExperimentFlags(args []string, stderr io.Writer) (experimentFlags, error) {
	var f experimentFlags
	if len(args) == 0 || (args[0] != "ll-table1" && args[0] != "ll-fig1") {
		got := "nothing"
		if len(args) > 0 {
			got = fmt.Sprintf("%q", args[0])
		}
		return f, fmt.Errorf("want ll-table1 or ll-fig1 first, got %s (see implicitbias help experiment)", got)
	}
	f.name = args[0]
	fs := flag.NewFlagSet("experiment", flag.ContinueOnError)
	fs.StringVar(&f.data, "data", "", "")
	fs.StringVar(&f.model, "model", "", "")
	fs.StringVar(&f.report, "report", "", "")
	fs.StringVar(&f.check, "checkpoint", "", "")
	fs.StringVar(&f.preset, "preset", "", "")
	fs.IntVar(&f.image, "image", 28, "")
	fs.IntVar(&f.batch, "batch", 100, "")
	fs.IntVar(&f.nTrain, "n-train", 1000, "")
	fs.IntVar(&f.nTest, "n-test", 1000, "")
	fs.Float64Var(&f.widthScale, "width-scale", 0.25, "")
	fs.Float64Var(&f.stop, "stop-log10-loss", -800, "")
	fs.Float64Var(&f.lrConst, "lr-constant", 0.01, "")
	fs.Uint64Var(&f.seed, "seed", 1, "")
	fs.IntVar(&f.maxEpochs, "max-epochs", 10000, "")
	fs.IntVar(&f.evalEvery, "eval-every", 10, "")
	fs.IntVar(&f.checkEvery, "checkpoint-every", 0, "")
	fs.BoolVar(&f.json, "json", false, "")
	if !parseFlags(fs, args[1:], stderr) {
		return f, errFlagsReported
	}
	if err := nonEmpty(fs, "data", "model", "report", "checkpoint", "preset"); err != nil {
		return f, err
	}
	if err := applyPreset(fs, &f, stderr); err != nil {
		return f, err
	}
	if f.checkEvery == 0 {
		f.checkEvery = f.evalEvery
	}
	switch {
	case f.nTrain < 10 || f.nTrain%10 != 0:
		return f, fmt.Errorf("--n-train %d: want a multiple of 10 ≥ 10 (LL's experiment needs all 10 classes, balanced)", f.nTrain)
	case f.nTest < 10 || f.nTest%10 != 0:
		return f, fmt.Errorf("--n-test %d: want a multiple of 10 ≥ 10", f.nTest)
	case f.image < 1 || 28%f.image != 0:
		return f, fmt.Errorf("--image %d: want a divisor of 28 (the images are averaged over 28/S × 28/S blocks)", f.image)
	case f.batch < 0:
		return f, fmt.Errorf("--batch %d: want ≥ 1, or 0 for the whole training set", f.batch)
	case !(f.widthScale > 0) || math.IsInf(f.widthScale, 0):
		return f, fmt.Errorf("--width-scale %v: want a finite number > 0", f.widthScale)
	case math.IsNaN(f.stop) || f.stop >= 0:
		return f, fmt.Errorf("--stop-log10-loss %v: want a number < 0", f.stop)
	case !(f.lrConst > 0) || math.IsInf(f.lrConst, 0):
		return f, fmt.Errorf("--lr-constant %v: want a finite number > 0", f.lrConst)
	case f.maxEpochs < 1:
		return f, fmt.Errorf("--max-epochs %d: want ≥ 1", f.maxEpochs)
	case f.evalEvery < 1:
		return f, fmt.Errorf("--eval-every %d: want ≥ 1", f.evalEvery)
	case f.checkEvery < 1:
		return f, fmt.Errorf("--checkpoint-every %d: want ≥ 1", f.checkEvery)
	}
	if f.model == "" {
		f.model = llSpec(f.image, f.widthScale)
	}
	return f, nil
}

// errFlagsReported: parseFlags has printed the problem.
var errFlagsReported = errors.New("flags")

func runExperiment(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runExperimentContext(ctx, args, stdout, stderr, nil)
}

// runExperimentContext is experiment, ended early (exit status 130, with
// the checkpoint and the partial output) when ctx is cancelled; afterEpoch,
// if not nil, is called after each epoch (tests cancel ctx from it).
func runExperimentContext(ctx context.Context, args []string, stdout, stderr io.Writer, afterEpoch func(schedule string, epoch int)) int {
	f, err := parseExperimentFlags(args, stderr)
	if errors.Is(err, errFlagsReported) {
		return exitUsage
	}
	if err != nil {
		return fail(stderr, "experiment", err)
	}
	if err := checkExperimentModel(f.model, f.image); err != nil {
		return fail(stderr, "experiment", err)
	}
	// Outputs first: an unwritable one is found before the run, not after.
	if f.report != "" {
		if err := report.CheckDir(f.report); err != nil {
			return fail(stderr, "experiment", fmt.Errorf("--report %s is not writable: %v", f.report, err))
		}
	}
	var resume *experiment.Checkpoint
	if f.check != "" {
		c, err := experiment.LoadCheckpoint(f.check)
		switch {
		case err == nil:
			resume = &c
		case !errors.Is(err, fs.ErrNotExist):
			return fail(stderr, "experiment", err)
		}
		if err := checkWritableDir(filepath.Dir(f.check)); err != nil {
			return fail(stderr, "experiment", fmt.Errorf("--checkpoint %s: its directory is not writable: %v", f.check, err))
		}
	}
	trainSet, testSet, err := loadFashion(f)
	if err != nil {
		return fail(stderr, "experiment", err)
	}
	key := experimentKey(f, trainSet, testSet)
	if resume != nil && resume.Key != key {
		// ll-fig1 continues an ll-table1 checkpoint of the same flags: its
		// loss-based run is that run, and the constant run follows it.
		t := f
		t.name = "ll-table1"
		if f.name != "ll-fig1" || resume.Key != experimentKey(t, trainSet, testSet) {
			return fail(stderr, "experiment", fmt.Errorf("checkpoint %s was made by another run (%s); give that run's flags, or remove the file", f.check, resume.Key))
		}
		resume.Key = key
	}
	x := &experimentRun{flags: f, key: key, train: trainSet, test: testSet, stderr: stderr, progress: newEpochProgress(stderr, f.name)}
	if resume != nil {
		if err := x.restore(*resume); err != nil {
			return fail(stderr, "experiment", err)
		}
		fmt.Fprintf(stderr, "implicitbias experiment: resuming from %s (%s)\n", f.check, x.where())
	}
	code := exitOK
	start := time.Now()
	runErr := x.run(ctx, afterEpoch)
	switch {
	case errors.Is(runErr, context.Canceled):
		code = exitInterrupted
		fmt.Fprintf(stderr, "implicitbias experiment: interrupted (%s)\n", x.where())
	case errors.Is(runErr, train.ErrNonFinite):
		code = exitDiverged
		fmt.Fprintf(stderr, "implicitbias experiment: %v (lower --lr-constant)\n", runErr)
	case runErr != nil:
		return fail(stderr, "experiment", runErr)
	}
	// The time goes to stderr: stdout is the same whatever the machine.
	fmt.Fprintf(stderr, "implicitbias experiment: %s after %s\n", x.where(), time.Since(start).Round(time.Second))
	if f.check != "" {
		if err := x.save(); err != nil {
			fmt.Fprintf(stderr, "implicitbias experiment: %v\n", err)
			code = max(code, exitUsage)
		}
	}
	res := x.results(code == exitInterrupted)
	if f.json {
		if err := writeJSON(stdout, res); err != nil {
			return fail(stderr, "experiment", err)
		}
	} else {
		writeExperimentTable(stdout, res)
	}
	if f.report != "" {
		if err := writeExperimentReport(f.report, res); err != nil {
			fmt.Fprintf(stderr, "implicitbias experiment: --report: %v\n", err)
			code = max(code, exitUsage)
		}
	}
	return code
}

// checkExperimentModel checks, before the data are read, that spec takes
// Fashion-MNIST's images at side×side pixels, has 10 outputs and a
// normalized margin.
func checkExperimentModel(spec string, side int) error {
	m, err := models.Parse(spec, side*side)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	if m.Out() != 10 {
		return fmt.Errorf("--model %s gives %d scores per image, want 10 (the classes of Fashion-MNIST)", m, m.Out())
	}
	if d := m.Degree(); !d.Homogeneous {
		return fmt.Errorf("--model %s is not multi-homogeneous (degree %s): its normalized margin is undefined", m, d)
	}
	return nil
}

// checkWritableDir creates and removes a file in dir.
func checkWritableDir(dir string) error {
	tmp, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// loadFashion takes the seeded balanced subsets: n/10 images of each class
// from the training split and from the test split.
func loadFashion(f experimentFlags) (trainSet, testSet *dataset.Dataset, err error) {
	classes := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, s := range []struct {
		split string
		n     int
		dst   **dataset.Dataset
	}{{"train", f.nTrain, &trainSet}, {"test", f.nTest, &testSet}} {
		d, err := dataset.FashionMNIST(f.data, s.split)
		if err != nil {
			return nil, nil, err
		}
		if *s.dst, err = dataset.Balanced(d, classes, s.n/10, f.seed); err != nil {
			return nil, nil, fmt.Errorf("Fashion-MNIST %s: %w", s.split, err)
		}
		if f.image != 28 {
			if *s.dst, err = experiment.Downsample(*s.dst, 28, 28/f.image); err != nil {
				return nil, nil, fmt.Errorf("Fashion-MNIST %s: %w", s.split, err)
			}
		}
	}
	return trainSet, testSet, nil
}

// experimentKey names everything a run's bits depend on besides its
// configs: the command, the subsets (their size and a hash of their
// bytes) and the flags, so that a checkpoint is resumed only by the run
// that wrote it.
func experimentKey(f experimentFlags, trainSet, testSet *dataset.Dataset) string {
	h := fnv.New64a()
	var b [8]byte
	for _, d := range []*dataset.Dataset{trainSet, testSet} {
		for _, v := range append(append([]float64(nil), d.X...), d.Y...) {
			u := math.Float64bits(v)
			for i := range b {
				b[i] = byte(u >> (8 * i))
			}
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("%s model %s, %d/%d images of %d×%d, batch %d, seed %d, max %d epochs, stop %g, eval every %d, constant η %g, data %016x",
		f.name, f.model, f.nTrain, f.nTest, f.image, f.image, f.batch, f.seed, f.maxEpochs, f.stop, f.evalEvery, f.lrConst, h.Sum64())
}

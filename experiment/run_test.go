package experiment

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
)

// tinySpec is a bias-free 2-D CNN on 8×8 images (bias in layer 1 only, as
// LL's), small enough that an epoch costs microseconds.
const tinySpec = "cnn2d:8x8x1:relu:3c3-max2,4c3-max2:8:3+bias@1"

// tinyImages draws n 8×8 images per class of 3 classes: a bright 3×3 patch
// at a class's own corner on uniform noise of amplitude 0.3, pixels in
// [0, 1] as Fashion-MNIST's.
func tinyImages(n int, seed uint64) *dataset.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	corners := [3][2]int{{0, 0}, {0, 5}, {5, 2}}
	d := &dataset.Dataset{N: 3 * n, D: 64, X: make([]float64, 3*n*64), Y: make([]float64, 3*n)}
	for i := range d.N {
		c := i % 3
		d.Y[i] = float64(c)
		x := d.X[i*64 : (i+1)*64]
		for j := range x {
			x[j] = 0.3 * r.Float64()
		}
		for a := range 3 {
			for b := range 3 {
				x[(corners[c][0]+a)*8+corners[c][1]+b] = 0.7 + 0.3*r.Float64()
			}
		}
	}
	return d
}

func tinyConfig(schedule string) Config {
	lr := 0.0
	if schedule == Constant {
		lr = 0.01
	}
	return Config{Spec: tinySpec, Schedule: schedule, LR: lr, Batch: 10, Seed: 3, EvalEvery: 5, MaxEpochs: 60, StopLog10Loss: -800}
}

func runEpochs(t *testing.T, r *Run, n int) {
	t.Helper()
	for range n {
		if err := r.Epoch(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResumeBitIdentical: 6 epochs straight and 3 + checkpoint file + 3
// resumed give the same θ bits, SGD state and curve, for both schedules
// (with EvalEvery 2 so that evaluations fall on both sides of the cut).
// Fault caught: a resumed run that redraws the permutation of epoch 1, or
// forgets α or 𝓛̄(t−1), differs from the fourth epoch on.
func TestResumeBitIdentical(t *testing.T) {
	trainSet, testSet := tinyImages(10, 1), tinyImages(5, 2)
	for _, sched := range []string{LossBased, Constant} {
		t.Run(sched, func(t *testing.T) {
			cfg := tinyConfig(sched)
			cfg.EvalEvery = 2
			straight, err := NewRun(cfg, trainSet, testSet)
			if err != nil {
				t.Fatal(err)
			}
			runEpochs(t, straight, 6)

			first, err := NewRun(cfg, trainSet, testSet)
			if err != nil {
				t.Fatal(err)
			}
			runEpochs(t, first, 3)
			path := filepath.Join(t.TempDir(), "ck")
			if err := SaveCheckpoint(path, Checkpoint{Key: "k", Runs: []RunState{first.State()}}); err != nil {
				t.Fatal(err)
			}
			c, err := LoadCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			resumed, err := Resume(c.Runs[0], trainSet, testSet)
			if err != nil {
				t.Fatal(err)
			}
			runEpochs(t, resumed, 3)

			for i, v := range straight.Theta {
				if math.Float64bits(v) != math.Float64bits(resumed.Theta[i]) {
					t.Fatalf("θ[%d]: straight %v, resumed %v", i, v, resumed.Theta[i])
				}
			}
			a, b := straight.State(), resumed.State()
			if a.SGD.Epoch != 6 || !sameBits(a.SGD.LogAlpha, b.SGD.LogAlpha) || !sameBits(a.SGD.LogLoss, b.SGD.LogLoss) || a.SGD.Rejected != b.SGD.Rejected || a.SGD.Epoch != b.SGD.Epoch {
				t.Fatalf("SGD state: straight %+v, resumed %+v", a.SGD, b.SGD)
			}
			if !reflect.DeepEqual(a.Curve, b.Curve) {
				t.Fatalf("curves differ:\nstraight %+v\nresumed  %+v", a.Curve, b.Curve)
			}
			// The control: a run "resumed" from θ alone (a fresh SGD) differs,
			// so the comparison above can fail.
			naive, err := NewRun(cfg, trainSet, testSet)
			if err != nil {
				t.Fatal(err)
			}
			copy(naive.Theta, first.Theta)
			runEpochs(t, naive, 3)
			if reflect.DeepEqual(naive.Theta, straight.Theta) {
				t.Fatal("control: resuming from θ alone gave the straight run's bits; the test cannot tell a lost state")
			}
		})
	}
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestRowsAtFirstEpochBelow: a run evaluated every 25 epochs picks the
// same Table 1 rows as the same run evaluated every epoch (the runner
// evaluates each epoch that first crosses a threshold), and each row's
// epoch is the first epoch of the dense curve below its threshold. Fault
// caught: rows read only at the periodic evaluations land up to 24 epochs
// late.
func TestRowsAtFirstEpochBelow(t *testing.T) {
	trainSet, testSet := tinyImages(10, 1), tinyImages(5, 2)
	cfg := tinyConfig(LossBased)
	cfg.MaxEpochs = 80
	cfg.EvalEvery = 1
	dense, err := NewRun(cfg, trainSet, testSet)
	if err != nil {
		t.Fatal(err)
	}
	runEpochs(t, dense, cfg.MaxEpochs)
	cfg.EvalEvery = 25
	sparse, err := NewRun(cfg, trainSet, testSet)
	if err != nil {
		t.Fatal(err)
	}
	runEpochs(t, sparse, cfg.MaxEpochs)
	dr, sr := Rows(dense.Curve), Rows(sparse.Curve)
	if !reflect.DeepEqual(dr, sr) {
		t.Fatalf("rows differ:\ndense  %+v\nsparse %+v", dr, sr)
	}
	for _, r := range dr[:4] {
		if r.Missing {
			t.Fatalf("%s: the tiny run never got below 1e%g in %d epochs (curve end %+v)", r.Model, r.Log10Threshold, cfg.MaxEpochs, dense.Curve[len(dense.Curve)-1])
		}
		before := dense.Curve[r.Epoch-1] // dense.Curve[k] is epoch k
		if before.Log10Loss < r.Log10Threshold || r.Log10Loss >= r.Log10Threshold {
			t.Errorf("%s: epoch %d at %.3f, epoch before at %.3f: not the first below %g", r.Model, r.Epoch, r.Log10Loss, before.Log10Loss, r.Log10Threshold)
		}
	}
	if len(sparse.Curve) >= len(dense.Curve) {
		t.Errorf("sparse run evaluated %d times, dense %d: the sparse run is not sparse", len(sparse.Curve), len(dense.Curve))
	}
	// The tiny run reaches 1e-800 within the 80 epochs: the last
	// evaluation is the epoch it stopped at.
	if last := sparse.Curve[len(sparse.Curve)-1]; last.Epoch != sparse.Epochs() || !sparse.Done || last.Log10Loss > cfg.StopLog10Loss {
		t.Errorf("last evaluation at epoch %d (log₁₀ loss %.2f), run at %d epochs (done %v: %s)", last.Epoch, last.Log10Loss, sparse.Epochs(), sparse.Done, sparse.Reason)
	}
}

// TestStopLog10Loss: the run ends at the first epoch at or below the stop
// loss, evaluated there.
func TestStopLog10Loss(t *testing.T) {
	trainSet, testSet := tinyImages(10, 1), tinyImages(5, 2)
	cfg := tinyConfig(LossBased)
	cfg.StopLog10Loss = -5
	r, err := NewRun(cfg, trainSet, testSet)
	if err != nil {
		t.Fatal(err)
	}
	for !r.Done {
		if err := r.Epoch(); err != nil {
			t.Fatal(err)
		}
	}
	last := r.Curve[len(r.Curve)-1]
	if last.Log10Loss > -5 || last.Epoch != r.Epochs() || last.Epoch >= cfg.MaxEpochs {
		t.Fatalf("ended at epoch %d, log₁₀ loss %.3f (%s), want the first epoch ≤ −5 before %d", last.Epoch, last.Log10Loss, r.Reason, cfg.MaxEpochs)
	}
	if err := r.Epoch(); err != nil || r.Epochs() != last.Epoch {
		t.Fatalf("an ended run trained on: %v, %d epochs", err, r.Epochs())
	}
}

func TestConfigErrors(t *testing.T) {
	trainSet, testSet := tinyImages(2, 1), tinyImages(2, 2)
	for name, mutate := range map[string]func(*Config){
		"schedule":        func(c *Config) { c.Schedule = "adam" },
		"batch":           func(c *Config) { c.Batch = 0 },
		"eval":            func(c *Config) { c.EvalEvery = 0 },
		"epochs":          func(c *Config) { c.MaxEpochs = 0 },
		"stop≥0":          func(c *Config) { c.StopLog10Loss = 1 },
		"stop NaN":        func(c *Config) { c.StopLog10Loss = math.NaN() },
		"constant lr 0":   func(c *Config) { c.Schedule, c.LR = Constant, 0 },
		"lr Inf":          func(c *Config) { c.LR = math.Inf(1) },
		"spec":            func(c *Config) { c.Spec = "cnn2d:9x9x1:relu:2c3:3" },
		"not homogeneous": func(c *Config) { c.Spec = "cnn2d:8x8x1:relu:3c3-max2,4c3-max2:8:3+bias" },
	} {
		cfg := tinyConfig(LossBased)
		mutate(&cfg)
		if _, err := NewRun(cfg, trainSet, testSet); err == nil {
			t.Errorf("%s: no error for %+v", name, cfg)
		}
	}
}

// TestStalledRunEnds: on data no θ can fit (each image twice, with two
// labels) the loss-based schedule stalls at the loss's floor; the run ends
// there with θ of the last epoch that stood, evaluated, and says so.
func TestStalledRunEnds(t *testing.T) {
	d := tinyImages(2, 1)
	twice := &dataset.Dataset{N: 2 * d.N, D: d.D, X: append(append([]float64(nil), d.X...), d.X...)}
	twice.Y = append(append([]float64(nil), d.Y...), d.Y...)
	for i := d.N; i < twice.N; i++ {
		twice.Y[i] = float64((int(twice.Y[i]) + 1) % 3)
	}
	cfg := tinyConfig(LossBased)
	cfg.MaxEpochs = 2000
	r, err := NewRun(cfg, twice, d)
	if err != nil {
		t.Fatal(err)
	}
	for !r.Done {
		if err := r.Epoch(); err != nil {
			t.Fatal(err)
		}
	}
	last := r.Curve[len(r.Curve)-1]
	if !strings.Contains(r.Reason, "stalled") || last.Epoch != r.Epochs()-1 || last.TrainAcc > 0.5 {
		t.Fatalf("run ended at epoch %d (%s), last evaluation %+v", r.Epochs(), r.Reason, last)
	}
	// Half the samples at least are misclassified, so no margin is
	// positive; a pair's two losses add up to 2 log 2 at least (equal
	// scores for its two labels), so 𝓛̄ ≥ log 2, up to rounding (1e-9).
	if last.NormalizedMargin > 0 || last.Log10Loss < math.Log10(math.Log(2))-1e-9 {
		t.Errorf("stalled at %+v, want the floor of contradictory labels", last)
	}
}

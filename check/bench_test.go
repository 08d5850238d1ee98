package check

import (
	"math/rand/v2"
	"os"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// The scale targets of docs/check.md ("Cost"), as benchmarks (never timed
// tests): go test ./check -run '^$' -bench Check -benchtime 1x. Each builds
// its run with the engine (not timed) and times Check with the measured
// rows, as the CLI runs it.

// benchRun trains spec on data by gradient descent for steps steps and
// records θ at (t, t+1) every `every` steps and at the last.
func benchRun(b *testing.B, spec string, data *dataset.Dataset, loss losses.Loss, lr float64, steps, every int) (*Trajectory, models.Model) {
	b.Helper()
	model, err := models.Parse(spec, data.D)
	if err != nil {
		b.Fatal(err)
	}
	obj, err := train.NewObjective(model, loss, data)
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(1, 0)), theta)
	gd, err := train.NewOptimizer("gd", train.OptimizerOptions{LR: lr})
	if err != nil {
		b.Fatal(err)
	}
	tr, err := train.Run(obj, gd, theta, train.Config{Steps: steps, Observe: func(r *train.Record, th []float64, _ *train.Eval) error {
		if r.Step%every <= 1 || r.Step == steps {
			r.Theta = append([]float64(nil), th...)
		}
		return nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	kept := tr.Records[:0]
	for _, r := range tr.Records {
		if r.Theta != nil {
			kept = append(kept, r)
		}
	}
	tr.Records = kept
	t, err := FromTrain(tr, model, data)
	if err != nil {
		b.Fatal(err)
	}
	return t, model
}

func benchCheck(b *testing.B, t *Trajectory, model models.Model, data *dataset.Dataset, loss string) {
	b.Helper()
	b.ResetTimer()
	for range b.N {
		start, cpu0, busy0 := time.Now(), processCPU(), busyCPU()
		if _, err := Check(t, model, data, Options{Name: "bench", Loss: loss, Rows: true}); err != nil {
			b.Fatal(err)
		}
		reportBusy(b, cpu0, busy0, time.Since(start).Seconds())
	}
}

// reportBusy reports, for a call that took wall seconds and began at
// CPU readings cpu0 (processCPU) and busy0 (busyCPU): cpu-s, the process's
// CPU seconds over the call (user + system); busy-Ps, the mean number of
// Go's Ps running goroutines (runtime/metrics' /cpu/classes, which counts a
// P as busy while its thread waits for a core on a shared machine) — what
// two idle cores would run in parallel; and idle-s = cpu-s/busy-Ps, the
// call's wall time estimated on idle cores.
func reportBusy(b *testing.B, cpu0, busy0, wall float64) {
	cpu, ps := processCPU()-cpu0, (busyCPU()-busy0)/wall
	b.ReportMetric(cpu, "cpu-s")
	b.ReportMetric(ps, "busy-Ps")
	b.ReportMetric(cpu/ps, "idle-s")
}

// BenchmarkCheckMLP32: a bias-free 2-layer ReLU MLP of width 32 on 360
// samples of 64 features (2 080 parameters), 100 records (50 pairs) of a
// 5 000-step GD run. Target: ≤ 10 s on 2 cores.
func BenchmarkCheckMLP32(b *testing.B) {
	data := twoClasses(3, 3, 360, 64, 0.2, 1)
	t, model := benchRun(b, "mlp:relu:2x32", data, losses.NewBinary(losses.Logistic{}), 0.01, 4950, 100)
	benchCheck(b, t, model, data, "")
}

// BenchmarkCheckMLP256: 64-256-1 (16 640 parameters), 100 samples, 9
// records. Target: under a minute and 1 GB.
func BenchmarkCheckMLP256(b *testing.B) {
	data := twoClasses(4, 4, 100, 64, 0.2, 1)
	t, model := benchRun(b, "mlp:relu:2x256", data, losses.NewBinary(losses.Logistic{}), 0.01, 2000, 500)
	benchCheck(b, t, model, data, "")
}

// BenchmarkCheckCNN: the shape of LL's CNN (1.6·10⁶ parameters) on 1 000
// random 28×28 images of 10 classes, 20 consecutive records. Target: ≤ 5
// min and 2 GB. Building the run takes minutes.
func BenchmarkCheckCNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	data := &dataset.Dataset{N: 1000, D: 784}
	for i := range data.N {
		for range data.D {
			data.X = append(data.X, rng.Float64())
		}
		data.Y = append(data.Y, float64(i%10))
	}
	t, model := benchRun(b, "cnn2d:28x28x1:relu:32c5-valid-max2,64c3-valid-max2:1024:10+bias@1", data, losses.CrossEntropy{}, 1e-5, 19, 1)
	benchCheck(b, t, model, data, "ce")
}

// BenchmarkCheckFile checks the run recorded in the file
// $IMPLICITBIAS_CHECK_RUN as the CLI does (read, mapped, permuted in place,
// the measured rows, cpu-s and busy-Ps as benchCheck); skipped without it.
// It is how the full-width CNN of docs/check.md's "Measured cost" is timed.
func BenchmarkCheckFile(b *testing.B) {
	path := os.Getenv("IMPLICITBIAS_CHECK_RUN")
	if path == "" {
		b.Skip("set IMPLICITBIAS_CHECK_RUN to a recorded run (.npz)")
	}
	for range b.N {
		start, cpu0, busy0 := time.Now(), processCPU(), busyCPU()
		t, err := ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		m, err := MapModel(t)
		if err != nil {
			b.Fatal(err)
		}
		t = m.Move(t)
		model, err := models.Parse(m.Spec, m.In)
		if err != nil {
			b.Fatal(err)
		}
		loss, err := LossFor("", model.Out())
		if err != nil {
			b.Fatal(err)
		}
		data, err := Data(t, loss)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Check(t, model, data, Options{Name: "bench", Rows: true}); err != nil {
			b.Fatal(err)
		}
		reportBusy(b, cpu0, busy0, time.Since(start).Seconds())
	}
}

// busyCPU returns the CPU seconds Go's runtime accounts to its Ps so far,
// idle Ps excepted (runtime/metrics, an estimate from the Ps' states).
func busyCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64() - s[1].Value.Float64()
}

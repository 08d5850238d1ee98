package train

import (
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// tinyProblems are the sizes most property cases have (n ≤ 30 samples,
// d ≤ 10 features), with each loss the suite trains.
var tinyProblems = []struct {
	name, spec string
	loss       losses.Loss
	classes    int // 0: binary labels
}{
	{"exp-linear", "linear", losses.NewBinary(losses.Exponential{}), 0},
	{"logistic-mlp2x8", "mlp:relu:2x8", losses.NewBinary(losses.Logistic{}), 0},
	{"poly-linear", "linear", losses.NewBinary(losses.ZDPolyTail()), 0},
	{"ce-mlp2x8-K3", "mlp:relu:2x8/3", losses.CrossEntropy{}, 3},
	{"ce-linear-K4", "linear/4", losses.CrossEntropy{}, 4},
	{"squared-linear", "linear", losses.Squared{}, 0}, // regression on ±1 targets
}

// tinyObjective returns the objective of a tiny problem (n = 30, d = 10)
// and its θ₀.
func tinyObjective(tb testing.TB, spec string, l losses.Loss, classes int) (*Objective, []float64) {
	tb.Helper()
	const n, d = 30, 10
	r := rand.New(rand.NewPCG(30, 10))
	data := &dataset.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := range data.X {
		data.X[i] = r.NormFloat64()
	}
	for i := range data.Y {
		if classes > 0 {
			data.Y[i] = float64(r.IntN(classes))
		} else {
			data.Y[i] = float64(2*r.IntN(2) - 1)
		}
	}
	m, err := models.Parse(spec, d)
	if err != nil {
		tb.Fatal(err)
	}
	obj, err := NewObjective(m, l, data)
	if err != nil {
		tb.Fatal(err)
	}
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	return obj, theta
}

// tinyEta is the GD step of the tiny benchmarks: 1/(10n), small enough
// for every loss to descend over 1000 steps.
const tinyEta = 1.0 / 300

// BenchmarkTinyStep times one GD step (loss, gradient, update) of each tiny
// problem: it must report 0 allocs/op.
func BenchmarkTinyStep(b *testing.B) {
	for _, p := range tinyProblems {
		b.Run(p.name, func(b *testing.B) {
			obj, theta0 := tinyObjective(b, p.spec, p.loss, p.classes)
			theta := append([]float64(nil), theta0...)
			gd, err := NewGD(tinyEta)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			t := 0
			for b.Loop() {
				// Restart every 1000 steps: the same part of the
				// trajectory however long the benchmark runs.
				if t++; t%1000 == 0 {
					copy(theta, theta0)
				}
				ev, err := obj.Evaluate(theta, true)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := gd.Step(obj, theta, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTinyRun times Run over 1000 steps of each tiny problem, every
// 10th recorded: allocs/op counts the records (and the trajectory), none
// per step.
func BenchmarkTinyRun(b *testing.B) {
	for _, p := range tinyProblems {
		b.Run(p.name, func(b *testing.B) {
			benchRuns(b, p.spec, p.loss, p.classes, func() Config { return Config{Steps: 1000, Every: 10} })
		})
	}
}

// benchRuns times Run with the configuration cfg makes from the tiny
// problem's θ₀, by GD with tinyEta.
func benchRuns(b *testing.B, spec string, l losses.Loss, classes int, cfg func() Config) {
	obj, theta0 := tinyObjective(b, spec, l, classes)
	theta := make([]float64, len(theta0))
	gd, err := NewGD(tinyEta)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		copy(theta, theta0)
		if _, err := Run(obj, gd, theta, cfg()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTinyStepAllocs pins what the benchmarks show: a step of a tiny problem
// allocates nothing.
func TestTinyStepAllocs(t *testing.T) {
	for _, p := range tinyProblems {
		obj, theta := tinyObjective(t, p.spec, p.loss, p.classes)
		gd, err := NewGD(tinyEta)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(50, func() {
			ev, err := obj.Evaluate(theta, true)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := gd.Step(obj, theta, ev); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per step, want 0", p.name, allocs)
		}
	}
}

// tinySchemes are the GRW schemes of the tiny GRW benchmark: static
// weights (the same q at every step) and χ²-DRO (q moves with the losses).
func tinySchemes(n int) []struct {
	name string
	w    func() Weighting
} {
	r := rand.New(rand.NewPCG(7, 7))
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.2 + r.Float64()
	}
	return []struct {
		name string
		w    func() Weighting
	}{
		{"static", func() Weighting { return &Static{W: w} }},
		{"chi2", func() Weighting { s, _ := NewChiSquareDRO(0.5); return s }},
	}
}

// BenchmarkTinyGRWRun times Run under a GRW scheme over 1000 steps of the
// binary tiny problems (section E's runs: a reweighting per step), every
// 100th recorded with θ and the weights.
func BenchmarkTinyGRWRun(b *testing.B) {
	for _, p := range tinyProblems[:3] {
		for _, s := range tinySchemes(30) {
			b.Run(p.name+"-"+s.name, func(b *testing.B) {
				benchRuns(b, p.spec, p.loss, p.classes, func() Config {
					return Config{Steps: 1000, Every: 100, Weighting: s.w(), KeepTheta: true, KeepWeights: true}
				})
			})
		}
	}
}

package engines_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/engines/fakeengine"
	"github.com/implicitbias/implicitbias/internal/pyfork"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// TestMain lets the test binary be the fake engine: `TESTBINARY
// fakeengine -behave …` runs fakeengine.Main.
func TestMain(m *testing.M) {
	fakeengine.ServeIfAsked()
	pyfork.RelayIfAsked()
	code := m.Run()
	engines.CloseForkServer()
	os.Exit(code)
}

func fake(args ...string) string { return fakeengine.Command(args...) }

// separable returns a case of n samples labelled by a random teacher
// (binary), θ₀ small and random: deterministic in seed.
func separable(t testing.TB, name, spec string, in, n int, seed uint64) *engines.Case {
	t.Helper()
	m, err := models.Parse(spec, in)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	c := &engines.Case{Name: name, Model: m.String(), In: in, N: n, Loss: engines.Logistic,
		Rule: engines.StepRule{Kind: engines.GD, LR: 0.05}, Steps: 60, Record: engines.Schedule{Every: 20, Pairs: true}}
	w := make([]float64, in)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	for range n {
		var s float64
		for j := range in {
			v := r.NormFloat64()
			c.X = append(c.X, v)
			s += v * w[j]
		}
		c.Y = append(c.Y, map[bool]float64{true: 1, false: -1}[s >= 0])
	}
	c.Theta0 = make([]float64, m.NumParams())
	for i := range c.Theta0 {
		c.Theta0[i] = 0.3 * r.NormFloat64()
	}
	return c
}

func start(t *testing.T, command string, opts engines.Options) *engines.Process {
	t.Helper()
	p, err := engines.Start(context.Background(), command, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestFakeAgreesWithLocal: the correct fake (our engine behind Serve,
// answering in PyTorch's layout) gives Local's trajectory bit for bit,
// through the NPZ file and inline, for MLPs and both CNNs (whose θ and X
// are permuted on the way out and back), GD and the loss-based rule.
func TestFakeAgreesWithLocal(t *testing.T) {
	cases := []*engines.Case{
		separable(t, "mlp", "mlp:relu:2x4", 3, 8, 1),
		separable(t, "linear-weights", "linear", 3, 8, 2),
		separable(t, "cnn2d", "cnn2d:4x4x2:relu:2c3-valid-max2", 32, 5, 3),
		separable(t, "cnn1d", "cnn:lrelu0.2:2c3-avg2:3@2", 16, 5, 4),
		separable(t, "lossbased", "mlp:relu:2x4", 3, 8, 5),
	}
	cases[1].Weights = []float64{1, 2, 0.5, 1, 1, 3, 1, 0.25}
	w := separable(t, "windows", "mlp:relu:2x4", 3, 8, 6)
	var err error
	if w.Record, w.Steps, err = engines.WindowSchedule(train.WindowPlan{Steps: 300, Burst: 4, Growth: 1.7}); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, w)
	cases[4].Rule = engines.StepRule{Kind: engines.LossBased}
	cases[4].Record = engines.Schedule{Every: 1}
	cases[4].Steps = 30
	for _, inline := range []bool{false, true} {
		p := start(t, fake(), engines.Options{Inline: inline})
		for _, c := range cases {
			want, err := engines.Local{}.Train(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Train(context.Background(), c)
			if err != nil {
				t.Fatalf("inline %v: %v", inline, err)
			}
			if len(got.Records) != len(want.Records) {
				t.Fatalf("%s: %d records, want %d", c.Name, len(got.Records), len(want.Records))
			}
			for i, r := range got.Records {
				w := want.Records[i]
				if r.Step != w.Step || !slices.Equal(r.Theta, w.Theta) || r.LogLoss != w.LogLoss || r.SmoothedMargin != w.SmoothedMargin && r.Separated {
					t.Fatalf("%s inline %v: record %d: step %d log 𝓛 %v, want step %d log 𝓛 %v", c.Name, inline, i, r.Step, r.LogLoss, w.Step, w.LogLoss)
				}
				if r.LogEta != w.LogEta && c.Rule.Kind == engines.LossBased {
					t.Fatalf("%s: record %d log η %v, want %v", c.Name, i, r.LogEta, w.LogEta)
				}
			}
			if !slices.Equal(got.Records[1].Weights, c.Weights) {
				t.Errorf("%s: weights not recorded", c.Name)
			}
		}
		if n := p.Counts(); n.Answered != len(cases) || n.EngineErrors != 0 {
			t.Errorf("counts %+v", n)
		}
	}
}

// TestFakeEvalAgrees: Φ and ∇Φ through the protocol (∇Φ permuted back
// from PyTorch's layout) equal Local's.
func TestFakeEvalAgrees(t *testing.T) {
	p := start(t, fake(), engines.Options{})
	for _, c := range []*engines.Case{
		separable(t, "mlp", "mlp:relu:2x4/3", 3, 4, 1),
		separable(t, "cnn2d", "cnn2d:4x4x2:relu:2c3-valid-max2", 32, 3, 3),
	} {
		ec := &engines.EvalCase{Name: c.Name, Model: c.Model, In: c.In, X: c.X, N: c.N, Theta: c.Theta0}
		if !strings.Contains(c.Model, "/3") {
			ec.Loss, ec.Y = engines.Logistic, c.Y
		}
		want, err := engines.Local{}.Eval(context.Background(), ec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Eval(context.Background(), ec)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Phi, want.Phi) || !slices.Equal(got.Grad, want.Grad) || !slices.Equal(got.Dir, want.Dir) {
			t.Errorf("%s: the evaluation differs", c.Name)
		}
	}
}

// TestMisbehavingEngine: on each misbehaviour of case "two" the client
// reports one line naming the case, of the right kind, counts it as an
// engine error (never answered), and the run goes on: cases "one" and
// "three" are answered, the engine restarted when it crashed or hung.
func TestMisbehavingEngine(t *testing.T) {
	for _, tc := range []struct {
		behave   string
		kind     engines.ErrorKind
		restarts int
		inline   bool
	}{
		{"garbage", engines.Malformed, 0, false},
		{"badnpz", engines.Malformed, 0, false},
		{"hang", engines.TimedOut, 1, false},
		{"die", engines.Crashed, 1, false},
		{"shapes", engines.WrongShape, 0, true},
		{"theta0", engines.WrongShape, 0, true},
		{"refuse", engines.Refused, 0, false},
	} {
		t.Run(tc.behave, func(t *testing.T) {
			p := start(t, fake("-behave", tc.behave, "-on", "two"), engines.Options{Timeout: 2 * time.Second, Inline: tc.inline})
			for _, name := range []string{"one", "two", "three"} {
				c := separable(t, name, "mlp:relu:2x4", 3, 6, 1)
				tr, err := p.Train(context.Background(), c)
				if name != "two" {
					if err != nil || tr == nil {
						t.Fatalf("case %s: %v", name, err)
					}
					continue
				}
				var ce *engines.CaseError
				if !errors.As(err, &ce) || ce.Kind != tc.kind || !engines.IsEngineError(err) {
					t.Fatalf("case two: got %v, want a %v CaseError", err, tc.kind)
				}
				if msg := err.Error(); !strings.Contains(msg, "case two") || strings.Contains(msg, "\n") {
					t.Errorf("the error is not one line naming the case: %q", msg)
				}
				if tr != nil {
					t.Errorf("a trajectory came back with the error")
				}
				t.Logf("%s", err)
			}
			n := p.Counts()
			if n.Cases != 3 || n.Answered != 2 || n.EngineErrors != 1 || n.Restarts != tc.restarts {
				t.Errorf("counts %+v, want 3 cases, 2 answered, 1 engine error, %d restarts", n, tc.restarts)
			}
		})
	}
}

// TestLongLine: an answer line longer than Options.MaxLine is a
// malformed answer (never held whole), and the engine goes on.
func TestLongLine(t *testing.T) {
	p := start(t, fake(), engines.Options{MaxLine: 200, Inline: true})
	for _, name := range []string{"one", "two"} {
		_, err := p.Train(context.Background(), separable(t, name, "mlp:relu:2x4", 3, 6, 1))
		var ce *engines.CaseError
		if !errors.As(err, &ce) || ce.Kind != engines.Malformed || !strings.Contains(err.Error(), "longer than 200 bytes") {
			t.Fatalf("case %s: %v", name, err)
		}
	}
	if n := p.Counts(); n.EngineErrors != 2 || n.Restarts != 0 {
		t.Errorf("counts %+v", n)
	}
}

// TestCancelStopsEngine: cancelling the context (Ctrl-C) while the engine
// hangs returns at once with the cancellation, not a CaseError, and the
// next case starts a fresh engine.
func TestCancelStopsEngine(t *testing.T) {
	p := start(t, fake("-behave", "hang", "-on", "two"), engines.Options{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := p.Train(ctx, separable(t, "two", "linear", 3, 4, 1))
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 10*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(t0))
	}
	if engines.IsEngineError(err) {
		t.Errorf("a cancellation counted as an engine error")
	}
	if _, err := p.Train(context.Background(), separable(t, "three", "linear", 3, 4, 1)); err != nil {
		t.Fatal(err)
	}
}

// TestUnsupportedIsNotApplicable: a case beyond the capabilities is
// ErrUnsupported before any request, counted apart from engine errors.
func TestUnsupportedIsNotApplicable(t *testing.T) {
	caps := engines.Capabilities{Losses: []engines.Loss{engines.Logistic}, Rules: []engines.StepKind{engines.GD}}
	for _, c := range []*engines.Case{
		separable(t, "exp", "linear", 3, 4, 1),
		separable(t, "conv", "cnn:relu:2c3", 8, 4, 1),
		separable(t, "lb", "linear", 3, 4, 1),
		separable(t, "log", "linear", 3, 4, 1),
	} {
		switch c.Name {
		case "exp":
			c.Loss = engines.Exponential
		case "lb":
			c.Rule = engines.StepRule{Kind: engines.LossBased}
		case "log":
			c.LogDomain = true
		}
		if err := caps.Supports(c); !errors.Is(err, engines.ErrUnsupported) {
			t.Errorf("%s: got %v", c.Name, err)
		}
	}
	if err := caps.Supports(separable(t, "ok", "mlp:relu:2x4", 3, 4, 1)); err != nil {
		t.Error(err)
	}
}

// TestLocalIsTrainRun: Local runs train.Run: the same records as a direct
// call, bit for bit, and the pairs of the schedule.
func TestLocalIsTrainRun(t *testing.T) {
	c := separable(t, "mlp", "mlp:relu:2x4", 3, 8, 1)
	tr, err := engines.Local{}.Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var steps []int
	for _, r := range tr.Records {
		steps = append(steps, r.Step)
	}
	if want := []int{0, 1, 20, 21, 40, 41, 60}; !slices.Equal(steps, want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	c.Record.Pairs = false
	tr, err = engines.Local{}.Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	direct := engines.DirectRun(t, c)
	for i, r := range tr.Records {
		if !slices.Equal(r.Theta, direct.Records[i].Theta) || r.LogLoss != direct.Records[i].LogLoss {
			t.Fatalf("record %d differs from train.Run's", i)
		}
	}
}

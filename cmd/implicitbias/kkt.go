package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

const kktUsage = `implicitbias kkt --data FILE [--model SPEC] [--loss exp|logistic] [--lr η] [--steps N] [--seed S] [--window K] [--growth G] [--json]

Trains a homogeneous model by gradient descent (constant step) on a CSV dataset
and prints, at checkpoints spaced by the factor G in step number, how close
θ̃ = θ/q_min^{1/L} is to a KKT point of the max-margin problem
(P) min ½‖θ‖² s.t. q_n(θ) ≥ 1 (LL Thm 4.4, Def. C.6):

  step, log_T     the step and log T, T = Σ η
  log_loss, rho   log 𝓛 and ρ = ‖θ‖
  gamma           the smoothed normalized margin γ̃
  1-beta          1 − cos∠(θ, −∇𝓛)
  eps, delta      θ̃ is an (ε, δ)-KKT point with the multipliers λ = L·α of the
                  SVM in the gradient-feature space at θ̃ (they minimize
                  ε²/2 + L·δ)
  eps_nnls        min_{λ≥0} ‖θ̃ − Σ λ_n ∇q_n(θ̃)‖ (non-negative least squares)
  svm_angle       ∠(θ, w*), w* the SVM in the gradient-feature space (LL Cor 4.5)

Each checkpoint averages a window of K consecutive steps (gradient descent on
a ReLU network zigzags across kinks; the window's averages are Clarke
subgradients); K defaults to 32 for piecewise-smooth models and 1 otherwise.
Checkpoints before separation (𝓛 ≥ ℓ(b_f)) show only the training state.

  --data FILE    CSV dataset, labels ±1 first (required)
  --model SPEC   model spec (default mlp:relu:2x16; see implicitbias help train)
  --loss L       exp (default) or logistic
  --lr η         step size > 0 (default 0.05)
  --steps N      steps ≥ 1 (default 100000)
  --seed S       seed of θ₀ (default 1)
  --window K     steps per checkpoint window (default: see above)
  --growth G     checkpoint spacing factor > 1 (default 2)
  --json         print the rows as a JSON array instead of a table

Exit status: 0 on success, 2 for bad input, 3 when two samples have the same
features and opposite labels (no model separates them; (P) is infeasible),
4 when training diverged, 130 when interrupted (SIGINT, SIGTERM: the checkpoints before it are printed).
`

type kktRow struct {
	Step      int      `json:"step"`
	LogT      any      `json:"log_T"`
	LogLoss   float64  `json:"log_loss"`
	Rho       float64  `json:"rho"`
	Separated bool     `json:"separated"`
	Gamma     any      `json:"gamma"`
	OneMinusB *float64 `json:"one_minus_beta"`
	Eps       *float64 `json:"eps"`
	Delta     *float64 `json:"delta"`
	EpsNNLS   *float64 `json:"eps_nnls"`
	SVMAngle  *float64 `json:"svm_angle"`
}

func runKKT(args []string, stdout, stderr io.Writer) int {
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	return runKKTContext(ctx, args, stdout, stderr)
}

// runKKTContext is kkt, ended early (exit status 130, with the checkpoints
// reached) when ctx is done.
func runKKTContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kkt", flag.ContinueOnError)
	dataPath := fs.String("data", "", "")
	spec := fs.String("model", "mlp:relu:2x16", "")
	lossName := fs.String("loss", "exp", "")
	lr := fs.Float64("lr", 0.05, "")
	steps := fs.Int("steps", 100000, "")
	seed := fs.Uint64("seed", 1, "")
	window := fs.Int("window", 0, "")
	growth := fs.Float64("growth", 2, "")
	asJSON := fs.Bool("json", false, "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	switch {
	case *dataPath == "":
		return fail(stderr, "kkt", fmt.Errorf("--data FILE is required"))
	case *steps < 1:
		return fail(stderr, "kkt", fmt.Errorf("--steps must be ≥ 1, got %d", *steps))
	case *window < 0:
		return fail(stderr, "kkt", fmt.Errorf("--window must be ≥ 1, got %d", *window))
	case !(*growth > 1):
		return fail(stderr, "kkt", fmt.Errorf("--growth must be > 1, got %v", *growth))
	}
	if *lossName != "exp" && *lossName != "logistic" {
		return fail(stderr, "kkt", fmt.Errorf("--loss must be exp or logistic (LL's losses), got %q", *lossName))
	}
	data, err := dataset.LoadCSV(*dataPath)
	if err != nil {
		return fail(stderr, "kkt", err)
	}
	loss, err := losses.ByName(*lossName)
	if err != nil {
		return fail(stderr, "kkt", err)
	}
	model, err := models.Parse(*spec, data.D)
	if err != nil {
		return fail(stderr, "kkt", err)
	}
	if d := model.Degree(); !d.Homogeneous {
		return fail(stderr, "kkt", fmt.Errorf("model %s is %s: (P) and its KKT points need a homogeneous model", model, d))
	}
	gd, err := train.NewGD(*lr)
	if err != nil {
		return fail(stderr, "kkt", err)
	}
	obj, err := train.NewObjective(model, loss, data)
	if err != nil {
		return fail(stderr, "kkt", err)
	}
	if i, j, ok := data.Contradiction(); ok {
		fmt.Fprintf(stderr, "implicitbias kkt: data are not separable: samples %d and %d have the same features and opposite labels, so (P) has no feasible point\n", i+1, j+1)
		return exitNotSeparable
	}
	burst := *window
	if burst == 0 {
		burst = 1
		if model.Kinked() {
			burst = 32
		}
	}
	theta := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(*seed, 0)), theta)
	tr, err := train.RunWindows(obj, interruptible{ctx, gd}, theta, train.WindowPlan{Steps: *steps, Burst: burst, Growth: *growth})
	interrupted := errors.Is(err, errInterrupted)
	if errors.Is(err, train.ErrNonFinite) {
		fmt.Fprintf(stderr, "implicitbias kkt: training diverged: %v; try a smaller --lr (now %g)\n", absoluteStep(err), *lr)
		return exitDiverged
	}
	if err != nil && !interrupted {
		return fail(stderr, "kkt", absoluteStep(err))
	}
	var rows []kktRow
	for _, w := range kkt.Windows(tr, false) {
		r := w[0]
		row := kktRow{Step: r.Step, LogT: num(r.LogT), LogLoss: r.LogLoss, Rho: r.Rho, Separated: r.Separated, Gamma: num(r.SmoothedMargin)}
		if r.Separated {
			ths := make([][]float64, len(w))
			for i, x := range w {
				ths[i] = x.Theta
			}
			k, err := kkt.MeasureKKTWindow(obj, ths, 0)
			if err != nil {
				return fail(stderr, "kkt", fmt.Errorf("step %d: %v", r.Step, err))
			}
			b := 1 - k.Beta
			row.OneMinusB, row.Eps, row.Delta, row.EpsNNLS, row.SVMAngle = &b, &k.Epsilon, &k.Delta, &k.EpsilonNNLS, &k.SVMAngle
		}
		rows = append(rows, row)
	}
	code := exitOK
	if interrupted {
		// The checkpoints that finished, then a note; the JSON stays valid.
		defer fmt.Fprintf(stderr, "implicitbias kkt: interrupted; the %d checkpoints before it are shown\n", len(rows))
		code = exitInterrupted
	}
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(rows); err != nil {
			return fail(stderr, "kkt", err)
		}
		return code
	}
	fmt.Fprintf(stdout, "%s, %s loss, GD η = %g, %d samples, windows of %d steps\n", model, loss.Name(), *lr, data.N, burst)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tlog T\tlog 𝓛\tρ\tγ̃\t1−β\tε\tδ\tε_NNLS\t∠(θ, w*)\t")
	f := func(p *float64) string {
		if p == nil {
			return "—"
		}
		return fmt.Sprintf("%.3g", *p)
	}
	for _, r := range rows {
		lt, g := "—", "—"
		if v, ok := r.LogT.(float64); ok {
			lt = fmt.Sprintf("%.2f", v)
		}
		if v, ok := r.Gamma.(float64); ok && r.Separated {
			g = fmt.Sprintf("%.4g", v)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.4g\t%.4g\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Step, lt, r.LogLoss, r.Rho, g, f(r.OneMinusB), f(r.Eps), f(r.Delta), f(r.EpsNNLS), f(r.SVMAngle))
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "kkt", err)
	}
	return code
}

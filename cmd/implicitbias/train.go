package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

const trainUsage = `implicitbias train --data FILE --model SPEC --loss exp|logistic|ce|squared|poly|expr:FORMULA [--opt gd|lossbased|flow|momentum|adam] [--lr η] [--tol ε] [--steps N] [--stop-log-loss X] [--seed S] [--record K] [--trace FILE.csv] [--weights erm|iw|gdro[:ν]|chi2[:ρ]|cvar[:α]|file:PATH] [--groups FILE] [--l2 μ] [--reduce sum|mean] [--standardize] [--init FILE] [--export-npz FILE]

Trains a model on a CSV dataset (one sample per line, the label first, then
the features; a non-numeric first line is a header) and prints one JSON
object with the final state: steps, log_loss (natural log of the summed
loss), log_T (log of the time T = Σ η, or of the flow time), norm (‖θ‖),
degree (L, null if the model is not homogeneous), normalized_margin
(q_min/ρ^L), smoothed_margin (g(log 1/𝓛)/ρ^L), stalled, theta; with
--weights also weighting and weights (the final GRW weights q, summing to 1).

  --data FILE    CSV dataset (required); gzip is read as such (.csv.gz), '-'
                 is standard input, a UTF-8 byte order mark is skipped
  --model SPEC   model spec (default linear); grammar below
  --loss L       exp (default), logistic, ce (labels 0…K−1, model …/K), squared, poly,
                 or expr:FORMULA, a margin loss ℓ(q) written as a formula (see implicitbias help loss)
  --opt O        gd (default): constant step η;
                 lossbased: LL App. K.1's schedule η = α/𝓛̄ (α(0) = --lr), in log domain;
                 flow: gradient flow by adaptive Dormand–Prince 5(4) (tolerance --tol);
                 momentum (heavy ball, β = 0.9); adam (Kingma & Ba defaults)
  --lr η         step size > 0, or α(0) for lossbased (default 0.1; for gd,
                 halved up to 10 times while a probe run of the first 1000
                 steps diverges, so that the default run trains)
  --tol ε        flow's local error tolerance (default 1e-9)
  --steps N      steps ≥ 0 (default 1000)
  --seed S       seed of θ₀ (default 1)
  --record K     record every K-th step in the trace (default 1)
  --trace FILE   write the recorded steps as CSV
  --stop-log-loss X  stop once log_loss ≤ X < 0 (default: never)
  --weights W    generalized reweighting (ZD §3): the objective at step t is
                 Σ q_i^{(t)} ℓ_i with q^{(t)} set from the losses at θ_t by
                 erm (1/n), iw (1/(K n_k)), gdro[:ν] (Group DRO, ν = 0.1),
                 chi2[:ρ] (χ²-DRO, ρ = 1), cvar[:α] (CVaR-DRO, α = 0.5), or
                 file:PATH (static weights, one positive number per line,
                 normalized to sum 1). Default: none (the plain sum).
  --groups FILE  group of each sample for iw and gdro, one integer ≥ 0 per
                 line (default: one group per distinct label)
  --l2 μ         add (μ/2)‖θ − θ₀‖², θ₀ the initialization (ZD eq. 13)
  --init FILE    θ₀ from FILE instead of --seed: a trajectory file (.npz, its
                 first record, e.g. a PyTorch run's initialization) or one
                 number per line, in the flat layout of docs/check.md
  --export-npz FILE
                 write the run in the trajectory format of docs/check.md (θ at
                 steps 0, 1, K, K+1, 2K, 2K+1, … with K = --record, and the
                 last; the data; the outputs at the last record) for
                 implicitbias check
  --reduce R     sum (default: 𝓛 = Σ ℓ_n, the papers') or mean ((1/n)Σ ℓ_n;
                 without --lr the step is then 0.1·n, the default run of the
                 sum). log_loss, separated and smoothed_margin are of the sum
                 either way; --stop-log-loss compares the mean
  --standardize  scale every feature to mean 0, standard deviation 1 (the
                 output adds feature_mean and feature_scale; θ is for the
                 scaled features). For raw pixels: see docs/cli.md

Exit status: 0 on success, 2 for bad input (a --loss expr: formula that is
not positive and decreasing is refused, naming the hypothesis), 4 when the
run diverged (the message says what to try), 130 when interrupted (SIGINT or
SIGTERM: the JSON of the last recorded step is printed, the trace written).

Model specs:
`

func runTrain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	dataPath := fs.String("data", "", "")
	spec := fs.String("model", "linear", "")
	lossName := fs.String("loss", "exp", "")
	optName := fs.String("opt", "gd", "")
	lr := fs.Float64("lr", 0.1, "")
	tol := fs.Float64("tol", 0, "")
	steps := fs.Int("steps", 1000, "")
	stop := fs.Float64("stop-log-loss", 0, "")
	seed := fs.Uint64("seed", 1, "")
	record := fs.Int("record", 1, "")
	tracePath := fs.String("trace", "", "")
	weightsSpec := fs.String("weights", "", "")
	groupsPath := fs.String("groups", "", "")
	l2 := fs.Float64("l2", 0, "")
	initPath := fs.String("init", "", "")
	exportPath := fs.String("export-npz", "", "")
	reduceName := fs.String("reduce", "sum", "")
	standardize := fs.Bool("standardize", false, "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *dataPath == "" {
		return fail(stderr, "train", fmt.Errorf("--data FILE is required"))
	}
	if !(*stop <= 0) {
		return fail(stderr, "train", fmt.Errorf("--stop-log-loss must be a number < 0, got %v", *stop))
	}
	if *steps < 0 {
		return fail(stderr, "train", fmt.Errorf("--steps must be ≥ 0, got %d", *steps))
	}
	if !(*lr > 0) || math.IsInf(*lr, 0) {
		// Checked here as well as by the optimizers: flow ignores --lr,
		// and a value ≤ 0 is a mistake whichever optimizer is asked for.
		return fail(stderr, "train", fmt.Errorf("--lr: learning rate must be a finite number > 0, got %v", *lr))
	}
	if *record < 1 {
		return fail(stderr, "train", fmt.Errorf("--record must be ≥ 1, got %d", *record))
	}
	trace, err := createTrace(*tracePath) // before any work: see trainrun.go
	if err != nil {
		return fail(stderr, "train", err)
	}
	defer trace.close()
	data, err := dataset.LoadCSV(*dataPath)
	if err != nil {
		return fail(stderr, "train", err)
	}
	var mean, scale []float64
	if *standardize {
		mean, scale = data.Standardize()
	}
	loss, err := losses.ByName(*lossName)
	if err == nil {
		err = checkExprLoss(*lossName)
	}
	if err != nil {
		return fail(stderr, "train", err)
	}
	model, err := models.ParseModel(*spec, data.D) // mlp…, cnn…, or ntk:… (docs/ntk.md)
	if err != nil {
		return fail(stderr, "train", err)
	}
	if *reduceName == "mean" && !flagGiven(fs, "lr") {
		*lr *= float64(data.N) // see meanStep
	}
	opt, err := train.NewOptimizer(*optName, train.OptimizerOptions{LR: *lr, Tol: *tol})
	if err != nil {
		return fail(stderr, "train", err)
	}
	obj, err := train.NewObjective(model, loss, data)
	if err != nil {
		return fail(stderr, "train", classLabelHint(err, data, *lossName))
	}
	weighting, err := trainWeighting(*weightsSpec, *groupsPath, data)
	if err != nil {
		return fail(stderr, "train", err)
	}
	red, err := parseReduction(*reduceName, data.N, weighting != nil)
	if err == nil {
		err = red.apply(obj)
	}
	if err != nil {
		return fail(stderr, "train", err)
	}
	theta := make([]float64, model.NumParams())
	model.Init(rand.New(rand.NewPCG(*seed, 0)), theta)
	if *initPath != "" {
		if theta, err = initTheta(*initPath, model); err != nil {
			return fail(stderr, "train", err)
		}
	}
	// runProbes: the run at the default step is defaultStep's first probe
	// (gradient descent for at most probeSteps steps on the objective as
	// probed: no --l2, --weights, --stop-log-loss, --tol, --export-npz), so
	// it goes first and the halvings are probed only if it diverges; with
	// --trace it does not, so that the trace holds one run.
	var theta0 []float64
	runProbes := *optName == "gd" && !flagGiven(fs, "lr") && *steps <= probeSteps && *l2 == 0 && weighting == nil &&
		*stop == 0 && *tol == 0 && *exportPath == "" && trace == nil
	if runProbes {
		theta0 = append([]float64(nil), theta...)
	} else if *optName == "gd" && !flagGiven(fs, "lr") {
		// The default step: 0.1 on the sum's scale where it trains, else
		// the largest halving of it that does not diverge (trainstep.go).
		if eta := defaultStep(obj, *optName, theta, *lr, *steps, 0); eta != *lr {
			*lr = eta
			if opt, err = train.NewOptimizer(*optName, train.OptimizerOptions{LR: *lr, Tol: *tol}); err != nil {
				return fail(stderr, "train", err)
			}
		}
	}
	if *l2 != 0 {
		if !(*l2 > 0) || math.IsInf(*l2, 0) {
			return fail(stderr, "train", fmt.Errorf("--l2 must be a finite number ≥ 0, got %v", *l2))
		}
		obj.Reg = train.L2{Mu: *l2, Theta0: append([]float64(nil), theta...)}
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	var last lastState
	degree := model.Degree().Order
	if !model.Degree().Homogeneous {
		degree = math.NaN()
	}
	observe := observeTrain(ctx, obj, degree, red, trace, &last)
	var tr *train.Trajectory
	if *exportPath != "" {
		tr, err = runExport(*exportPath, obj, opt, theta, *steps, *record, *stop, weighting, red, observe)
	} else {
		tr, err = train.Run(obj, opt, theta, train.Config{Steps: *steps, Every: *record, StopLogLoss: *stop, Weighting: weighting, Observe: observe})
		if runProbes && errors.Is(err, train.ErrNonFinite) {
			// The first probe diverged: the halvings (trainstep.go), and
			// the run again at the first that stays finite.
			if eta := defaultStep(obj, *optName, theta0, *lr, *steps, 1); eta != *lr {
				*lr = eta
				if opt, err = train.NewOptimizer(*optName, train.OptimizerOptions{LR: *lr}); err != nil {
					return fail(stderr, "train", err)
				}
				tr, err = train.Run(obj, opt, theta0, train.Config{Steps: *steps, Every: *record, Observe: observe})
			}
		}
	}
	switch {
	case errors.Is(err, errInterrupted) && last.ok:
		tr = last.trajectory(tr)
	case errors.Is(err, train.ErrNonFinite):
		fmt.Fprintf(stderr, "implicitbias train: %s\n", divergenceHint(err, *lr, *optName, *reduceName, *standardize))
		return exitDiverged
	case err != nil:
		return fail(stderr, "train", err)
	}
	if err := trace.close(); err != nil {
		return fail(stderr, "train", fmt.Errorf("--trace: %v", err))
	}
	fin := red.summed(obj, degree, tr.Final())
	if last.ok {
		fin = tr.Final() // observeTrain already summed it
	}
	out := map[string]any{
		"model": tr.Model, "loss": tr.Loss.Name(), "optimizer": tr.Step.Kind.String(),
		"steps": tr.Steps, "log_loss": num(fin.LogLoss), "log_T": num(fin.LogT), "stalled": tr.Stalled, "norm": num(fin.Rho),
		"degree": num(tr.Degree), "q_min": num(fin.QMin),
		"normalized_margin": num(fin.NormalizedMargin), "smoothed_margin": num(fin.SmoothedMargin),
		"separated": fin.Separated, "theta": tr.Theta, "lr": *lr,
	}
	if weighting != nil {
		out["weighting"], out["weights"] = tr.Scheme.String(), tr.Weights
	}
	if red.mean {
		out["reduce"] = "mean"
	}
	if *standardize {
		out["feature_mean"], out["feature_scale"] = mean, scale
	}
	if last.ok {
		out["interrupted"] = true
	}
	enc := json.NewEncoder(stdout)
	if err := enc.Encode(out); err != nil {
		return fail(stderr, "train", err)
	}
	if last.ok {
		fmt.Fprintf(stderr, "implicitbias train: interrupted at step %d; the JSON above is that step's state\n", tr.Steps)
		return exitInterrupted
	}
	return exitOK
}

// num returns x, or nil (JSON null) when x is not finite.
func num(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

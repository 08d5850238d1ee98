package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/implicitbias/implicitbias/bench"
	"github.com/implicitbias/implicitbias/internal/linalg"
)

const benchUsage = `implicitbias bench --workload W1|W2|W3|W4|W5 [--steps N] [--threads T] [--seed S] [--init FILE] [--export FILE] [--json]

Times the engine on one of the speed workloads: full-batch gradient descent
with a constant step on the summed exponential loss of a bias-free ReLU
network (W1: 2 layers, width 64, n 200, d 20; W2: 4×128, n 1000, d 50;
W3: linear, n 50, d 100; W4: 3×16, n 40, d 10). Warm-up steps run first and
are undone; then N steps from θ₀ are timed. Prints one line

  bench workload=W1 impl=engine threads=1 steps=N seconds=… steps/s=… GFLOP/s=… final_loss=…

(final_loss = Σ exp(−y f(x)) after the N steps), the same line as the peers
bench/numpy_gd.py and bench/torch_gd.py print; bench/compare runs them all.

  --workload W   W1, W2, W3 or W4 (or read from --init)
  --steps N      timed steps (default: the workload's, about a second)
  --threads T    goroutines for large products, 1…1024 (default 1); the
                 result is the same whatever T
  --seed S       seed of the data, teacher and θ₀ (default 1)
  --export FILE  write the problem (data, labels, θ₀, η) as JSON and exit
  --init FILE    start from a problem written by --export
  --json         print a JSON object instead of the line

Exit status: 0 on success, 2 for bad input.
`

// maxBenchThreads bounds --threads: the run sets GOMAXPROCS to it, and
// 100000 ran out of memory (issue 21), while no machine the peers in bench/
// are compared on has more than a few hundred cores. At the bound, W1 runs
// in 41 MB resident (13 MB with one thread).
const maxBenchThreads = 1024

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	name := fs.String("workload", "", "")
	steps := fs.Int("steps", 0, "")
	threads := fs.Int("threads", 1, "")
	seed := fs.Uint64("seed", 1, "")
	export := fs.String("export", "", "")
	initPath := fs.String("init", "", "")
	asJSON := fs.Bool("json", false, "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *steps < 0 {
		return fail(stderr, "bench", fmt.Errorf("--steps must be ≥ 0, got %d", *steps))
	}
	if *threads < 1 {
		return fail(stderr, "bench", fmt.Errorf("--threads must be ≥ 1, got %d", *threads))
	}
	if *threads > maxBenchThreads {
		return fail(stderr, "bench", fmt.Errorf("--threads must be ≤ %d, got %d (this machine has %d CPUs; threads beyond them only wait, and each holds its own buffers)", maxBenchThreads, *threads, runtime.NumCPU()))
	}
	if *name == "" && *initPath == "" {
		return fail(stderr, "bench", errors.New("--workload W1|W2|W3|W4|W5 (or --init FILE) is required"))
	}
	var p *bench.Problem
	if *initPath != "" {
		f, err := os.Open(*initPath)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		p, err = bench.ReadProblem(f)
		f.Close()
		if err != nil {
			return fail(stderr, "bench", fmt.Errorf("%s: %v", *initPath, err))
		}
		if *name != "" && *name != p.Workload.Name {
			return fail(stderr, "bench", fmt.Errorf("--workload %s, but %s holds %s", *name, *initPath, p.Workload.Name))
		}
	} else {
		w, err := bench.Lookup(*name)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		if p, err = w.Generate(*seed); err != nil {
			return fail(stderr, "bench", err)
		}
	}
	if *export != "" {
		if err := writeProblem(*export, p); err != nil {
			return fail(stderr, "bench", err)
		}
		return exitOK
	}
	res, err := timeEngine(p, *steps, *threads)
	if err != nil {
		return fail(stderr, "bench", err)
	}
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(res); err != nil {
			return fail(stderr, "bench", err)
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "bench workload=%s impl=engine threads=%d steps=%d seconds=%.4g steps/s=%.6g GFLOP/s=%.4g final_loss=%.17g\n",
		res.Workload, res.Threads, res.Steps, res.Seconds, res.StepsPerS, res.GFLOPs, res.FinalLoss)
	return exitOK
}

// benchResult is the --json output; the peers print the same fields.
type benchResult struct {
	Workload  string  `json:"workload"`
	Impl      string  `json:"impl"`
	Kernels   string  `json:"kernels"`
	Threads   int     `json:"threads"`
	Steps     int     `json:"steps"`
	Seconds   float64 `json:"seconds"`
	StepsPerS float64 `json:"steps_per_s"`
	GFLOPs    float64 `json:"gflops"`
	FinalLoss float64 `json:"final_loss"`
	// CPUSeconds is the process CPU time of the timed steps (all threads):
	// on a busy machine, steps per CPU second of a one-thread run estimate
	// the idle machine's speed better than the wall clock.
	CPUSeconds float64 `json:"cpu_seconds"`
}

// timeEngine runs steps/5+1 warm-up steps, resets θ to θ₀, and times steps
// steps on at most threads goroutines.
func timeEngine(p *bench.Problem, steps, threads int) (*benchResult, error) {
	if steps == 0 {
		steps = p.Workload.Steps
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
	defer linalg.SetThreads(linalg.SetThreads(threads))
	r, err := bench.NewRunner(p)
	if err != nil {
		return nil, err
	}
	if err := r.Steps(steps/5 + 1); err != nil {
		return nil, fmt.Errorf("warm-up: %v", err)
	}
	r.Reset()
	cpu0 := bench.CPUTime()
	start := time.Now()
	if err := r.Steps(steps); err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	cpu := (bench.CPUTime() - cpu0).Seconds()
	loss, err := r.Loss()
	if err != nil {
		return nil, err
	}
	rate := float64(steps) / secs
	return &benchResult{
		Workload: p.Workload.Name, Impl: "engine", Kernels: linalg.Kernels(), Threads: threads,
		Steps: steps, Seconds: secs, StepsPerS: rate, GFLOPs: p.Workload.FLOPs() * rate / 1e9, FinalLoss: loss, CPUSeconds: cpu,
	}, nil
}

func writeProblem(path string, p *bench.Problem) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

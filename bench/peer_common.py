"""Shared by the peers (numpy_gd.py, torch_gd.py): arguments, the problem
file written by `implicitbias bench --export`, timing and the output line.

Every implementation prints the same line (or JSON object with --json):

  bench workload=W1 impl=numpy threads=1 steps=5000 seconds=0.41 steps/s=12195 GFLOP/s=13.4 final_loss=0.79...

steps are timed after a warm-up (warm-up steps run from θ₀ and are then
undone: θ is reset to θ₀), and final_loss is 𝓛(θ_steps) = Σ_i exp(−y_i f(x_i))
after exactly `steps` steps from θ₀, printed with 17 significant digits.
The JSON object adds cpu_seconds, the process CPU time of the timed steps
(all threads): on a busy machine, steps per CPU second of a one-thread run
estimate the idle machine's speed better than the wall clock does.
"""

import argparse
import json
import os
import sys
import time


def parse_args(impl):
    ap = argparse.ArgumentParser(description=f"{impl} peer of `implicitbias bench`")
    ap.add_argument("problem", help="problem file written by `implicitbias bench --export FILE`")
    ap.add_argument("--steps", type=int, default=0, help="timed steps (default: the workload's)")
    ap.add_argument("--threads", type=int, default=1, help="threads (default 1)")
    ap.add_argument("--json", action="store_true", help="print a JSON object")
    args = ap.parse_args()
    if args.threads < 1:
        ap.error("--threads must be >= 1")
    if args.steps < 0:
        ap.error("--steps must be >= 0")
    # The BLAS reads these when it loads: set them before numpy or torch is
    # imported.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    return args


# The workloads' default timed steps, as in bench/workload.go.
DEFAULT_STEPS = {"W1": 5000, "W2": 100, "W3": 20000, "W4": 20000, "W5": 5}


def load_problem(path):
    with open(path) as f:
        p = json.load(f)
    dims = p["dims"]
    # θ is layer by layer, each W_l out×in row-major.
    weights, off = [], 0
    for i in range(len(dims) - 1):
        n_in, n_out = dims[i], dims[i + 1]
        weights.append((n_out, n_in, p["theta"][off:off + n_out * n_in]))
        off += n_out * n_in
    if off != len(p["theta"]):
        sys.exit(f"problem: {len(p['theta'])} parameters, dims {dims} need {off}")
    return p, weights


def run(impl, args, p, step, reset, final_loss):
    """Warm up, time args.steps steps, print the line."""
    steps = args.steps or DEFAULT_STEPS[p["workload"]]
    warm = steps // 5 + 1
    for _ in range(warm):
        step()
    reset()
    c0 = time.process_time()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    loss = final_loss()
    rate = steps / secs if secs > 0 else float("inf")
    out = {
        "workload": p["workload"], "impl": impl, "threads": args.threads, "steps": steps,
        "seconds": secs, "steps_per_s": rate, "gflops": p["flops_per_step"] * rate / 1e9,
        "final_loss": loss, "cpu_seconds": cpu,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"bench workload={out['workload']} impl={impl} threads={args.threads} steps={steps} "
              f"seconds={secs:.4g} steps/s={rate:.6g} GFLOP/s={out['gflops']:.4g} final_loss={loss:.17g}")


def torch_gd(torch, params, params0, loss, lr):
    """step, reset and final_loss of gradient descent on loss() over the
    leaf tensors params (θ₀ in params0), as a PyTorch user writes it:
    backward, then an in-place update under no_grad."""

    def step():
        L = loss()
        for w in params:
            w.grad = None
        L.backward()
        with torch.no_grad():
            for w in params:
                w -= lr * w.grad

    def reset():
        with torch.no_grad():
            for w, w0 in zip(params, params0):
                w.copy_(w0)

    def final_loss():
        with torch.no_grad():
            return float(loss())

    return step, reset, final_loss

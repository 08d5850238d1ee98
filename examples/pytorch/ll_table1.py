#!/usr/bin/python3
"""LL's Table 1 protocol in PyTorch (Lyu & Li 2020, App. J, K.1, K.2), recorded
for `implicitbias check`.

LL's CNN without bias (a bias in the first layer only, which keeps the network
homogeneous: the input does not depend on θ) on Fashion-MNIST, all 10 classes:

    Conv2d(1, 32, 5, padding=2) → ReLU → MaxPool2d(2) →
    Conv2d(32, 64, 3, padding=1, bias=False) → ReLU → MaxPool2d(2) → Flatten →
    Linear(3136, 1024, bias=False) → ReLU → Linear(1024, 10, bias=False)

(`implicitbias` spec cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1),
He-normal weights and zero bias (LL App. J), float64 everywhere, mini-batch
SGD (batch 100) on the mean cross-entropy with LL App. K.1's per-epoch
loss-based schedule:

    η(t) = α(t)/𝓛̄(t−1); run the epoch; if 𝓛̄(t) < 𝓛̄(t−1) keep it and
    α ← α·2^{1/5}, else roll θ back to the epoch's start, α ← α/2^{1/10} and
    run the epoch again on the same permutation; α(0) = 0.1.

Log domain (LL App. K.2, on exact float64 instead of LL's float32 forward pass
and Q = 30 switch): with z_n = log Σ_{j≠y} e^{s_j − s_y}, a sample's loss is
ℓ_n = log(1 + e^{z_n}) and log ℓ_n = log softplus(z_n), or z_n − e^{z_n}/2
where e^{z_n} < e^{−30} (log log1p(x) = log x − x/2 + O(x²)); a batch's log 𝓛̄_B
is LSE_n log ℓ_n − log |B|, and autograd of log 𝓛̄_B gives the direction
∇𝓛̄_B/𝓛̄_B. The step θ ← θ − e^{log α + log 𝓛̄_B − log 𝓛̄(t−1)}·∇𝓛̄_B/𝓛̄_B is
η∇𝓛̄_B, finite at 𝓛̄ = 1e-800 where η itself (1e800) is not.

Rows (LL Table 1): the first epochs with training loss below 1e-10, 1e-15,
1e-20 and 1e-120, and the last epoch (at --stop-log10-loss, default −800, or
--max-epochs, default 10 000, or when no α lowers the loss in float64), each
with the epoch, log₁₀ 𝓛̄, the normalized margin q_min/Π_i ‖w_i‖ (layer 1's
bias counted in w_1), train and test accuracy.

The trajectory file (--out, docs/check.md's format): at every row (and every
--record-every K epochs), θ at the end
of that epoch (global step s) and θ after the first step of the next epoch that
stood (step s+1), with lr = the step size of that step on the mean loss,
α/𝓛̄(t), so that check can verify the pair is −η∇𝓛 when the batch is the whole
training set (otherwise a mini-batch step, which check reports as such). Where
α/𝓛̄ overflows float64 (𝓛̄ below about 1e-300) the step size has no float64
value: that row is recorded as a single snapshot, its lr the largest float64
(the format wants a finite number; no step follows it in the file), and the
rows' snapshots stay what check reads for the identities and the margins.

Usage:

    /usr/bin/python3 examples/pytorch/ll_table1.py --toy --out toy.npz        # seconds, CPU
    go run ./cmd/implicitbias check --run toy.npz
    python3 examples/pytorch/ll_table1.py --device cuda --out ll.npz         # LL's scale
    python3 examples/pytorch/ll_table1.py --device cuda --time-epochs 3      # seconds per epoch

--bias puts a bias in every layer (LL's "CNN with bias": not homogeneous, a
control for check). --random-images times on random pixels of the same shape
when Fashion-MNIST is not at hand.
"""
import argparse
import gzip
import math
import os
import sys
import time

import numpy as np
import torch

LOG_R_UP = math.log(2) / 5    # r_u = 2^{1/5} (LL App. K.1)
LOG_R_DOWN = math.log(2) / 10  # r_d = 2^{1/10}
MAX_RETRIES = 400              # α down by 2^{-40}: the engine's bound (train/sgd.go)
THRESHOLDS = (-10.0, -15.0, -20.0, -120.0)  # log₁₀ 𝓛̄ of model-1 … model-4


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_fashion(directory, split):
    """The split's images (uint8: pixels() scales the ones kept) and labels."""
    prefix = "train" if split == "train" else "t10k"
    try:
        x = read_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte.gz"))
        y = read_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte.gz"))
    except FileNotFoundError as e:
        sys.exit(f"ll_table1.py: {e}; apt-get install dataset-fashion-mnist, or give --data DIR or --npz FILE")
    return x, y.astype(np.int64)


def pixels(x):
    """uint8 images in [0, 1], float64: after balanced(), so that only the images kept are
    converted (the whole training set in float64 is 376 MB)."""
    return x.astype(np.float64) / 255.0


def balanced(x, y, per_class, rng):
    """per_class samples of each of the 10 classes, seeded, in the data's order."""
    idx = []
    for c in range(10):
        members = np.flatnonzero(y == c)
        if len(members) < per_class:
            sys.exit(f"ll_table1.py: class {c} has {len(members)} samples, {per_class} asked for")
        idx.extend(rng.choice(members, per_class, replace=False))
    idx = np.sort(np.array(idx))
    return x[idx], y[idx]


def downsample(x, side):
    f = x.shape[1] // side
    return x.reshape(len(x), side, f, side, f).mean(axis=(2, 4))


def build(side, scale, bias, k=10):
    w = lambda n: max(1, round(n * scale))
    c1, c2, h = w(32), w(64), w(1024)
    s = side // 2 // 2
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, c1, 5, padding=2, bias=True),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(c1, c2, 3, padding=1, bias=bias),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(c2 * s * s, h, bias=bias),
        torch.nn.ReLU(),
        torch.nn.Linear(h, k, bias=bias),
    )


def he_init(net, gen):
    """He-normal N(0, 2/fan_in) weights, zero biases (LL App. J)."""
    with torch.no_grad():
        for m in net:
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen, dtype=torch.float64) * math.sqrt(2 / fan_in))
                if m.bias is not None:
                    m.bias.zero_()


def log_losses(scores, y):
    """log ℓ_n of the cross-entropy, finite however large the margin."""
    sy = scores.gather(1, y[:, None])
    other = scores - sy
    other = other.scatter(1, y[:, None], -math.inf)
    z = torch.logsumexp(other, dim=1)  # log Σ_{j≠y} e^{s_j − s_y}
    near = z > -30
    zn = torch.where(near, z, torch.zeros_like(z))
    zf = torch.where(near, torch.full_like(z, -30.0), z)
    return torch.where(near, torch.log(torch.nn.functional.softplus(zn)), zf - torch.exp(zf) / 2)


def log_mean_loss(scores, y):
    return torch.logsumexp(log_losses(scores, y), dim=0) - math.log(len(y))


def evaluate(net, x, y, batch, margins=True):
    """log 𝓛̄, q_min and the accuracy on (x, y), forward passes only (margins False: log 𝓛̄
    alone, q_min and the accuracy NaN)."""
    with torch.no_grad():
        logl, qmin, correct = [], math.inf, 0
        for lo in range(0, len(y), batch):
            s = net(x[lo:lo + batch])
            yb = y[lo:lo + batch]
            logl.append(log_losses(s, yb))
            if not margins:
                qmin = correct = math.nan
                continue
            sy = s.gather(1, yb[:, None])[:, 0]
            rest = s.scatter(1, yb[:, None], -math.inf).max(dim=1).values
            q = sy - rest
            qmin = min(qmin, q.min().item())
            correct += int((q > 0).sum().item())
        ll = torch.cat(logl)
        return (torch.logsumexp(ll, 0) - math.log(len(y))).item(), qmin, correct / len(y)


def blocks(net):
    """The layers' parameters w_i (a layer's bias with its weight)."""
    return [list(m.parameters()) for m in net if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]


def normalized_margin(net, qmin):
    """q_min / Π_i ‖w_i‖ (LL §4.4: every layer of degree 1), in log domain."""
    log_norm = 0.0
    for ps in blocks(net):
        sq = sum(float((p.detach() ** 2).sum()) for p in ps)
        log_norm += 0.5 * math.log(sq)
    return math.copysign(math.exp(math.log(abs(qmin)) - log_norm), qmin) if qmin != 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist", help="Fashion-MNIST's gzipped IDX files")
    ap.add_argument("--npz", help="images instead: x_train (n, 28, 28) uint8, y_train, x_test, y_test")
    ap.add_argument("--random-images", action="store_true", help="random pixels of the same shape (timing only)")
    ap.add_argument("--n-train", type=int, default=60000)
    ap.add_argument("--n-test", type=int, default=10000)
    ap.add_argument("--image", type=int, default=28, help="side after averaging blocks (a divisor of 28)")
    ap.add_argument("--width-scale", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=100, help="0: the whole training set (gradient descent)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-epochs", type=int, default=10000)
    ap.add_argument("--stop-log10-loss", type=float, default=-800.0)
    ap.add_argument("--bias", action="store_true", help="a bias in every layer (not homogeneous: a control)")
    ap.add_argument("--toy", action="store_true",
                    help="a CPU size that runs in seconds: 7×7 images, one per class, width 1/8, full batch, to 1e-20 "
                         "(flags given beside it still count)")
    ap.add_argument("--time-epochs", type=int, default=0, help="run this many epochs and print the seconds per epoch")
    ap.add_argument("--log-every", type=int, default=0, help="print the epoch and its loss every K epochs")
    ap.add_argument("--out", help="the trajectory file for implicitbias check")
    ap.add_argument("--record-every", type=int, default=0,
                    help="also record θ every K epochs that stand (with θ after the next step: a pair), "
                         "beside the rows; with --batch 0 and K = 1, every step")
    ap.add_argument("--gd-lr", type=float, default=0.0,
                    help="plain full-batch gradient descent instead of LL's schedule: a constant step size on the mean "
                         "loss, no roll-back, for --gd-steps steps; records θ at every step s with s mod --record-every "
                         "in {0, 1} (pairs of consecutive steps) and the last")
    ap.add_argument("--gd-steps", type=int, default=100, help="with --gd-lr: the number of steps")
    if "--toy" in sys.argv[1:]:
        ap.set_defaults(image=7, n_train=10, n_test=10, width_scale=1 / 8, batch=0, max_epochs=3000, stop_log10_loss=-20.0)
    a = ap.parse_args()
    if 28 % a.image or a.n_train % 10 or a.n_test % 10 or a.n_train < 10 or a.n_test < 10:
        sys.exit("ll_table1.py: --image must divide 28, --n-train and --n-test be multiples of 10 ≥ 10")

    torch.set_default_dtype(torch.float64)
    dev = torch.device(a.device)
    rng = np.random.default_rng(a.seed)
    if a.random_images:
        xtr, ytr = rng.random((a.n_train, 28, 28)), np.arange(a.n_train) % 10
        xte, yte = rng.random((a.n_test, 28, 28)), np.arange(a.n_test) % 10
    else:
        if a.npz:
            f = np.load(a.npz)
            (xtr, ytr), (xte, yte) = [(f["x_" + s], f["y_" + s].astype(np.int64)) for s in ("train", "test")]
        else:
            (xtr, ytr), (xte, yte) = load_fashion(a.data, "train"), load_fashion(a.data, "test")
        xtr, ytr = balanced(xtr, ytr, a.n_train // 10, rng)
        xte, yte = balanced(xte, yte, a.n_test // 10, rng)
        xtr, xte = pixels(xtr), pixels(xte)
    if a.image != 28:
        xtr, xte = downsample(xtr, a.image), downsample(xte, a.image)
    X = torch.from_numpy(xtr[:, None]).to(dev)  # (n, 1, H, W), PyTorch's layout
    Y = torch.from_numpy(ytr).to(dev)
    Xte, Yte = torch.from_numpy(xte[:, None]).to(dev), torch.from_numpy(yte).to(dev)
    n = len(Y)
    batch = n if a.batch == 0 else a.batch

    gen = torch.Generator().manual_seed(a.seed)
    net = build(a.image, a.width_scale, a.bias)
    he_init(net, gen)
    net = net.to(dev)
    params = list(net.parameters())
    print(f"ll_table1.py: {sum(p.numel() for p in params)} parameters, {n}/{len(Yte)} images of {a.image}×{a.image}, "
          f"batch {batch}, device {dev}", file=sys.stderr)

    # With one batch an epoch (full batch, not timing), every run of an epoch takes its one
    # step from the same θ on the same samples in the same order: the runs after the first
    # reuse its log 𝓛̄_B and gradient (the same values: only the step size differs).
    reuse = batch == n and not a.time_epochs

    def run_epoch(perm, log_alpha, log_prev, first_step, first_run):
        """One pass with η = α/𝓛̄(t−1); calls first_step(lr) after the first step; first_run
        holds (log 𝓛̄_B, ∇) of the epoch's first run once there was one (reuse)."""
        for lo in range(0, n, batch):
            if first_run:
                lb, grads = first_run
            else:
                idx = perm[lo:lo + batch]
                for p in params:
                    p.grad = None
                lb = log_mean_loss(net(X[idx]), Y[idx])
                lb.backward()  # ∇ log 𝓛̄_B = ∇𝓛̄_B/𝓛̄_B
                grads = [p.grad for p in params]
                if reuse:
                    first_run[:] = [lb, grads]
            with torch.no_grad():
                # e^{log α + log 𝓛̄_B − log 𝓛̄(t−1)}, on the device (no sync per step).
                c = torch.exp(lb + (log_alpha - log_prev))
                for p, g in zip(params, grads):
                    p.sub_(g * c)
            if lo == 0 and first_step is not None:
                first_step()
        return all(bool(torch.isfinite(p).all()) for p in params)

    snapshots = []  # (step, lr, [tensors])

    def snap(step, lr):
        snapshots.append((step, lr, [p.detach().cpu().clone().numpy() for p in net.state_dict().values()]))

    if a.gd_lr > 0:
        plain_gd(a, net, params, X, Y, xtr, ytr, snap, snapshots)
        return
    log_prev, _, _ = evaluate(net, X, Y, max(batch, 1000))
    log_alpha = math.log(0.1)
    rows, crossed, steps, epoch, rejected = [], 0, 0, 0, 0
    pending_pair = False  # a row's θ(t) is recorded; record θ(t+1) next
    perm_gen = torch.Generator().manual_seed(a.seed + 1)
    t0, reason = time.perf_counter(), f"{a.max_epochs} epochs"
    run_times = []  # seconds of each run of an epoch (the pass and the loss on the training set)

    def row(name, log10, ep):
        _, qmin, acc = evaluate(net, X, Y, max(batch, 1000))
        _, _, tacc = evaluate(net, Xte, Yte, max(batch, 1000))
        gamma = normalized_margin(net, qmin)
        rows.append((name, ep, log10, gamma, acc, tacc))
        print(f"{name:8s} epoch {ep:6d}  log10 loss {log10:9.2f}  normalized margin {gamma:.4g}  "
              f"train {100 * acc:.1f}%  test {100 * tacc:.1f}%", flush=True)

    while epoch < a.max_epochs:
        perm = torch.randperm(n, generator=perm_gen).to(dev)
        start = [p.detach().clone() for p in params]
        first_run = []
        for retry in range(MAX_RETRIES):
            def first_step():
                if pending_pair:
                    lr = math.exp(log_alpha - log_prev)
                    snapshots[-1] = (snapshots[-1][0], lr, snapshots[-1][2])
                    snap(steps + 1, lr)
            # first_step records θ(t+1), kept only if this run of the epoch stands.
            mark = len(snapshots)
            tr = time.perf_counter()
            ok = run_epoch(perm, log_alpha, log_prev, first_step if pending_pair else None, first_run)
            log_now = evaluate(net, X, Y, max(batch, 1000), margins=False)[0] if ok else math.nan
            run_times.append(time.perf_counter() - tr)  # evaluate() synchronizes (.item())
            if a.time_epochs and len(run_times) > a.time_epochs:
                break
            if ok and log_now < log_prev:
                break
            del snapshots[mark:]
            with torch.no_grad():
                for p, s in zip(params, start):
                    p.copy_(s)
            log_alpha -= LOG_R_DOWN
            rejected += 1
        else:
            reason = f"stalled at epoch {epoch + 1}: {MAX_RETRIES} runs down to α = {math.exp(log_alpha):.3g}"
            break
        pending_pair = False
        epoch += 1
        steps += (n + batch - 1) // batch
        log_prev = log_now
        log_alpha += LOG_R_UP
        log10 = log_now / math.log(10)
        if a.time_epochs and len(run_times) > a.time_epochs:
            break
        if a.log_every and epoch % a.log_every == 0:
            print(f"epoch {epoch}: log10 loss {log10:.3f}, {rejected} runs rolled back, "
                  f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        while crossed < len(THRESHOLDS) and log10 < THRESHOLDS[crossed]:
            crossed += 1
            if not rows or rows[-1][1] != epoch:
                row(f"model-{crossed}", log10, epoch)
                lr = math.exp(log_alpha - log_now) if log_alpha - log_now < 709 else sys.float_info.max
                snap(steps, lr)
                pending_pair = lr < sys.float_info.max
        if a.record_every and epoch % a.record_every == 0:
            lr = math.exp(log_alpha - log_now) if log_alpha - log_now < 709 else sys.float_info.max
            if snapshots and snapshots[-1][0] == steps:
                snapshots[-1] = (steps, lr, snapshots[-1][2])  # the last pair's θ(t+1) is this θ
            else:
                snap(steps, lr)
            pending_pair = lr < sys.float_info.max
        if log10 <= a.stop_log10_loss:
            reason = f"log10 loss {log10:.2f} <= {a.stop_log10_loss:g}"
            break
    elapsed = time.perf_counter() - t0
    if a.time_epochs:
        # The first run warms the device up (kernels, allocator): the rest are timed.
        rest = run_times[1:]
        print(f"{len(run_times)} runs of an epoch ({n // batch} steps of {batch} and the loss on the {n} images; "
              f"{epoch} stood, log10 loss {log_prev / math.log(10):.3f}): first {run_times[0]:.3f} s, then "
              f"{', '.join(f'{r:.3f}' for r in rest)} s: {sum(rest) / max(len(rest), 1):.3f} s per run on {dev}"
              f"{' (' + torch.cuda.get_device_name(dev) + ')' if dev.type == 'cuda' else ''}")
        return
    final = log_prev / math.log(10)
    row("model-5", final, epoch)
    if not snapshots or snapshots[-1][0] != steps:
        snap(steps, math.exp(log_alpha - log_prev) if log_alpha - log_prev < 709 else sys.float_info.max)
    margins = [r[3] for r in rows]
    mono = all(b >= a_ for a_, b in zip(margins, margins[1:]))
    print(f"{epoch} epochs, {rejected} runs rolled back, {elapsed:.1f} s; ended: {reason}; "
          f"normalized margin non-decreasing across the rows: {mono}", flush=True)
    save(a, net, X, xtr, ytr, snapshots)


def plain_gd(a, net, params, X, Y, xtr, ytr, snap, snapshots):
    """--gd-lr: θ ← θ − η∇𝓛̄ on the whole training set, η constant (the recorded lr of every record)."""
    k = max(a.record_every, 1)
    t0 = time.perf_counter()
    for s in range(a.gd_steps + 1):
        if s % k in (0, 1) or s == a.gd_steps:
            snap(s, a.gd_lr)
        if s == a.gd_steps:
            break
        for p in params:
            p.grad = None
        lb = log_mean_loss(net(X), Y)
        lb.backward()  # ∇ log 𝓛̄ = ∇𝓛̄/𝓛̄, so η∇𝓛̄ = η·𝓛̄·∇ log 𝓛̄ (finite in log domain)
        with torch.no_grad():
            c = a.gd_lr * torch.exp(lb)
            for p in params:
                p.sub_(p.grad * c)
        if a.log_every and (s + 1) % a.log_every == 0:
            print(f"step {s + 1}: log10 loss before it {lb.item() / math.log(10):.4f}, "
                  f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    log_now, qmin, acc = evaluate(net, X, Y, max(len(Y), 1000))
    print(f"{a.gd_steps} steps of GD at η = {a.gd_lr:g}: log10 loss {log_now / math.log(10):.4f}, q_min {qmin:.4g}, "
          f"train {100 * acc:.1f}%, {time.perf_counter() - t0:.1f} s", flush=True)
    save(a, net, X, xtr, ytr, snapshots)


def save(a, net, X, xtr, ytr, snapshots):
    if a.out:
        keys = list(net.state_dict().keys())
        arrays = {
            "step": np.array([s[0] for s in snapshots], dtype=np.int64),
            "lr": np.array([s[1] for s in snapshots], dtype=np.float64),
            "reduction": np.array("mean"),
            "X": xtr[:, None].astype(np.float64),
            "y": ytr.astype(np.int64),
            "modules": np.array([str(m) for m in net]),
        }
        for i, k in enumerate(keys):
            arrays["theta/" + k] = np.stack([s[2][i] for s in snapshots]).astype(np.float64)
        with torch.no_grad():
            arrays["outputs"] = net(X).cpu().numpy()
        np.savez_compressed(a.out, **arrays)
        print(f"{a.out}: {len(snapshots)} records", file=sys.stderr)


if __name__ == "__main__":
    main()

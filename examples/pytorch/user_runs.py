#!/usr/bin/python3
"""The user scenarios of docs/check.md ("Weighted runs", "Mistakes check
catches"), written as a PyTorch user writes them, into check/testdata/scenarios.

    /usr/bin/python3 examples/pytorch/user_runs.py --out check/testdata/scenarios

Each file is a run in implicitbias's trajectory format; `go test ./check -run
TestScenario` pins the verdicts each must get (check/scenario_test.go).

Linear model on digits 0/1 (64 features, 100 images, pixels / 16), logistic
loss through F.binary_cross_entropy_with_logits, full-batch SGD:
    weighted_raw    weight=w, w_n = 0.5 + 2.5 u_n (u uniform, seeded)
    weighted_mean1  the same weights divided by their mean
    weighted_sum1   the same weights divided by their sum
    weighted_const  weight=2 for every sample
    erm_linear      no weights (no `weights` array)
A bias-free 64-8-1 ReLU MLP on the same data, and a mistake each:
    nozerograd      opt.zero_grad() forgotten: the gradients accumulate
    meanassum       a mean loss, declared reduction "sum"
    minibatch       batches of 25 samples, shuffled
    float32late     trained in float32, converted to float64 when saved
    sparse500       correct GD, recorded every 500 steps (no consecutive pairs)
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F


def load_digits01(path, n):
    rows = np.loadtxt(path, delimiter=",")
    keep = rows[(rows[:, 0] == 0) | (rows[:, 0] == 1)][:n]
    return keep[:, 1:] / 16.0, keep[:, 0]


def pairs(steps, k):
    ts = np.unique(np.round(np.geomspace(1, steps - 1, k)).astype(np.int64) - 1)
    return sorted({int(t) for t in ts} | {int(t) + 1 for t in ts})


def run(name, out, X, y, hidden, steps, lr, keep, weights=None, declared="mean",
        zero_grad=True, batch=None, dtype=torch.float64, seed=1):
    torch.manual_seed(seed)
    Xt = torch.from_numpy(X).to(dtype)
    yt = torch.from_numpy(y).to(dtype)
    if hidden:
        net = torch.nn.Sequential(torch.nn.Linear(X.shape[1], hidden, bias=False), torch.nn.ReLU(),
                                  torch.nn.Linear(hidden, 1, bias=False)).to(dtype)
    else:
        net = torch.nn.Sequential(torch.nn.Linear(X.shape[1], 1, bias=False)).to(dtype)
    wt = None if weights is None else torch.from_numpy(weights).to(dtype)
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    rec = {"step": [], "lr": [], "theta": {k: [] for k in net.state_dict()}}
    for t in range(steps + 1):
        if t in keep or t == steps:
            rec["step"].append(t)
            rec["lr"].append(lr)
            for k, v in net.state_dict().items():
                rec["theta"][k].append(v.detach().clone().double().numpy())
        if t == steps:
            break
        if zero_grad:
            opt.zero_grad()
        idx = torch.randperm(len(y), generator=gen)[:batch] if batch else slice(None)
        w = None if wt is None else wt[idx]
        loss = F.binary_cross_entropy_with_logits(net(Xt[idx]).squeeze(1), yt[idx], weight=w)
        loss.backward()
        opt.step()
    arrays = {"step": np.array(rec["step"], dtype=np.int64), "lr": np.array(rec["lr"]),
              "reduction": np.array(declared), "X": X, "y": y,
              "modules": np.array([str(m) for m in net])}
    for k, v in rec["theta"].items():
        arrays["theta/" + k] = np.stack(v)
    net = net.double()
    with torch.no_grad():
        arrays["outputs"] = net(torch.from_numpy(X)).numpy()
    if weights is not None:
        arrays["weights"] = weights
    path = os.path.join(out, name + ".npz")
    np.savez_compressed(path, **arrays)
    print(f"{path}: {len(rec['step'])} records, last loss {loss.item():.6g}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "fixtures", "data", "digits.csv"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    X, y = load_digits01(a.data, 100)
    w = 0.5 + 2.5 * np.random.default_rng(1).random(len(y))
    lin = dict(hidden=0, steps=20000, lr=1.0, keep=set(pairs(20000, 30)))
    run("weighted_raw", a.out, X, y, weights=w, **lin)
    run("weighted_mean1", a.out, X, y, weights=w / w.mean(), **lin)
    run("weighted_sum1", a.out, X, y, weights=w / w.sum(), lr=100.0, **{k: v for k, v in lin.items() if k != "lr"})
    run("weighted_const", a.out, X, y, weights=np.full(len(y), 2.0), **lin)
    run("erm_linear", a.out, X, y, **lin)
    mlp = dict(hidden=8, steps=3000, lr=1.0, keep=set(pairs(3000, 10)))
    run("nozerograd", a.out, X, y, zero_grad=False, **{**mlp, "lr": 0.01})
    run("meanassum", a.out, X, y, declared="sum", **mlp)
    run("minibatch", a.out, X, y, batch=25, **mlp)
    run("float32late", a.out, X, y, dtype=torch.float32, **mlp)
    run("sparse500", a.out, X, y, **{**mlp, "keep": set(range(0, 3001, 500))})


if __name__ == "__main__":
    main()

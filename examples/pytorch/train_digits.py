#!/usr/bin/python3
"""Train a bias-free 2-layer ReLU MLP on digits 0/1 with PyTorch and save the
trajectory in implicitbias's format (docs/check.md), for `implicitbias check`.

Needs Debian's PyTorch and NumPy (the project installs nothing else by hand):

    apt-get install -y python3-torch python3-numpy     # or: examples/pytorch/run.sh

Usage:

    /usr/bin/python3 examples/pytorch/train_digits.py --variant gd --out gd.npz
    go run ./cmd/implicitbias check --run gd.npz

Variants (each flagged differently by check):
    gd      full-batch gradient descent, logistic loss: the setting of LL
    adam    the same net trained with Adam: not gradient descent
    wd      gradient descent with weight decay: not gradient descent on 𝓛
    bias    gradient descent on the same net with biases: not homogeneous

The data are the first --n images of digits 0 and 1 of scikit-learn's digits
(fixtures/data/digits.csv in this repository, pixels divided by 16), labels
y = 0/1 (BCEWithLogitsLoss's targets; check reads them as -1/+1).
Everything is float64; the loss is the mean of log(1 + exp(-y f(x))) over the
samples, written with softplus so its gradient is accurate at large margins.
Records come in pairs of consecutive steps (t, t+1) at steps spaced
geometrically, so that check can verify every recorded step is -lr * grad.
"""
import argparse
import os

import numpy as np
import torch


class ReLUPow(torch.nn.Module):
    """x -> max(x, 0)^k; str() is 'ReLUPow(k=K)', which check maps to relu<K>."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.relu(x) ** self.k

    def extra_repr(self):
        return f"k={self.k}"


def load_digits01(path, n):
    rows = np.loadtxt(path, delimiter=",")
    keep = rows[(rows[:, 0] == 0) | (rows[:, 0] == 1)][:n]
    X = keep[:, 1:] / 16.0
    y = keep[:, 0]  # 0 or 1
    return X, y


def record_steps(steps, pairs):
    """Pairs (t, t+1) at t spaced geometrically from 0 to steps-1."""
    ts = np.unique(np.round(np.geomspace(1, steps - 1, pairs)).astype(np.int64) - 1)
    out = set()
    for t in ts:
        out.add(int(t))
        out.add(int(t) + 1)
    return sorted(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", choices=["gd", "adam", "wd", "bias"], default="gd")
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--width", type=int, default=8)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--act", default="relu", help="relu or relu<k> (e.g. relu3)")
    ap.add_argument("--loss", choices=["logistic", "exp"], default="logistic")
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "fixtures", "data", "digits.csv"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    torch.manual_seed(a.seed)
    torch.set_default_dtype(torch.float64)
    X, y = load_digits01(a.data, a.n)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(2 * y - 1)

    bias = a.variant == "bias"
    act = torch.nn.ReLU() if a.act == "relu" else ReLUPow(int(a.act[4:]))
    net = torch.nn.Sequential(
        torch.nn.Linear(X.shape[1], a.width, bias=bias),
        act,
        torch.nn.Linear(a.width, 1, bias=bias),
    )
    lr = a.lr if a.lr is not None else (0.01 if a.variant == "adam" else 1.0)
    if a.variant == "adam":
        opt = torch.optim.Adam(net.parameters(), lr=lr)
    elif a.variant == "wd":
        opt = torch.optim.SGD(net.parameters(), lr=lr, weight_decay=1e-3)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=lr)

    keep = set(record_steps(a.steps, a.pairs))
    steps, lrs, thetas = [], [], {k: [] for k in net.state_dict()}
    for t in range(a.steps + 1):
        if t in keep or t == a.steps:
            steps.append(t)
            lrs.append(lr)
            for k, v in net.state_dict().items():
                thetas[k].append(v.detach().clone().numpy())
        if t == a.steps:
            break
        opt.zero_grad()
        margins = yt * net(Xt).squeeze(1)
        if a.loss == "exp":
            loss = torch.exp(-margins).mean()
        else:
            loss = torch.nn.functional.softplus(-margins).mean()
        loss.backward()
        opt.step()

    arrays = {
        "step": np.array(steps, dtype=np.int64),
        "lr": np.array(lrs, dtype=np.float64),
        "reduction": np.array("mean"),
    }
    for k, v in thetas.items():
        arrays["theta/" + k] = np.stack(v).astype(np.float64)
    arrays["X"] = X
    arrays["y"] = y
    with torch.no_grad():
        arrays["outputs"] = net(Xt).numpy()  # net(X) at the last record: check compares its own
    arrays["modules"] = np.array([str(m) for m in net])
    np.savez_compressed(a.out, **arrays)
    print(f"{a.out}: {len(steps)} records, final loss {loss.item():.6g}")


if __name__ == "__main__":
    main()

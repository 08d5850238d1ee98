#!/usr/bin/python3
"""A run of the shape of LL's CNN (Table 1's network, full width: about
1.6·10⁶ parameters) for measuring what `implicitbias check` costs at that
size (docs/check.md, "Cost"): random 28×28 images, 10 classes, full-batch
float64 SGD on the mean cross-entropy, every step recorded.

    /usr/bin/python3 examples/pytorch/synthetic_cnn.py --out cnn.npz   # 1000 images, 20 records
    go run ./cmd/implicitbias check --run cnn.npz

The network maps to cnn2d:28x28x1:relu:32c5-valid-max2,64c3-valid-max2:1024:10+bias@1
(a bias on the first convolution only). The data are noise: the run measures
cost, not the theorems (examples/pytorch/ll_table1.py is the real run).
"""
import argparse

import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--records", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.manual_seed(1)
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(1)
    X = rng.random((a.n, 1, 28, 28))
    y = rng.integers(0, 10, a.n)
    nn = torch.nn
    net = nn.Sequential(nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, bias=False), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(1600, 1024, bias=False), nn.ReLU(), nn.Linear(1024, 10, bias=False))
    opt = torch.optim.SGD(net.parameters(), lr=a.lr)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    thetas = {k: [] for k in net.state_dict()}
    for t in range(a.records):
        for k, v in net.state_dict().items():
            thetas[k].append(v.detach().clone().numpy())
        if t == a.records - 1:
            break
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(Xt), yt).backward()
        opt.step()
    arrays = {"step": np.arange(a.records, dtype=np.int64), "lr": np.full(a.records, a.lr),
              "reduction": np.array("mean"), "X": X, "y": y, "modules": np.array([str(m) for m in net])}
    for k, v in thetas.items():
        arrays["theta/" + k] = np.stack(v)
    with torch.no_grad():
        arrays["outputs"] = net(Xt).numpy()
    np.savez(a.out, **arrays)
    print(f"{a.out}: {a.records} records, {sum(p.numel() for p in net.parameters())} parameters")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""PyTorch peer of `implicitbias bench`: full-batch GD on the summed
exponential loss of a bias-free ReLU network, with autograd, as a user would
write it (loss, backward, an in-place update under no_grad).

  /usr/bin/python3 bench/torch_gd.py PROBLEM.json [--steps N] [--threads T] [--json]
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import peer_common  # noqa: E402

args = peer_common.parse_args("torch")

import torch  # noqa: E402  (after the thread variables are set)


def main():
    torch.set_num_threads(args.threads)
    p, layers = peer_common.load_problem(args.problem)
    n, d = p["n"], p["d"]
    X = torch.tensor(p["x"], dtype=torch.float64).reshape(n, d)
    y = torch.tensor(p["y"], dtype=torch.float64)
    W0 = [torch.tensor(w, dtype=torch.float64).reshape(o, i) for o, i, w in layers]
    W = [w.clone().requires_grad_() for w in W0]
    lr = p["lr"]

    def loss():
        h = X
        for w in W[:-1]:
            h = torch.relu(h @ w.T)
        f = (h @ W[-1].T).squeeze(1)
        return torch.exp(-y * f).sum()

    step, reset, final_loss = peer_common.torch_gd(torch, W, W0, loss, lr)
    peer_common.run("torch", args, p, step, reset, final_loss)


main()

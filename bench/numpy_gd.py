#!/usr/bin/python3
"""NumPy peer of `implicitbias bench`: full-batch GD on the summed exponential
loss of a bias-free ReLU network, with the backward pass written by hand.

  /usr/bin/python3 bench/numpy_gd.py PROBLEM.json [--steps N] [--threads T] [--json]

NumPy's threads are its BLAS's (OpenBLAS on Debian with libopenblas0-pthread).
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import peer_common  # noqa: E402

args = peer_common.parse_args("numpy")

import numpy as np  # noqa: E402  (after the thread variables are set)


def main():
    p, layers = peer_common.load_problem(args.problem)
    n, d = p["n"], p["d"]
    X = np.array(p["x"], dtype=np.float64).reshape(n, d)
    y = np.array(p["y"], dtype=np.float64)
    W0 = [np.array(w, dtype=np.float64).reshape(o, i) for o, i, w in layers]
    W = [w.copy() for w in W0]
    lr = p["lr"]

    def forward():
        acts, masks = [X], []
        h = X
        for w in W[:-1]:
            z = h @ w.T
            masks.append(z > 0)
            h = np.maximum(z, 0.0)
            acts.append(h)
        f = (h @ W[-1].T)[:, 0]
        return f, acts, masks

    def step():
        f, acts, masks = forward()
        e = np.exp(-y * f)          # ℓ_i; 𝓛 = e.sum()
        g = (-y * e)[:, None]       # ∂𝓛/∂f_i, n×1
        grads = [None] * len(W)
        for l in range(len(W) - 1, -1, -1):
            grads[l] = g.T @ acts[l]
            if l > 0:
                g = (g @ W[l]) * masks[l - 1]
        for w, gw in zip(W, grads):
            w -= lr * gw

    def reset():
        for w, w0 in zip(W, W0):
            w[...] = w0

    def final_loss():
        f, _, _ = forward()
        return float(np.exp(-y * f).sum())

    peer_common.run("numpy", args, p, step, reset, final_loss)


main()

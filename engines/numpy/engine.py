#!/usr/bin/python3
"""The NumPy reference adapter of implicitbias's engine protocol (docs/engines.md).

A hand-written float64 MLP (Linear layers and one activation, the request's module
list) with its own backward pass, trained by gradient descent on the summed loss;
one JSON request per line on stdin, one JSON answer per line on stdout, the
trajectory in check's NPZ format (docs/check.md).

  python3 engines/numpy/engine.py [--logdomain] [--fault NAME]

--logdomain carries log L (LL App. K.2): logsumexp of the per-sample log-losses and
the direction grad(log L), so nothing underflows (logistic and exponential losses).
--fault NAME plants one bug in this adapter's code (FAULTS below).
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adapter"))
from protocol import LB_ALPHA0, LB_DOWN, LB_RETRIES, LB_UP, schedule, Unsupported, arguments, serve, trajectory  # noqa: E402

FAULTS = {
    "preconditioner": "the coordinate with the largest |dL/dtheta| at the first step gets 4x its gradient at every step",
    "weights-ignored": "the sample weights are not applied",
    "backward-first-block": "the backward pass doubles the gradient of the first layer's weight",
    "loss-factor-dropped": "the step is -eta*grad(log L): the factor L is dropped (normalized GD)",
    "missing-zero-grad": "the gradient buffer is never reset: gradients accumulate over the steps",
}


class MLP:
    """Linear layers with one activation between them, theta flat as a state_dict."""

    def __init__(self, model):
        self.layers, self.act, off = [], None, 0
        for m in model["modules"]:
            k = m["kind"]
            if k == "Linear":
                n = m["in"] * m["out"]
                self.layers.append((off, m["in"], m["out"], m.get("bias", False)))
                off += n + (m["out"] if m.get("bias") else 0)
            elif k in ("ReLU", "LeakyReLU", "ReLUPow", "Square", "Tanh"):
                self.act = m
            else:
                raise Unsupported(f"the NumPy adapter has no {k} (MLPs only)")
        self.size = off

    def sigma(self, z):
        a = self.act
        k = a["kind"]
        if k == "ReLU":
            return np.maximum(z, 0), (z > 0).astype(float)
        if k == "LeakyReLU":
            return np.where(z > 0, z, a["slope"] * z), np.where(z > 0, 1.0, a["slope"])
        if k == "ReLUPow":
            p = a["power"]
            r = np.maximum(z, 0)
            return r ** p, p * r ** (p - 1)
        if k == "Square":
            return z * z, 2 * z
        t = np.tanh(z)
        return t, 1 - t * t

    def forward(self, theta, X):
        h, cache = X, []
        for i, (off, fin, fout, bias) in enumerate(self.layers):
            W = theta[off:off + fin * fout].reshape(fout, fin)
            z = h @ W.T
            if bias:
                z = z + theta[off + fin * fout:off + fin * fout + fout]
            cache.append((h, None))
            if i + 1 < len(self.layers) and self.act is not None:
                h, d = self.sigma(z)
                cache[-1] = (cache[-1][0], d)
            else:
                h = z
        return h, cache

    def backward(self, theta, cache, gout, fault):
        g = np.zeros_like(theta)
        for i in reversed(range(len(self.layers))):
            off, fin, fout, bias = self.layers[i]
            h, _ = cache[i]
            W = theta[off:off + fin * fout].reshape(fout, fin)
            gW = gout.T @ h
            if fault == "backward-first-block" and i == 0:
                gW = 2 * gW
            g[off:off + fin * fout] = gW.reshape(-1)
            if bias:
                g[off + fin * fout:off + fin * fout + fout] = gout.sum(0)
            if i > 0:
                gout = gout @ W
                d = cache[i - 1][1]
                if d is not None:
                    gout = gout * d
        return g


def log_logistic(q):
    """log log(1 + e^{-q}), accurate far out (q > 30: -q + log(log1p(u)/u), u = e^{-q})."""
    u = np.exp(-np.maximum(q, 30))
    tail = -q + np.log(np.where(u > 0, np.log1p(u) / np.where(u > 0, u, 1), 1))
    return np.where(q > 30, tail, np.log(np.logaddexp(0, -np.minimum(q, 30))))


class Objective:
    def __init__(self, req, logdomain, fault):
        self.kind, self.y = req["loss"], np.array(req["y"], dtype=float)
        w = req.get("weights")
        self.w = None if (w is None or fault == "weights-ignored") else np.array(w, dtype=float)
        self.logdomain = logdomain

    def eval(self, out):
        """(log L, dL/dout / L): the loss's log and the output gradient of log L."""
        y, k = self.y, self.kind
        w = np.ones(len(y)) if self.w is None else self.w
        if k == "ce":
            s = out - out.max(1, keepdims=True)
            lse = np.log(np.exp(s).sum(1))
            per = lse - s[np.arange(len(y)), y.astype(int)]
            g = np.exp(s - lse[:, None])
            g[np.arange(len(y)), y.astype(int)] -= 1
            L = (w * per).sum()
            return math.log(L) if L > 0 else -math.inf, w[:, None] * g / L
        o = out[:, 0]
        if k == "squared":
            per, d = 0.5 * (o - y) ** 2, o - y
            L = (w * per).sum()
            if L == 0:
                # interpolated exactly (ZD-span's n = 2 cases reach it): grad L = 0, not 0/0
                return -math.inf, np.zeros((len(y), 1))
            return math.log(L), (w * d / L)[:, None]
        q = y * o
        if self.logdomain:
            logl = log_logistic(q) if k == "logistic" else -q
            # d log l/dq: logistic -e^{-q}/((1+e^{-q}) log(1+e^{-q})), exp -1
            dlog = -np.exp(-np.logaddexp(0, q) - logl) if k == "logistic" else -np.ones_like(q)
            lw = logl + np.log(w)
            m = lw.max()
            logL = m + math.log(np.exp(lw - m).sum())
            p = np.exp(lw - logL)
            return logL, (p * dlog * y)[:, None]
        if k == "logistic":
            per, dq = np.logaddexp(0, -q), -1 / (1 + np.exp(q))
        else:
            per = np.exp(-q)
            dq = -per
        L = (w * per).sum()
        return (math.log(L) if L > 0 else -math.inf), (w * dq * y / L)[:, None] if L > 0 else np.full((len(y), 1), np.nan)


def train(req, args):
    net = MLP(req["model"])
    theta = np.array(req["theta"], dtype=float)
    if theta.size != net.size:
        raise ValueError(f"theta has {theta.size} entries, the model {net.size}")
    X = np.array(req["x"]["data"], dtype=float).reshape(req["x"]["shape"])
    obj = Objective(req, args.logdomain, args.fault)
    rule = req["rule"]
    eta = rule.get("lr", 0.0)
    steps, stop = req.get("steps", 0), req.get("stop_logloss", 0.0)
    recorded = schedule(req.get("record") or {})
    alpha = rule.get("alpha0") or LB_ALPHA0
    acc, precond = np.zeros_like(theta), None
    rec = {"step": [], "theta": [], "log_eta": [], "log_time": []}
    logT, last, stalled, run_error = -math.inf, -math.inf, False, ""

    def keep(t):
        rec["step"].append(t)
        rec["theta"].append(theta.copy())
        rec["log_eta"].append(last if t > 0 else 0.0)
        rec["log_time"].append(logT if t > 0 else 0.0)

    def logloss(th):
        return obj.eval(net.forward(th, X)[0])[0]

    for t in range(steps + 1):
        out, cache = net.forward(theta, X)
        logL, gout = obj.eval(out)
        done = t == steps or (stop != 0 and logL <= stop)
        if done or recorded(t):
            keep(t)
        if done:
            break
        d = net.backward(theta, cache, gout, args.fault)  # grad(log L) = grad(L)/L
        if args.fault == "missing-zero-grad":
            acc += d
            d = acc
        if args.fault == "preconditioner":
            if precond is None:
                precond = int(np.argmax(np.abs(d)))
            d = d.copy()
            d[precond] *= 4
        if rule["kind"] == "gd":
            c = eta if args.fault == "loss-factor-dropped" else eta * math.exp(logL)
            theta = theta - c * d
            last = math.log(eta)
        else:
            accepted = False
            for _ in range(LB_RETRIES):
                trial = theta - alpha * d
                if logloss(trial) < logL:
                    theta, last = trial, math.log(alpha) - logL
                    alpha *= LB_UP
                    accepted = True
                    break
                alpha /= LB_DOWN
            if not accepted:
                stalled = True
                if rec["step"][-1] != t:
                    keep(t)
                break
        logT = float(np.logaddexp(logT, last))
        if not np.all(np.isfinite(theta)):
            run_error = f"step {t}: theta became non-finite (diverged)"
            break
    th = np.stack(rec["theta"])
    outputs = None if run_error else net.forward(th[-1], X)[0]
    return trajectory(req, rec["step"], th, [m["text"] for m in req["model"]["modules"]], X, outputs,
                      rec["log_eta"], rec["log_time"], stalled, run_error)


def evaluate(req, args):
    net = MLP(req["model"])
    theta = np.array(req["theta"], dtype=float)
    X = np.array(req["x"]["data"], dtype=float).reshape(req["x"]["shape"])
    out, _ = net.forward(theta, X)
    n, K = out.shape
    grads = []
    for i in range(n):
        _, cache = net.forward(theta, X[i:i + 1])
        for k in range(K):
            e = np.zeros((1, K))
            e[0, k] = 1
            grads.append(net.backward(theta, cache, e, args.fault))
    a = {"type": "eval", "id": req["id"], "phi": out.reshape(-1).tolist(), "grad": np.concatenate(grads).tolist()}
    if req.get("loss"):
        obj = Objective(req, args.logdomain, args.fault)
        logL, gout = obj.eval(out)
        _, cache = net.forward(theta, X)
        a["logloss"], a["dir"] = logL, net.backward(theta, cache, gout, args.fault).tolist()
    return a


def main():
    args = arguments(__doc__, FAULTS)
    np.seterr(all="ignore")  # overflow shows as a non-finite theta, answered as run_error
    hello = {"engine": f"numpy {np.__version__} float64{' logdomain' if args.logdomain else ''}",
             "losses": ["logistic", "exp"] if args.logdomain else ["logistic", "exp", "ce", "squared"],
             "rules": ["gd", "lossbased"], "conv": False, "logdomain": args.logdomain, "eval": True,
             "faults": sorted(FAULTS), "fault": args.fault or ""}
    serve(hello, lambda req: train(req, args), lambda req: evaluate(req, args))


if __name__ == "__main__":
    main()

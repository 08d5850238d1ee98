#!/usr/bin/python3
"""The PyTorch reference adapter of implicitbias's engine protocol (docs/engines.md).

Reads one JSON request per line on stdin, trains the case the way a PyTorch user
writes it -- float64, an nn.Sequential, torch.optim.SGD as the gradient step, the
loss from torch.nn -- and answers one JSON line: the trajectory in check's NPZ
format (docs/check.md) in the file the request names, or inline.

  python3 engines/pytorch/engine.py [--logdomain] [--fault NAME]

--logdomain carries log L instead of L (LL App. K.2): the loss tensor is
logsumexp of the per-sample log-losses, and SGD descends it with lr = eta*L
(GD) or alpha (the loss-based schedule), so that nothing underflows at L < 1e-308.
--fault NAME plants one bug in this adapter's own code (FAULTS below), so that the
suite's checks can be seen to catch it here.
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adapter"))
from protocol import LB_ALPHA0, LB_DOWN, LB_RETRIES, LB_UP, schedule, arguments, serve, trajectory  # noqa: E402

FAULTS = {
    "preconditioner": "the coordinate with the largest |dL/dtheta| at the first step gets 4x its gradient at every step",
    "weights-ignored": "the sample weights are not passed to the loss",
    "backward-first-block": "a hook doubles the gradient of the first layer's weight (a wrong backward through one layer)",
    "loss-factor-dropped": "the step is -eta*grad(log L): the factor L is dropped (normalized GD)",
    "missing-zero-grad": "optimizer.zero_grad() is never called: gradients accumulate over the steps",
}


class ReLUPow(nn.Module):
    """max(x, 0)^k (the module of examples/pytorch/train_digits.py)."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.relu(x) ** self.k

    def extra_repr(self):
        return f"k={self.k}"


class Square(nn.Module):
    def forward(self, x):
        return x * x


class StridedSameConv2d(nn.Conv2d):
    """Conv2d with "same" padding and a stride: ceil(in/S) outputs, P = max((out-1)*S + K - in, 0)
    zeros in each direction, P//2 before and the rest after (TensorFlow's rule, models/conv2d.go).
    The parameters are Conv2d's (weight, bias), so the state_dict keys do not change."""

    def forward(self, x):
        k, s = self.kernel_size[0], self.stride[0]
        pads = []
        for n in (x.shape[-1], x.shape[-2]):  # F.pad takes the last dimension first
            p = max((-(-n // s) - 1) * s + k - n, 0)
            pads += [p // 2, p - p // 2]
        return F.conv2d(F.pad(x, pads), self.weight, self.bias, self.stride)


def build(model):
    """The nn.Sequential of the request's module list, float64."""
    mods = []
    for m in model["modules"]:
        k = m["kind"]
        if k == "Linear":
            mods.append(nn.Linear(m["in"], m["out"], bias=m.get("bias", False)))
        elif k == "Conv2d" and m.get("same") and m["stride"] > 1:
            # PyTorch refuses padding="same" with a stride (1.13: ValueError).
            mods.append(StridedSameConv2d(m["in"], m["out"], m["kernel"], stride=m["stride"], bias=m.get("bias", False)))
        elif k == "Conv2d":
            mods.append(nn.Conv2d(m["in"], m["out"], m["kernel"], stride=m["stride"],
                                  padding="same" if m.get("same") else 0, bias=m.get("bias", False)))
        elif k == "Conv1d":
            mods.append(nn.Conv1d(m["in"], m["out"], m["kernel"], stride=m["stride"], bias=m.get("bias", False)))
        elif k in ("MaxPool1d", "AvgPool1d", "MaxPool2d", "AvgPool2d"):
            mods.append(getattr(nn, k)(m["kernel"]))
        elif k == "Flatten":
            mods.append(nn.Flatten())
        elif k == "ReLU":
            mods.append(nn.ReLU())
        elif k == "LeakyReLU":
            mods.append(nn.LeakyReLU(m["slope"]))
        elif k == "ReLUPow":
            mods.append(ReLUPow(m["power"]))
        elif k == "Square":
            mods.append(Square())
        elif k == "Tanh":
            mods.append(nn.Tanh())
        else:
            raise ValueError(f"unknown module {k}")
    return nn.Sequential(*mods).double()


def load(net, model, flat):
    """Sets the parameters from the flat theta (state_dict tensors in order, C order)."""
    sd = net.state_dict()
    names = [p["name"] for p in model["params"]]
    if names != list(sd.keys()):
        raise ValueError(f"state_dict keys {list(sd.keys())} are not the request's {names}")
    off = 0
    with torch.no_grad():
        for p in model["params"]:
            t = sd[p["name"]]
            if list(t.shape) != p["shape"]:
                raise ValueError(f"{p['name']} has shape {list(t.shape)}, the request {p['shape']}")
            t.copy_(torch.tensor(flat[off:off + t.numel()], dtype=torch.float64).reshape(t.shape))
            off += t.numel()
    if off != len(flat):
        raise ValueError(f"theta has {len(flat)} entries, the parameters {off}")


def flat_theta(net):
    return torch.cat([v.detach().reshape(-1) for v in net.state_dict().values()]).clone()


class Objective:
    """The loss of a request, as PyTorch users write it (sum over the samples)."""

    def __init__(self, req, logdomain, fault):
        self.kind = req["loss"]
        self.y = torch.tensor(req["y"], dtype=torch.float64)
        w = req.get("weights")
        self.w = None if (w is None or fault == "weights-ignored") else torch.tensor(w, dtype=torch.float64)
        self.logdomain = logdomain

    def loss(self, out):
        """L (plain) or log L (--logdomain) of the outputs."""
        if self.logdomain:
            return self.log_loss(out)
        k, y, w = self.kind, self.y, self.w
        if k == "logistic":
            per = F.binary_cross_entropy_with_logits(out.squeeze(1), (y + 1) / 2, reduction="none")
        elif k == "ce":
            per = F.cross_entropy(out, y.long(), reduction="none")
        elif k == "exp":
            per = torch.exp(-y * out.squeeze(1))
        else:  # squared
            per = 0.5 * (out.squeeze(1) - y) ** 2
        # static sample weights as users write them: (w * loss_per_sample).sum()
        return per.sum() if w is None else (w * per).sum()

    def log_loss(self, out):
        """log L = logsumexp_n(log w_n + log l_n), every term in log domain."""
        k, y = self.kind, self.y
        if k == "logistic":
            # log log(1 + e^{-q}) = log softplus(-q); for q > 30, -q + log(log1p(u)/u) = -q - u/2 + O(u^2),
            # u = e^{-q} < 1e-13. Both branches stay finite everywhere (each is evaluated on a clamped q):
            # torch.where passes 0 * (the other branch's gradient), and 0 * inf = NaN once u underflows
            # (q > 745) -- which stalled the loss-based schedule at log L ~ -150 (docs/engines.md).
            q = y * out.squeeze(1)
            u = torch.exp(-q.clamp(min=30))
            per = torch.where(q > 30, -q - u / 2, torch.log(F.softplus(-q.clamp(max=30))))
        elif k == "exp":
            per = -y * out.squeeze(1)
        elif k == "ce":
            # log CE = log(logsumexp_j(s_j - s_y)); with m = max_{j!=y}(s_j - s_y) < 0 far out,
            # CE = log1p(sum e^{s_j - s_y}) ~ sum e^{s_j - s_y}
            d = out - out.gather(1, y.long().unsqueeze(1))
            mask = F.one_hot(y.long(), out.shape[1]).bool()
            z = torch.logsumexp(d.masked_fill(mask, -math.inf), dim=1)
            # as the logistic loss: z - e^z/2 far out, both branches finite (clamped)
            per = torch.where(z < -30, z - torch.exp(z.clamp(max=-30)) / 2, torch.log(F.softplus(z.clamp(min=-30))))
        else:
            per = 2 * torch.log(torch.abs(out.squeeze(1) - y)) - math.log(2)
        if self.w is not None:
            per = per + torch.log(self.w)
        return torch.logsumexp(per, 0)


def train(req, args):
    torch.manual_seed(0)
    net = build(req["model"])
    load(net, req["model"], req["theta"])
    X = torch.tensor(req["x"]["data"], dtype=torch.float64).reshape(req["x"]["shape"])
    obj = Objective(req, args.logdomain, args.fault)
    rule = req["rule"]
    eta = rule.get("lr", 0.0)
    steps, stop = req.get("steps", 0), req.get("stop_logloss", 0.0)
    recorded = schedule(req.get("record") or {})
    params = list(net.parameters())
    opt = torch.optim.SGD(params, lr=eta if eta > 0 else 1.0)
    if args.fault == "backward-first-block":
        params[0].register_hook(lambda g: 2 * g)
    precond = None
    alpha = rule.get("alpha0") or LB_ALPHA0
    rec_steps, rec_theta, rec_lr, log_eta, log_time = [], [], [], [], []
    logT, last_log_eta, stalled = -math.inf, -math.inf, False

    def log_of(loss):
        return loss.item() if args.logdomain else math.log(loss.item()) if loss.item() > 0 else -math.inf

    for t in range(steps + 1):
        if args.fault != "missing-zero-grad":
            opt.zero_grad()
        loss = obj.loss(net(X))
        logL = log_of(loss)
        done = t == steps or (stop != 0 and logL <= stop)
        if done or recorded(t):
            rec_steps.append(t)
            rec_theta.append(flat_theta(net))
            log_eta.append(last_log_eta if t > 0 else 0.0)
            log_time.append(logT if t > 0 else 0.0)
        if done:
            break
        if rule["kind"] == "gd":
            if args.logdomain:
                # grad log L times L: SGD on log L with lr = eta * L
                lr = eta if args.fault == "loss-factor-dropped" else eta * math.exp(logL)
            else:
                if args.fault == "loss-factor-dropped":
                    loss = torch.log(loss)  # descends log L: the factor L is dropped
                lr = eta
            loss.backward()
            if args.fault == "preconditioner":
                if precond is None:
                    precond = largest_gradient(params)
                plant_precond(params, precond)
            for g in opt.param_groups:
                g["lr"] = lr
            opt.step()
            last_log_eta = math.log(eta)
        else:
            # LL App. K.1: theta <- theta - alpha * grad(L)/L, accepted when L decreases,
            # else alpha /= r_d and retried from theta; alpha *= r_u after a success.
            loss.backward()
            if args.fault == "preconditioner":
                if precond is None:
                    precond = largest_gradient(params)
                plant_precond(params, precond)
            # the step on log L is alpha; on a plain L it is alpha/L (overflows once L underflows)
            scale = 1.0 if args.logdomain else (1 / loss.item() if loss.item() > 0 else math.inf)
            start = [p.detach().clone() for p in params]
            grads = [p.grad.detach().clone() for p in params]
            accepted = False
            for _ in range(LB_RETRIES):
                with torch.no_grad():
                    for p, p0, g in zip(params, start, grads):
                        p.copy_(p0)
                        p.grad.copy_(g)
                for g in opt.param_groups:
                    g["lr"] = alpha * scale
                opt.step()
                with torch.no_grad():
                    trial = log_of(obj.loss(net(X)))
                if trial < logL:
                    last_log_eta = math.log(alpha) - logL
                    alpha *= LB_UP
                    accepted = True
                    break
                alpha /= LB_DOWN
            if not accepted:
                with torch.no_grad():
                    for p, p0 in zip(params, start):
                        p.copy_(p0)
                stalled = True
                if rec_steps[-1] != t:
                    rec_steps.append(t)
                    rec_theta.append(flat_theta(net))
                    log_eta.append(last_log_eta)
                    log_time.append(logT)
                break
        logT = np.logaddexp(logT, last_log_eta)
        if not all(torch.isfinite(p).all() for p in params):
            # what was recorded is the run, with the failure (as train.Run returns it)
            return answer(req, net, X, rec_steps, rec_theta, log_eta, log_time, stalled,
                          f"step {t}: theta became non-finite (diverged)")
    return answer(req, net, X, rec_steps, rec_theta, log_eta, log_time, stalled)


def largest_gradient(params):
    """The flat index of the largest |gradient| (at the first step)."""
    g = torch.cat([p.grad.reshape(-1) for p in params])
    return int(torch.argmax(torch.abs(g)))


def plant_precond(params, k):
    """The preconditioner fault: gradient entry k times 4 (3 more steps along it)."""
    off = 0
    for p in params:
        if k < off + p.numel():
            p.grad.view(-1)[k - off] *= 4
            return
        off += p.numel()


def answer(req, net, X, steps, thetas, log_eta, log_time, stalled, run_error=""):
    outputs = None
    if not run_error:
        with torch.no_grad():
            outputs = net(X).numpy()
    return trajectory(req, steps, torch.stack(thetas).numpy(), [str(m) for m in net], X.numpy(), outputs,
                      log_eta, log_time, stalled, run_error)


def evaluate(req, args):
    net = build(req["model"])
    load(net, req["model"], req["theta"])
    X = torch.tensor(req["x"]["data"], dtype=torch.float64).reshape(req["x"]["shape"])
    params = list(net.parameters())
    if args.fault == "backward-first-block":
        params[0].register_hook(lambda g: 2 * g)
    out = net(X)

    def backward(y):
        # .backward() as users call it (not torch.autograd.grad, which skips the
        # parameters' hooks: the backward-first-block fault must act here too)
        net.zero_grad(set_to_none=True)
        y.backward(retain_graph=True)
        return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).reshape(-1) for p in params])

    grads = [backward(out[n, k]) for n in range(out.shape[0]) for k in range(out.shape[1])]
    a = {"type": "eval", "id": req["id"], "phi": out.detach().reshape(-1).tolist(),
         "grad": torch.cat(grads).tolist()}
    if req.get("loss"):
        obj = Objective(req, True, args.fault)
        logL = obj.log_loss(net(X))
        a["logloss"] = logL.item()
        a["dir"] = backward(logL).tolist()
    return a


def main():
    args = arguments(__doc__, FAULTS)
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)  # deterministic reductions, and one core per engine
    hello = {"engine": f"pytorch {torch.__version__} float64{' logdomain' if args.logdomain else ''}",
             "losses": ["logistic", "exp", "ce", "squared"], "rules": ["gd", "lossbased"],
             "conv": True, "logdomain": args.logdomain, "eval": True,
             "faults": sorted(FAULTS), "fault": args.fault or ""}
    serve(hello, lambda req: train(req, args), lambda req: evaluate(req, args))


if __name__ == "__main__":
    main()

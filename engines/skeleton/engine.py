#!/usr/bin/python3
"""A minimal adapter (docs/engines.md): the linear model on the exponential loss, GD, in NumPy."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "adapter"))
from protocol import Unsupported, schedule, serve, trajectory  # noqa: E402


def train(req):
    if req["model"]["spec"] != "linear" or req["loss"] != "exp" or req["rule"]["kind"] != "gd":
        raise Unsupported("this adapter trains the linear model on the exponential loss with GD")
    X = np.array(req["x"]["data"]).reshape(req["x"]["shape"])
    y, w = np.array(req["y"]), np.array(req.get("weights") or [1.0] * len(req["y"]))
    theta, eta, stop = np.array(req["theta"]), req["rule"]["lr"], req.get("stop_logloss", 0)
    recorded, steps, thetas = schedule(req.get("record") or {}), [], []
    for t in range(req.get("steps", 0) + 1):
        ell = w * np.exp(-y * (X @ theta))  # per-sample weighted loss
        done = t == req.get("steps", 0) or (stop != 0 and np.log(ell.sum()) <= stop)
        if done or recorded(t):
            steps.append(t)
            thetas.append(theta.copy())
        if done:
            break
        theta = theta + eta * X.T @ (ell * y)  # theta - eta grad L, L = sum_n w_n exp(-y_n <theta, x_n>)
    return trajectory(req, steps, thetas, [m["text"] for m in req["model"]["modules"]], X, X @ theta)


def evaluate(req):
    raise Unsupported("no eval requests")


serve({"engine": "skeleton (numpy)", "losses": ["exp"], "rules": ["gd"], "conv": False,
       "logdomain": False, "eval": False, "faults": [], "fault": ""}, train, evaluate)

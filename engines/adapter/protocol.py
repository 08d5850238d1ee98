"""The adapter side of implicitbias's engine protocol (docs/engines.md), shared by
engines/pytorch/engine.py and engines/numpy/engine.py: the line loop and the
trajectory answer. A new adapter imports it (or copies its 60 lines)."""
import argparse
import json
import sys

import numpy as np

PROTOCOL = 1

# LL App. K.1's loss-based schedule: alpha(0), r_u, r_d, and the retries of one step.
LB_ALPHA0, LB_UP, LB_DOWN, LB_RETRIES = 0.1, 2 ** (1 / 5), 2 ** (1 / 10), 400


class Unsupported(Exception):
    """A case this engine cannot run: answered as kind "unsupported" (not applicable)."""


def arguments(doc, faults):
    """--logdomain and --fault NAME, the flags every reference adapter takes."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--logdomain", action="store_true", help="carry log L (LL App. K.2)")
    ap.add_argument("--fault", choices=sorted(faults), help="plant a fault in this adapter")
    return ap.parse_args()


def error(req, kind, msg):
    return {"type": "error", "id": req.get("id", 0), "kind": kind, "message": " ".join(str(msg).split())}


def serve(hello, train, evaluate):
    """Answers stdin's requests on stdout, one JSON line each, until bye or EOF."""
    for line in sys.stdin:
        req = json.loads(line)
        typ = req.get("type")
        if typ == "bye":
            break
        try:
            if typ == "hello":
                a = dict(hello, type="hello", protocol=PROTOCOL)
            elif typ == "train":
                a = train(req)
            elif typ == "eval":
                a = evaluate(req)
            else:
                a = error(req, "bad-request", f"unknown message type {typ!r}")
            out = json.dumps(a, allow_nan=False)
        except Unsupported as e:
            out = json.dumps(error(req, "unsupported", e))
        except (ValueError, RuntimeError, KeyError, TypeError) as e:
            out = json.dumps(error(req, "bad-request", f"{type(e).__name__}: {e}"))
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


def schedule(record):
    """Whether step t is recorded (the last step always is): the listed steps, or every
    `every`-th step and, with pairs, the step after each."""
    keep = set(record.get("steps") or [])
    every, pairs = max(record.get("every", 1), 1), record.get("pairs", False)
    if keep:
        return lambda t: t in keep
    return lambda t: t % every == 0 or (pairs and t % every == 1)


def trajectory(req, steps, thetas, modules, X, outputs=None, log_eta=None, log_time=None, stalled=False,
               run_error=""):
    """The answer to a train request: the records (thetas: T x P, the flat state_dict of each)
    in check's NPZ format in the file the request names, or inline; lr is the case's eta on
    the summed loss (reduction "sum"); log_eta and log_time carry a loss-based rule's."""
    T, eta = len(steps), float(req["rule"].get("lr", 0.0))  # JSON writes η = 1.0 as 1: an int
    lr = [eta if eta > 0 else 1.0] * T
    th = np.asarray(thetas, dtype=np.float64)
    a = {"type": "trajectory", "id": req["id"], "stalled": stalled}
    if run_error:
        a["run_error"] = run_error
    if req["rule"]["kind"] != "gd":
        a["log_eta"], a["log_time"] = [float(v) for v in log_eta], [float(v) for v in log_time]
    if not req.get("out"):
        a["inline"] = {"step": list(steps), "lr": lr, "theta": th.tolist(), "modules": modules}
        return a
    arrays, off = {}, 0
    for p in req["model"]["params"]:
        n = int(np.prod(p["shape"]))
        arrays["theta/" + p["name"]] = th[:, off:off + n].reshape([T] + p["shape"])
        off += n
    if outputs is not None:  # net(X) at the last record: the client checks the mapping with it
        arrays["outputs"] = np.asarray(outputs, dtype=np.float64)
    np.savez(req["out"], step=np.array(steps, dtype=np.int64), lr=np.array(lr, dtype=np.float64), reduction=np.array("sum"),
             X=np.asarray(X, dtype=np.float64), y=np.array(req["y"], dtype=np.float64),
             modules=np.array(modules), **arrays)
    a["npz"] = req["out"]
    return a

#!/usr/bin/python3
"""PyTorch peer of `implicitbias bench --workload W5`: one SGD step of LL's
MNIST CNN (App. J) at full width on a batch of 100 images, float64, mean
cross-entropy, with autograd, as a user would write it (torch's NCHW
convolutions, loss, backward, an in-place update under no_grad).

  /usr/bin/python3 bench/torch_cnn.py PROBLEM.json [--steps N] [--threads T] [--json]

The problem's θ is the engine's layout (docs/cnn.md): conv weights as
Cout rows of K·K·Cin (kernel row, kernel column, input channel), layer 1's
32 biases after its weights, dense weights out×in with the 7×7×64 input
flattened channels last. They are converted once to torch's layouts (OIHW
kernels; the first dense layer's columns reordered to torch's channels-first
flatten), so both compute the same function from the same bits.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import json  # noqa: E402

import peer_common  # noqa: E402

args = peer_common.parse_args("torch")

import torch  # noqa: E402  (after the thread variables are set)
import torch.nn.functional as F  # noqa: E402


def main():
    torch.set_num_threads(args.threads)
    with open(args.problem) as f:
        p = json.load(f)
    if p["workload"] != "W5":
        sys.exit(f"torch_cnn.py runs W5, the problem is {p['workload']}")
    n = p["n"]
    theta = torch.tensor(p["theta"], dtype=torch.float64)
    sizes = [32 * 25, 32, 64 * 9 * 32, 1024 * 3136, 10 * 1024]
    if sum(sizes) != theta.numel():
        sys.exit(f"problem: {theta.numel()} parameters, W5 has {sum(sizes)}")
    w1, b1, w2, w3, w4 = torch.split(theta, sizes)
    P0 = [
        w1.reshape(32, 5, 5, 1).permute(0, 3, 1, 2).contiguous(),
        b1.clone(),
        w2.reshape(64, 3, 3, 32).permute(0, 3, 1, 2).contiguous(),
        w3.reshape(1024, 7, 7, 64).permute(0, 3, 1, 2).reshape(1024, 3136).contiguous(),
        w4.reshape(10, 1024).contiguous(),
    ]
    P = [w.clone().requires_grad_() for w in P0]
    X = torch.tensor(p["x"], dtype=torch.float64).reshape(n, 1, 28, 28)
    y = torch.tensor([int(v) for v in p["y"]], dtype=torch.int64)
    lr = p["lr"]

    def loss():
        h = F.max_pool2d(torch.relu(F.conv2d(X, P[0], P[1], padding=2)), 2)
        h = F.max_pool2d(torch.relu(F.conv2d(h, P[2], padding=1)), 2)
        h = torch.relu(h.reshape(n, 3136) @ P[3].T)
        return F.cross_entropy(h @ P[4].T, y)

    step, reset, final_loss = peer_common.torch_gd(torch, P, P0, loss, lr)
    peer_common.run("torch", args, p, step, reset, final_loss)


main()

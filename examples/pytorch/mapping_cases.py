#!/usr/bin/python3
"""Write the mapping cases of check/testdata/pytorch/map_*.npz: small
nn.Sequential networks (MLPs, and CNNs of Conv2d and pooling on images
whose X is saved (n, C, H, W) or flattened with input_shape (C, H, W)) in float64 with random parameters, two records each,
and their outputs net(X) at the last record, so that check's tests can assert
that the engine's model, mapped from the modules and the state_dict, gives
the same outputs to 1e-12 without Python (check/check_test.go).

    apt-get install -y python3-torch python3-numpy
    /usr/bin/python3 examples/pytorch/mapping_cases.py check/testdata/pytorch
"""
import os
import sys

import numpy as np
import torch

from train_digits import ReLUPow


class Square(torch.nn.Module):
    """x -> x^2; check maps it to the engine's quad activation."""

    def forward(self, x):
        return x * x


def cases():
    L = torch.nn.Linear
    return {
        "linear": [L(5, 1, bias=False)],
        "relu": [L(5, 7, bias=False), torch.nn.ReLU(), L(7, 1, bias=False)],
        "lrelu3": [L(5, 6, bias=False), torch.nn.LeakyReLU(0.2), L(6, 4, bias=False), torch.nn.LeakyReLU(0.2), L(4, 1, bias=False)],
        "relupow3": [L(5, 6, bias=False), ReLUPow(3), L(6, 1, bias=False)],
        "square": [L(5, 4, bias=False), Square(), L(4, 1, bias=False)],
        "deeplinear": [L(5, 3, bias=False), L(3, 3, bias=False), L(3, 1, bias=False)],
        "multiclass": [torch.nn.Flatten(), L(5, 6, bias=False), torch.nn.ReLU(), L(6, 3, bias=False)],
        "bias": [L(5, 6), torch.nn.ReLU(), L(6, 1)],
        "tanh": [L(5, 6, bias=False), torch.nn.Tanh(), L(6, 1, bias=False)],
    }


def conv_cases():
    """CNNs for the Conv2d mapping: (modules, input shape (C, H, W), whether X
    is saved as (n, C, H, W) or flattened (n, C·H·W) with input_shape)."""
    C, L = torch.nn.Conv2d, torch.nn.Linear
    return {
        "conv_max": ([C(1, 3, 3, bias=False), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                      L(27, 1, bias=False)], (1, 8, 8), True),
        "conv_avg": ([C(2, 3, 3, padding="same"), torch.nn.LeakyReLU(0.2), torch.nn.AvgPool2d(2),
                      C(3, 4, 2, bias=False), torch.nn.LeakyReLU(0.2), torch.nn.Flatten(),
                      L(16, 5, bias=False), torch.nn.LeakyReLU(0.2), L(5, 2, bias=False)], (2, 6, 6), False),
        "conv_stride": ([C(1, 2, 2, stride=2, bias=False), torch.nn.ReLU(), C(2, 3, 3, padding=1, bias=False),
                         torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), L(12, 1, bias=False)], (1, 8, 8), True),
        # an even kernel with padding="same": the odd pixel of padding goes after
        "conv_even": ([C(1, 2, 2, padding="same", bias=False), torch.nn.ReLU(), torch.nn.AvgPool2d(2), torch.nn.Flatten(),
                       L(18, 1, bias=False)], (1, 6, 6), True),
    }


def record(net, X, Xsaved, extra):
    """Two records of θ (the second a random step away), net(X) at the last."""
    thetas = {k: [] for k in net.state_dict()}
    for _ in range(2):
        for k, v in net.state_dict().items():
            thetas[k].append(v.detach().clone().numpy())
        with torch.no_grad():
            for p in net.parameters():
                p.add_(0.1 * torch.randn_like(p))
    # outputs at the last record: undo nothing, recompute from it
    net.load_state_dict({k: torch.from_numpy(v[-1]) for k, v in thetas.items()})
    with torch.no_grad():
        outputs = net(X).numpy()
    y = (outputs[:, 0] > 0).astype(np.float64) if outputs.shape[1] == 1 else np.argmax(outputs, axis=1).astype(np.float64)
    arrays = {"step": np.array([0, 1], dtype=np.int64), "lr": np.array([0.1, 0.1]), "reduction": np.array("mean")}
    for k, v in thetas.items():
        arrays["theta/" + k] = np.stack(v)
    arrays.update(X=Xsaved, y=y, outputs=outputs, modules=np.array([str(m) for m in net]), **extra)
    return arrays


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_default_dtype(torch.float64)
    for i, (name, mods) in enumerate(cases().items()):
        torch.manual_seed(100 + i)
        net = torch.nn.Sequential(*mods)
        X = torch.randn(6, 5)
        arrays = record(net, X, X.numpy(), {})
        np.savez(os.path.join(out, f"map_{name}.npz"), **arrays)
        print(name, [str(m) for m in net])
    for i, (name, (mods, shape, four)) in enumerate(conv_cases().items()):
        torch.manual_seed(200 + i)
        net = torch.nn.Sequential(*mods)
        X = torch.randn(5, *shape)
        if four:  # X as PyTorch holds it, (n, C, H, W)
            arrays = record(net, X, X.numpy(), {})
        else:  # X flattened in PyTorch's (C, H, W) order, with its shape
            arrays = record(net, X, X.reshape(5, -1).numpy(), {"input_shape": np.array(shape, dtype=np.int64)})
        np.savez(os.path.join(out, f"map_{name}.npz"), **arrays)
        print(name, [str(m) for m in net])


if __name__ == "__main__":
    main()

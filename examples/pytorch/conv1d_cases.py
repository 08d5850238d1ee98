#!/usr/bin/python3
"""Write the Conv1d mapping cases check/testdata/pytorch/map_conv1d_*.npz:
small nn.Sequential networks of Conv1d, pooling, Flatten and Linear on
sequences, in float64 with random parameters, two records each and their
outputs net(X) at the last record (as mapping_cases.py does for Conv2d), so
that check's tests assert without Python that the engine's 1-D CNN, mapped
and permuted from PyTorch's channels-first layout, gives the same outputs.
X is saved as PyTorch holds it, (n, C, W), or flattened (n, C·W) with
input_shape (C, W).

    apt-get install -y python3-torch python3-numpy
    /usr/bin/python3 examples/pytorch/conv1d_cases.py check/testdata/pytorch
"""
import os
import sys

import numpy as np
import torch

from mapping_cases import record


def conv1d_cases():
    """name → a function building (modules, input shape (C, W), whether X is
    saved (n, C, W)): the modules are built after the case's seed is set, so
    that their initial parameters, and the files, are reproducible."""
    C, L = torch.nn.Conv1d, torch.nn.Linear
    return {
        # one channel, max pooling: 12 → 10 → 5 positions, 3 channels
        "conv1d_max": lambda: ([C(1, 3, 3, bias=False), torch.nn.ReLU(), torch.nn.MaxPool1d(2), torch.nn.Flatten(),
                                L(15, 1, bias=False)], (1, 12), True),
        # two channels, a stride-2 conv with a bias, average pooling, a second
        # conv, two Linears and two outputs: 17 → 8 → 4 → 3 positions
        "conv1d_avg": lambda: ([C(2, 3, 3, stride=2), torch.nn.LeakyReLU(0.2), torch.nn.AvgPool1d(2),
                                C(3, 4, 2, bias=False), torch.nn.LeakyReLU(0.2), torch.nn.Flatten(),
                                L(12, 5, bias=False), torch.nn.LeakyReLU(0.2), L(5, 2, bias=False)], (2, 17), False),
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_default_dtype(torch.float64)
    for i, (name, build) in enumerate(conv1d_cases().items()):
        torch.manual_seed(300 + i)
        mods, shape, three = build()
        net = torch.nn.Sequential(*mods)
        X = torch.randn(5, *shape)
        if three:  # X as PyTorch holds it, (n, C, W)
            arrays = record(net, X, X.numpy(), {})
        else:  # X flattened in PyTorch's (C, W) order, with its shape
            arrays = record(net, X, X.reshape(5, -1).numpy(), {"input_shape": np.array(shape, dtype=np.int64)})
        np.savez(os.path.join(out, f"map_{name}.npz"), **arrays)
        print(name, [str(m) for m in net])


if __name__ == "__main__":
    main()

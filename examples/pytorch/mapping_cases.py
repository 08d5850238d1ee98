#!/usr/bin/python3
"""Write the mapping cases of check/testdata/pytorch/map_*.npz: small
nn.Sequential networks in float64 with random parameters, two records each,
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


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_default_dtype(torch.float64)
    for i, (name, mods) in enumerate(cases().items()):
        torch.manual_seed(100 + i)
        net = torch.nn.Sequential(*mods)
        X = torch.randn(6, 5)
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
        arrays.update(X=X.numpy(), y=y, outputs=outputs, modules=np.array([str(m) for m in net]))
        np.savez(os.path.join(out, f"map_{name}.npz"), **arrays)
        print(name, [str(m) for m in net])


if __name__ == "__main__":
    main()

"""FRY014 and a module-level name that a function rebinds (``global device``, then
``device = torch.device("cuda")``): a function reading the name may see that binding, not
only the module's own ``device = None``, so ``x.to(device)`` there is a move to the device
the code chose, as the model's ``.to(device)`` is."""

from __future__ import annotations

from torchferry.check.engine import check_source

SRC = """
import numpy as np
import torch
from vocoder import Generator

device = None


def inference(path):
    generator = Generator(4).to(device)
    x = np.load(path)
    x = torch.FloatTensor(x).to(device)
    if len(x.shape) == 2:
        x = x.unsqueeze(0)
    return generator(x)


def main():
    global device
    if torch.cuda.is_available():
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    inference("a.npy")


if __name__ == "__main__":
    main()
"""


def lines(src: str) -> list[int]:
    return [d.line for d in check_source(src, "t.py", select=("FRY014",))]


def call_line(src: str) -> int:
    return next(i for i, t in enumerate(src.splitlines(), 1) if "generator(x)" in t)


def test_an_input_moved_to_the_rebound_global_is_quiet() -> None:
    assert lines(SRC) == []


def test_an_input_never_moved_is_reported() -> None:
    src = SRC.replace("torch.FloatTensor(x).to(device)", "torch.FloatTensor(x)")
    assert lines(src) == [call_line(src)]

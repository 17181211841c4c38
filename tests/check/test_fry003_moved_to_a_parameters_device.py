"""``x.to(t.device)`` (and ``dev = t.device`` ... ``x.to(dev)``) puts ``x`` where ``t``
is, for a parameter ``t`` that the function reads a tensor's property of (``len(t.shape)``):
evidence of an accelerator only where the caller's ``t`` may be on one.  A caller passing
a CPU tensor, or one the analysis cannot see (a test method a decorator feeds), gets no
FRY003 finding; a caller passing a tensor on the device does, and so does ``x.to(args.device)``
of a configuration."""

from __future__ import annotations

from torchferry.check.engine import check_source

SOURCE = """import argparse
import torch


def interp(grid, lo):
    dim = len(grid.shape) - 1
    device = grid.device
    size = torch.tensor(grid.shape[1:]).float().to(device)
    lo = torch.tensor(lo).to(grid.device)
    return (lo * grid) / size


def shifted(args, lo):
    return torch.tensor(lo).to(args.device)


class Test:
    def test_interp(self, grid, lo):
        out = interp(grid, lo)
        print(out.numpy())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    print(shifted(args, [0.]).numpy())
    print(interp(torch.zeros(2, 3, device="cuda"), [0.]).numpy())
    print(interp(torch.zeros(2, 3), [0.]).numpy())
"""


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def test_a_move_to_a_parameters_device_is_where_the_callers_tensor_is() -> None:
    assert _lines(SOURCE) == [27, 28]


def test_a_parameter_read_as_no_tensor_keeps_the_device_chosen() -> None:
    assert _lines(SOURCE.replace("    dim = len(grid.shape) - 1\n", "").replace(
        "torch.tensor(grid.shape[1:])", "torch.tensor([3])")) == [19, 26, 27, 28]

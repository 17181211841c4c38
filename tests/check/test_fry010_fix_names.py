"""The unsafe fix of FRY010 names a tensor's device (``device=<x>.device``): ``<x>`` must be
a value the analysis knows to be a tensor, never a number that only takes part in making
the partner (a shape, a count, a size given to ``reshape``), which has no ``.device``.
Where no such tensor is known, the finding offers no fix."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

# the partner is a tensor method's result, given a Python int as its first argument
NUMBER_ARGUMENT = {
    "bincount_reshape": """\
        import torch

        def confusion(y_true, y_pred):
            n = y_true.shape[1]
            m = torch.zeros((n, n))
            m += torch.bincount(n * y_true.cuda().flatten() + y_pred.flatten()).reshape(n, n)
            return m
        """,
    "view_of_a_count": """\
        import torch

        def pool(xs):
            k = len(xs)
            out = torch.zeros(k, 4)
            return out + torch.stack(xs).cuda().view(k, -1)
        """,
    "repeat_of_a_literal": """\
        import torch

        def tile(x):
            r = 3
            base = torch.ones(r, 2)
            return base * x.cuda().sum(0).repeat(r, 1)
        """,
}


def fixes(source: str) -> list[str | None]:
    found = check_source(textwrap.dedent(source), "m.py", select=["FRY010"])
    assert [f.code for f in found] == ["FRY010"], found
    return [f.fix.message if f.fix is not None else None for f in found]


@pytest.mark.parametrize("name", sorted(NUMBER_ARGUMENT))
def test_fix_never_names_a_number(name: str) -> None:
    source = NUMBER_ARGUMENT[name]
    (fix,) = fixes(source)
    assert fix is None or not any(f"device={v}.device" in fix for v in ("n", "k", "r")), fix


def test_fix_names_the_receiver_tensor_of_a_method() -> None:
    source = """\
        import torch

        def tile(x):
            x = x.cuda()
            r = 3
            base = torch.ones(r, 2)
            return base * x.repeat(r, 1)
        """
    assert fixes(source) == ["Pass `device=x.device`"]


# the function's first parameter is a model: its outputs are placed by it, but a module has
# no ``.device``, so the fix must never name it
MODEL_PARAMETER = {
    "helper_of_the_output": """\
        import torch

        def shift(x):
            return torch.roll(x, 1) + torch.ones(3, device=x.device)

        def refine(model, x, n):
            for p in model.parameters():
                p.requires_grad = False
            mask = torch.zeros(n)
            return mask + shift(model(x))

        def main():
            net = torch.nn.Linear(3, 3).cuda()
            refine(net, torch.ones(3).cuda(), 3)
        """,
    "evaluated_model": """\
        import torch

        def double(t):
            return t * 2 + torch.zeros(1, device=t.device)

        def score(net, batch, k):
            net.eval()
            base = torch.arange(k)
            return base + double(net(batch))

        def main():
            m = torch.nn.Linear(4, 4).cuda()
            score(m, torch.ones(4).cuda(), 4)
        """,
}


@pytest.mark.parametrize("name", sorted(MODEL_PARAMETER))
def test_fix_never_names_a_model_parameter(name: str) -> None:
    (fix,) = fixes(MODEL_PARAMETER[name])
    assert fix is None or not any(f"device={v}.device" in fix for v in ("model", "net")), fix

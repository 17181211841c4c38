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

"""FRY011 on a plain tensor attribute that a subclass's ``__init__`` stores and a method of
its base in the same file combines with the model's tensors: a method the subclass
inherits, or one it calls through ``super()``, run on the subclass's instance (its
``self.<name>(...)`` calls the subclass's overrides)."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow import Where
from torchferry.check.flow.program import FileFlow

HEAD = """
import torch
from torch import nn
"""

BASE = """
class Constraint(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.n = n
        self.M = torch.zeros(n, n + 1)

    def mu(self, out):
        return torch.zeros(self.n + 1)

    def forward(self, out):
        m = self.mu(torch.sigmoid(out))
        return torch.mv(self.M, m)
"""

FLAGGED = {
    # the subclass's ``mu`` follows the input: the base's ``forward`` meets it with ``M``
    "override_through_super": """
class Parity(Constraint):
    def __init__(self, n=2):
        super().__init__(n)
        self.M = torch.ones(2 * n, n + 1)

    def mu(self, out):
        return torch.stack([out.mean(), out.max(), out.min()])

    def forward(self, out):
        return super().forward(out)
""",
    "override_inherited_forward": """
class Parity(Constraint):
    def __init__(self, n=2):
        super(Parity, self).__init__(n)
        self.M = torch.ones(2 * n, n + 1)

    def mu(self, out):
        return torch.stack([out.mean(), out.max(), out.min()])
""",
}

QUIET = {
    # the subclass's ``mu`` makes its tensor on the CPU too: nothing meets the model's
    "cpu_override": """
class Parity(Constraint):
    def __init__(self, n=2):
        super().__init__(n)
        self.M = torch.ones(2 * n, n + 1)

    def mu(self, out):
        return torch.zeros(3)
""",
    # stored before the base's ``__init__`` replaces it
    "stored_before_super_init": """
class Parity(Constraint):
    def __init__(self, n=2):
        self.M = torch.ones(2 * n, n + 1)
        super().__init__(n)

    def mu(self, out):
        return torch.stack([out.mean(), out.max(), out.min()])
""",
    "registered": """
class Parity(Constraint):
    def __init__(self, n=2):
        super().__init__(n)
        self.register_buffer("M", torch.ones(2 * n, n + 1))

    def mu(self, out):
        return torch.stack([out.mean(), out.max(), out.min()])
""",
    # the subclass's own ``forward`` replaces the base's, which never runs on it
    "overridden_forward": """
class Parity(Constraint):
    def __init__(self, n=2):
        super().__init__(n)
        self.M = torch.ones(2 * n, n + 1)

    def mu(self, out):
        return torch.stack([out.mean(), out.max(), out.min()])

    def forward(self, out):
        return out.sum()
""",
}


def _lines(src: str) -> list[int]:
    source = HEAD + BASE + src
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


def _subclass_store_line(src: str) -> int:
    source = HEAD + BASE + src
    tree = ast.parse(source)
    sub = tree.body[-1]
    assert isinstance(sub, ast.ClassDef)
    init = sub.body[0]
    return next(
        n.lineno
        for n in ast.walk(init)
        if isinstance(n, ast.Attribute) and n.attr == "M" and isinstance(n.ctx, ast.Store)
    )


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_a_base_method_run_on_the_subclass(name: str) -> None:
    assert _lines(FLAGGED[name]) == [_subclass_store_line(FLAGGED[name])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert _lines(QUIET[name]) == []


def test_the_message_names_the_base_method() -> None:
    source = HEAD + BASE + FLAGGED["override_through_super"]
    (f,) = check_source(source, "t.py", select=["FRY011"])
    assert "`Constraint.forward`" in f.message and "torch.mv(self.M, m)" in f.message


def test_the_base_alone_is_quiet() -> None:
    """The base's own ``M`` meets only its own ``mu``'s CPU tensor."""
    assert _lines("") == []


def _flow(src: str) -> tuple[FileFlow, ast.Module]:
    tree = ast.parse(HEAD + BASE + src)
    return FileFlow(tree, "t.py"), tree


def test_a_base_method_as_a_method_of_the_subclass() -> None:
    ff, tree = _flow(FLAGGED["override_inherited_forward"])
    base, sub = (ff.class_info(n) for n in tree.body if isinstance(n, ast.ClassDef))
    fwd = base.methods["forward"]
    m = next(
        n
        for n in ast.walk(fwd)
        if isinstance(n, ast.Name) and n.id == "m" and isinstance(n.ctx, ast.Load)
    )
    own = ff.result(fwd, base).value(m)
    view = ff.as_method_of(fwd, sub)
    assert own is not None and own.only(Where.CPU)
    assert view is not None
    seen = view.value(m)
    assert seen is not None and seen.places is not None
    assert not seen.may_live(Where.CPU) and {p.where for p in seen.places} == {Where.PARAM}
    # no view of a class's own method, nor of a class that does not derive from the owner
    assert ff.as_method_of(sub.methods["mu"], sub) is None
    assert ff.as_method_of(fwd, base) is None

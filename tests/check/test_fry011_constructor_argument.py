"""FRY011 on a constructor argument stored as it is (``self.mask = mask``) where every
construction of the class in the run passes a tensor made on the CPU (``C(torch.arange(n)
% 2)``) and the module combines it with its weights' results in ``forward``: the same
plain attribute as ``self.mask = torch.arange(n) % 2``, with the constructions' tensors as
evidence.  Quiet where one construction is not known, passes something else (a parameter,
a moved tensor, a 0-dim tensor) or leaves the parameter to its default."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

CLASS = """
import torch
import torch.nn as nn

class Coupling(nn.Module):
    def __init__(self, n, mask=None):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.mask = mask

    def forward(self, x):
        return self.fc(x * self.mask)

"""

FLAGGED = {
    "module-level": """
        mask = torch.arange(0, 4) % 2
        layers = [Coupling(4, mask), Coupling(4, 1 - mask)]
    """,
    "in-a-function-by-keyword": """
        def build(n):
            return nn.Sequential(Coupling(n, mask=torch.ones(n)), Coupling(n, mask=torch.zeros(n)))
    """,
}

QUIET = {
    "a-parameter": """
        def build(n, mask):
            return Coupling(n, torch.ones(n)), Coupling(n, mask)
    """,
    "moved": """
        def build(n, device):
            return Coupling(n, (torch.arange(n) % 2).to(device))
    """,
    "zero-dim": """
        layer = Coupling(4, torch.tensor(0.5))
    """,
    "left-to-default": """
        layers = [Coupling(4, torch.ones(4)), Coupling(4)]
    """,
    "class-handed-on": """
        layer = Coupling(4, torch.ones(4))
        make = Coupling
    """,
    "never-built": "",
}


def found(root: Path, files: dict[str, str], select: tuple[str, ...] | None = ("FRY011",)
          ) -> list[tuple[str, int, list[tuple[str, int]]]]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=select, target_torch_version=None)
    return [(Path(o.path).name, d.line, [(Path(e.path or o.path).name, e.line) for e in d.evidence])
            for o in check_paths(sorted(root.rglob("*.py")), opts, cache=None, jobs=1)
            for d in o.diagnostics]


def lines(root: Path, tail: str) -> list[int]:
    return [line for _, line, _ in found(root, {"m.py": CLASS + textwrap.dedent(tail)})]


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flags_an_argument_every_construction_makes_on_the_cpu(tmp_path: Path, name: str) -> None:
    assert lines(tmp_path, FLAGGED[name]) == [9]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_unless_every_construction_passes_a_cpu_tensor(tmp_path: Path, name: str) -> None:
    assert lines(tmp_path, QUIET[name]) == []


def test_quiet_where_forward_moves_it(tmp_path: Path) -> None:
    src = CLASS.replace("x * self.mask", "x * self.mask.to(x.device)") + "c = Coupling(4, torch.ones(4))\n"
    assert [line for _, line, _ in found(tmp_path, {"m.py": src})] == []


def test_reported_only_when_the_rule_is_named(tmp_path: Path) -> None:
    src = CLASS + textwrap.dedent(FLAGGED["module-level"])
    assert found(tmp_path, {"m.py": src}, select=None) == []
    assert [line for _, line, _ in found(tmp_path, {"m.py": src}, select=("ALL",))] == [9]


def test_quiet_in_a_file_checked_alone() -> None:
    src = CLASS + "c = Coupling(4, torch.ones(4))\n"
    assert check_source(src, "<case>", select=["FRY011"]) == []  # (no run: its constructions unknown)


def test_across_files_with_the_construction_as_evidence(tmp_path: Path) -> None:
    files = {
        "flows.py": CLASS,
        "main.py": """
            import torch
            import flows as fnn
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            mask = torch.arange(0, 4) % 2
            model = torch.nn.Sequential(fnn.Coupling(4, mask), fnn.Coupling(4, 1 - mask))
            model.to(device)
        """,
    }
    assert found(tmp_path, files) == [("flows.py", 9, [("main.py", 5)])]


def test_the_default_set_reads_no_construction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default set never reports a parameter stored as it came in, whatever the
    constructions pass: it does not look for them (a run's other files interpreted for
    nothing); the named rule still does."""
    from torchferry.check.rules import fry011_unregistered_tensor_attribute as fry011

    asked: list[str] = []
    real = fry011.construction_arguments

    def counted(*args: object, **kwargs: object) -> object:
        asked.append("asked")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fry011, "construction_arguments", counted)
    src = CLASS + textwrap.dedent(FLAGGED["module-level"])
    assert found(tmp_path, {"m.py": src}, select=None) == [] and asked == []
    assert [line for _, line, _ in found(tmp_path, {"m.py": src}, select=("ALL",))] == [9] and asked

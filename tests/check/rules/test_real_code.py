"""Precision on real code: the installed ``torch/nn/modules/*.py``.

The checker must never crash on them and, since that code is right, report nothing.
torch is located with ``importlib.util.find_spec`` (which does not import it) and the
files are read as text, so this test stays fast.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from torchferry.check.engine import check_source

# Findings reviewed by hand and judged genuine, as {(file name, line text): code}.
# None so far: torch.nn.modules registers its tensors as buffers and takes devices as
# arguments.
KNOWN_GENUINE: dict[tuple[str, str], str] = {}


def _modules_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("torch is a dependency of torchferry and must be installed for this test")
    return Path(next(iter(spec.submodule_search_locations))) / "nn" / "modules"


def test_torch_nn_modules_is_quiet() -> None:
    files = sorted(_modules_dir().glob("*.py"))
    assert len(files) > 20, "torch/nn/modules looks incomplete"
    unexpected = []
    for path in files:
        source = path.read_text(encoding="utf-8")
        for f in check_source(source, str(path)):
            line = source.splitlines()[f.line - 1].strip()
            if KNOWN_GENUINE.get((path.name, line)) != f.code:
                unexpected.append(f"{path.name}:{f.line}: {f.code} {f.message}")
    assert not unexpected, "\n".join(unexpected)

"""The checker never crashes: generated source (hypothesmith), random torch-flavoured
programs, and a real code base (torch's own Python sources, which are right).

hypothesis and hypothesmith are imported inside the (slow) tests that use them:
hypothesmith builds its grammar on import (~2.5 s), and pytest rewrites the asserts of
hypothesis's 83 modules on import when bytecode is not written, which the fast loop
(``-m "not slow"``) should not pay for tests it does not run."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from torchferry.check.engine import check_source, fix_source
from torchferry.check.runner import Options, check_paths


def parses(src: str) -> bool:
    try:
        ast.parse(src)
    except (SyntaxError, ValueError):
        return False
    return True


@pytest.mark.parametrize("call", ["raise torch()", "y = torch(x)", "torch(x).to('cuda')"])
def test_calling_the_torch_module_itself_is_not_a_crash(call):
    """``torch()`` is a TypeError at run time (a module is not callable); the checker
    treats it as a call it cannot resolve, under every rule."""
    src = f"import torch\n\n\ndef f(x):\n    {call}\n    x.to('cpu')\n    return x\n"
    check_source(src, "<case>", select=["ALL"])


@pytest.mark.slow
def test_never_raises_on_generated_source():
    import hypothesmith
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=25, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(hypothesmith.from_grammar())
    def never_raises(src: str) -> None:
        for text in (src, "import torch\n" + src):
            findings = check_source(text, "gen.py")
            assert all(f.line >= 1 and f.column >= 0 for f in findings)
            res = fix_source(text, "gen.py", unsafe=True)
            if parses(text):
                assert parses(res.source)

    never_raises()


# Statements from the lessons and common training loops, right and wrong.
SNIPPETS = [
    'device = "cuda" if torch.cuda.is_available() else "cpu"',
    'device = torch.device("cuda")',
    "x = torch.ones(3)",
    "x.to(device)",
    "x = x.to(device)",
    "x.cuda()",
    "y = model(x)",
    "arr = y.numpy()",
    "arr = np.asarray(y)",
    "plt.plot(y)",
    "state = torch.load(path)",
    "state = torch.load(path, map_location='cpu', weights_only=True)",
    "t0 = time.time()",
    "t1 = time.perf_counter() - t0",
    "torch.cuda.synchronize()",
    "loss_value = loss.item()",
    "print(loss)",
    "model.to(device)",
    "model = model.cuda()",
    "z = torch.randn(64, 100).to(device)",
    "mask = torch.zeros(x.shape[0])",
    "self.w = torch.zeros(3)",
    "self.register_buffer('b', torch.zeros(3))",
    "h = x.to('cpu', non_blocking=True)",
    "inputs, labels = batch",
    "inputs = inputs.to(device)",
    "out = criterion(model(inputs), labels)",
    "total += (out.argmax(1) == labels).sum()",
    "x.half()",
    "x.type(torch.float16)",
    "pass",
    "if step % 100 == 0:\n    print(loss.item())",
]
HEADERS = [
    "for step, batch in enumerate(loader):",
    "for epoch in range(3):",
    "with torch.no_grad():",
    "def forward(self, x):",
    "def train(model, loader, device):",
    "class Net(nn.Module):\n    def __init__(self):",
    "if torch.cuda.is_available():",
    "while True:",
]


def programs() -> Any:
    """A hypothesis strategy: programs built from SNIPPETS under HEADERS."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw: Any) -> str:
        lines = ["import time", "import numpy as np", "import torch", "import torch.nn as nn", ""]
        depth = 0
        for _ in range(draw(st.integers(1, 14))):
            if draw(st.booleans()) and depth < 3:
                header = draw(st.sampled_from(HEADERS))
                for h in header.split("\n"):
                    lines.append("    " * depth + h)
                depth = depth + header.count("\n") + 1  # the body of the last header line
                body = draw(st.sampled_from(SNIPPETS))
                lines.append("    " * depth + body.replace("\n", "\n" + "    " * depth))
            else:
                snippet = draw(st.sampled_from(SNIPPETS))
                lines.append("    " * depth + snippet.replace("\n", "\n" + "    " * depth))
                if depth and draw(st.integers(0, 3)) == 0:
                    depth = draw(st.integers(0, depth - 1))
        return "\n".join(lines) + "\n"

    return build()


@pytest.mark.slow
def test_torch_programs_fix_safely_and_idempotently():
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(programs())
    def fix_safely(src: str) -> None:
        assert parses(src), src
        check_source(src, "prog.py")
        for unsafe in (False, True):
            res = fix_source(src, "prog.py", unsafe=unsafe)
            assert res.error is None, (res.error, src)
            assert parses(res.source), src
            again = fix_source(res.source, "prog.py", unsafe=unsafe)
            assert again.fixed == 0 and again.source == res.source, (src, res.source)

    fix_safely()


TORCH = Path(__import__("importlib.util").util.find_spec("torch").origin).parent


@pytest.mark.slow
@pytest.mark.parametrize("sub", ["nn", "optim", "distributions"])
def test_real_code_base_that_is_right_gets_no_findings(sub, tmp_path):
    files = sorted((TORCH / sub).rglob("*.py"))
    assert len(files) > 20
    outcomes = check_paths(files, Options(root=TORCH), jobs=1)
    assert [o.error for o in outcomes if o.error] == []
    found = [(o.display, d.line, d.code, d.message) for o in outcomes for d in o.diagnostics]
    assert found == []


def test_real_code_base_never_crashes():
    files = sorted((TORCH / "utils" / "data").rglob("*.py")) + sorted((TORCH / "amp").rglob("*.py"))
    outcomes = check_paths(files, Options(root=TORCH), jobs=1)
    assert [o.error for o in outcomes if o.error] == []
    assert not [d for o in outcomes for d in o.diagnostics if d.code == "FRY000"]

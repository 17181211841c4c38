"""Explanations of the mistakes real programs make, under the simulation.

Each test failed before its fix: no culprit, a missing operand, a generic fix, or a rule
claimed that ``ferry check`` does not report.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # runs `ferry run` in a subprocess


def _explain(tmp_path, code: str, count: int = 1) -> str:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(code))
    r = subprocess.run(
        [sys.executable, "-m", "torchferry", "run", "--simulate", "cuda", "--device-count",
         str(count), str(script)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert r.returncode == 1, r.stderr
    return r.stderr[r.stderr.index("torchferry explain:"):]


def test_conv_left_on_the_cpu_names_the_module(tmp_path):
    text = _explain(tmp_path, """\
        import torch, torch.nn as nn
        conv = nn.Conv2d(3, 4, 3)
        x = torch.ones(2, 3, 8, 8).to("cuda")
        conv(x)
        """)
    assert "> conv  cpu" in text and "conv was created at" in text
    assert "fix: conv.to(" in text


def test_masked_fill_names_the_mask(tmp_path):
    text = _explain(tmp_path, """\
        import torch
        x = torch.ones(3, device="cuda")
        mask = torch.tensor([True, False, True])
        x.masked_fill(mask, 0.0)
        """)
    assert "> mask  cpu" in text and "fix: mask = mask.to(x.device)" in text


def test_index_store_lists_the_values(tmp_path):
    text = _explain(tmp_path, """\
        import torch
        x = torch.zeros(5, device="cuda")
        idx = torch.tensor([0, 1], device="cuda")
        vals = torch.ones(2, 3)
        x[idx] = vals[:, 0]
        """)
    assert "> vals  cpu" in text and "fix: vals = vals.to(x.device)" in text


def test_numpy_of_an_expression_gets_a_specific_fix(tmp_path):
    text = _explain(tmp_path, """\
        import torch, torch.nn as nn
        m = nn.Linear(3, 2).cuda()
        m.weight.detach().numpy()
        """)
    assert "fix: m.weight.detach().cpu().numpy()" in text


def test_no_rule_claimed_that_ferry_check_does_not_report(tmp_path):
    text = _explain(tmp_path, """\
        import torch
        x = torch.ones(3, device="cuda:0")
        y = torch.ones(3, device="cuda:1")
        x + y
        """, count=2)
    assert "> y  cuda:1" in text
    assert "FRY013" not in text and "finds this before you run" not in text


def test_discarded_move_is_fry002_and_names_its_line(tmp_path):
    text = _explain(tmp_path, """\
        import torch
        x = torch.ones(3, 2)
        device = "cuda"
        x.to(device)
        w = torch.ones(2, 2, device=device)
        y = x @ w
        """)
    assert "line 4 computes x.to(device) and discards the result" in text
    assert "rule: FRY002 discarded-move  (`ferry check` finds this before you run" in text


def test_many_operands_say_how_many_more(tmp_path):
    text = _explain(tmp_path, """\
        import torch, numpy as np
        ts = [torch.ones(2, device="cuda") for _ in range(200)]
        np.concatenate(ts)
        """)
    assert "(and 192 more in ts, not listed)" in text
    assert text.count("was created at") == 1

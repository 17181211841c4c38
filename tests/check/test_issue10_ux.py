"""Issue 10, the defects a careless user hits in ``ferry check``: huge lines and files,
odd patterns and configurations, pipes, diffs and notebook fixes (real rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchferry.cli import main


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    return tmp_path


def run(capsys, *argv):
    rc = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


# ----------------------------------------------------------- item 4: long lines
def test_a_long_line_is_shown_as_a_window_around_each_finding(proj, capsys):
    stmt = "x=torch.zeros(1).cuda();"
    (proj / "long.py").write_text("import torch;" + stmt * 4000)  # 96 KB, one line
    rc, out, _ = run(capsys, "long.py")
    assert rc == 1
    n = out.count("long.py:1:")
    assert n == 8000
    # before: every finding printed the whole 96 KB line (770 MB here)
    assert len(out) < 500 * n
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("long.py:1:") and " FRY001 " in line:
            col = int(line.split(":")[2])
            src, caret = lines[i + 1], lines[i + 2]
            at = caret.index("^")
            width = caret.count("^")
            assert src[at : at + width] == ".cuda()", (line, src, caret)
            if col > 100:
                assert src.split("| ", 1)[1].startswith("\u2026")
    assert lines[1].endswith("\u2026")


def test_a_window_survives_the_cache(proj, capsys):
    stmt = "x=torch.zeros(1).cuda();"
    (proj / "long.py").write_text("import torch;" + stmt * 300)
    first = main(["check", "long.py"]), capsys.readouterr().out
    second = main(["check", "long.py"]), capsys.readouterr().out
    assert first == second and first[0] == 1
    cache = b"".join(p.read_bytes() for p in (proj / ".ferry_cache").rglob("*.json"))
    assert len(cache) < 1000 * 600  # windows, not 600 copies of the 7 KB line (4.3 MB)

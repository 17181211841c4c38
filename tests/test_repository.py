"""The repository as a user meets it: the README, the docs, the license, the demo, and a
test suite whose output is pytest's own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
# Markdown links and images whose target is a path in this repository (not a URL, not an anchor).
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _text_files(*dirs: str) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        for p in sorted((ROOT / d).rglob("*")):
            if p.suffix in {".py", ".md", ".sh", ".toml", ".ipynb", ".yaml"} and "egg-info" not in str(p):
                out.append(p)
    return out


def test_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; history goes to docs/performance.md"
    assert "## Quick start" in lines


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_local_link_resolves(doc):
    text = doc.read_text(encoding="utf-8")
    text = re.sub(r"(?ms)^```.*?^```", "", text)  # code blocks and
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans hold no links
    missing = []
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not (doc.parent / path).exists():
            missing.append(target)
    assert not missing, f"{doc.name} links to files that do not exist: {missing}"


def test_the_license_file_is_the_license_pyproject_declares():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^license = \{text = "MIT"\}$', pyproject, re.MULTILINE)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


# Phrases that speak of how the project was made rather than of what the software does:
# references to its own work items, its workers and their roles.  (Other projects' issue
# threads, cited as sources, are fine: "fastllm issue 231", "fixes issue 587".)
_MAKING = [
    r"\(issues? \d+[^)]*\)",  # "(issue 13)", "(issue 10, items 2 and 7)"
    r"(?m)^\W*(?:#+ -+ )?[Ii]ssue \d+\b",  # a docstring or comment that opens with "Issue 10"
    r"\b[Ii]ssue \d+'s\b",  # "issue 9's work"
    r"\b[Ii]ssue \d+ items?\b",
    r"\b[Ii]ssue-\d+ commit",
    r"\brules-[a-z]\b",
    r"\bthe lead\b",
    r"One house",
    r"\bthe session that added\b",
    r"(?m)^\s*(?:\"\"\"|# -+ )[Ii]tems? \d+\b",  # a test that opens with "Item 3:" (a work item)
    r"\bwas lent to\b",
    r"\bnobody here\b",
    r"\bthe research notes\b",
    r"\b[Ff]ound on the way\b|\bFixed on the way\b",
]


def test_no_sentence_speaks_of_how_the_project_was_made():
    me = Path(__file__).resolve()
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md",
             *_text_files("docs", "src", "tests", "benchmarks", "examples")]
    hits = []
    for p in files:
        if p == me:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        for pattern in _MAKING:
            for m in re.finditer(pattern, text):
                line = text.count("\n", 0, m.start()) + 1
                hits.append(f"{p.relative_to(ROOT)}:{line}: {m.group(0)!r}")
    assert not hits, "\n".join(hits)


def test_every_code_fence_closes_on_a_line_of_its_own():
    # "``` text" does not close a block: the rest of the page would render as code
    bad = [f"{p.relative_to(ROOT)}:{n}" for p in DOCS
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if re.match(r"\s*```", line) and not re.fullmatch(r"\s*```[\w+-]*", line)]
    assert not bad, bad


def test_no_test_writes_past_pytests_capture():
    # pytest owns the terminal: a test that prints past its capture lands between the
    # progress dots.  Tables belong in failure messages or in benchmarks/ scripts.
    forbidden = ["caps" + "ys.disabled(", "cap" + "fd.disabled(", "sys.__std" + "out__"]
    hits = [f"{p.relative_to(ROOT)}: {f}" for p in _text_files("tests") if p.suffix == ".py"
            for f in forbidden if f in p.read_text(encoding="utf-8")]
    assert not hits, hits


@pytest.mark.slow
def test_the_demo_passes_and_writes_plain_text_into_a_pipe():
    env = {k: v for k, v in os.environ.items() if k not in {"TORCHFERRY_DEVICE", "NO_COLOR"}}
    env["PYTHON"] = sys.executable
    r = subprocess.run(["bash", str(ROOT / "examples" / "demo.sh")], capture_output=True,
                       text=True, env=env, timeout=600, check=False)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert "demo: every step behaved as expected" in r.stdout
    assert "\x1b" not in r.stdout + r.stderr, "ANSI escapes written into a pipe"


@pytest.mark.slow
def test_the_trip_table_in_the_docs_is_the_real_output():
    text = (ROOT / "docs" / "diagnose.md").read_text(encoding="utf-8")
    cmd = "$ ferry run --simulate cuda --trips examples/item_every_step.py\n"
    block = text[text.index(cmd) + len(cmd):]
    block = block[:block.index("```")]
    r = subprocess.run([sys.executable, "-m", "torchferry", *cmd[2:].split()[1:]], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-3000:]

    def rows(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.startswith("  examples/item_every_step.py:")]

    assert rows(block) == rows(r.stdout + r.stderr)


def test_ferry_check_of_this_tree_is_clean_with_every_rule():
    """The checker's own code, tests and benchmarks pass it (a finding on purpose carries a
    ``# noqa`` with its reason)."""
    run = subprocess.run(
        [sys.executable, "-m", "torchferry", "check", "--no-cache", "--select", "ALL", "."],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr

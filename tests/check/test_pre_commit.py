"""The pre-commit hook, run by pre-commit itself in both forms docs/check.md gives.

pre-commit builds the hook's environment as a user's machine would (a virtualenv, then
``pip install`` of this repository or of a path), so these tests take about 40 s each and
need the package index that ``pip install`` uses; they skip when pre-commit is not
installed or this checkout is not a git repository (the clone form needs a commit).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a virtualenv per hook

REPO = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
MISTAKES = REPO / "examples" / "train_with_mistakes.py"
# `.numpy()` on a tensor made on the device: FRY003, whose fix (`.cpu()` first) is safe
HOME = (
    "import torch\n\n"
    'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    "x = torch.ones(3, device=device)\n"
    "y = (x * 2).numpy()\n"
)


def _head() -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def _project(tmp_path: Path, config: str) -> Path:
    """A git project holding the example with the lessons' mistakes and ``config``."""
    if not PRE_COMMIT.exists():
        pytest.skip("pre-commit is not installed (it is in the dev extra)")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(MISTAKES, project / "train.py")
    (project / "clean.py").write_text("import torch\n\nx = torch.ones(3)\nprint(x.sum().item())\n")
    (project / "home.py").write_text(HOME)
    (project / ".pre-commit-config.yaml").write_text(config)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(cmd, cwd=project, check=True)
    return project


def _run(project: Path, tmp_path: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    args = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        [str(PRE_COMMIT), "run", *args], cwd=project, env=env, capture_output=True, text=True,
        timeout=600,
    )


def test_the_hook_of_a_clone_fails_a_commit_with_mistakes_and_passes_a_clean_one(tmp_path):
    head = _head()
    if head is None:
        pytest.skip("this checkout is not a git repository: the clone form needs a commit")
    config = f"repos:\n  - repo: {REPO}\n    rev: {head}\n    hooks:\n      - id: ferry-check\n"
    project = _project(tmp_path, config)
    proc = _run(project, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ferry check" in proc.stdout and "Failed" in proc.stdout
    assert "train.py:37:29: FRY013" in proc.stdout, proc.stdout
    assert "clean.py" not in proc.stdout
    clean = _run(project, tmp_path, "clean.py")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout


def test_a_local_hook_installing_the_package_fixes_the_safe_findings(tmp_path):
    config = (
        "repos:\n  - repo: local\n    hooks:\n      - id: ferry-check\n"
        "        name: ferry check\n        entry: ferry check --force-exclude --fix\n"
        "        language: python\n"
        f"        additional_dependencies: [{REPO}]\n"
        "        types_or: [python, jupyter]\n"
    )
    project = _project(tmp_path, config)
    train = (project / "train.py").read_text()
    proc = _run(project, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "files were modified by this hook" in proc.stdout
    after = (project / "home.py").read_text()
    assert after == HOME.replace("y = (x * 2).numpy()", "y = (x * 2).cpu().numpy()"), after
    # only unsafe fixes there: --fix leaves the file as it was, and reports the rest
    assert (project / "train.py").read_text() == train
    assert "train.py:37:29: FRY013" in proc.stdout
    # a second run writes nothing more
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    again = _run(project, tmp_path)
    assert (project / "home.py").read_text() == after
    assert "files were modified by this hook" not in again.stdout

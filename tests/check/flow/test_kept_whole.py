"""The whole analysis of another file of the run, kept while that file has its own check,
and put back after it (the file is not interpreted again for the next file's calls)."""

from __future__ import annotations

import ast

from torchferry.check.flow import analyze
from torchferry.check.flow.project import Project

FILES = {
    "/r/a.py": b"import torch\nfrom b import scale\n\ndef run(x):\n    return scale(x.cuda())\n",
    "/r/b.py": b"import torch\n\ndef scale(x):\n    return x * torch.ones(2)\n\n"
               b"def unused(y):\n    return y\n",
    "/r/c.py": b"import torch\nfrom b import scale\n\ndef go():\n    return scale(torch.zeros(2))\n",
}


def _check(run: Project, path: str) -> object:
    """Analyse ``path`` as the checked file (its source lines given), every scope read."""
    text = FILES[path].decode()
    tree = run.tree_of(path, text) or ast.parse(text)
    ff = analyze(tree, path, run, lines=text.splitlines(), source=text)
    list(ff.results())
    return ff


def test_the_whole_analysis_of_a_file_comes_back_after_its_own_check() -> None:
    run = Project(FILES, packages=())
    _check(run, "/r/a.py")
    whole = run.file_flow("/r/b.py")  # read for a.py's call of ``scale``
    assert whole is not None and whole.lines is None
    checked = _check(run, "/r/b.py")
    assert checked is not whole and run.file_flow("/r/b.py") is checked  # its calls back
    assert checked.tree is whole.tree  # (parsed once)
    _check(run, "/r/c.py")
    assert run.file_flow("/r/b.py") is whole


def test_a_file_read_by_no_call_before_its_check_is_read_anew_after_it() -> None:
    run = Project(FILES, packages=())
    checked = _check(run, "/r/b.py")
    _check(run, "/r/c.py")
    again = run.file_flow("/r/b.py")
    assert again is not None and again is not checked and again.lines is None


def test_nothing_comes_back_after_a_check_whose_budget_decided_anything() -> None:
    run = Project(FILES, packages=())
    _check(run, "/r/a.py")
    whole = run.file_flow("/r/b.py")
    _check(run, "/r/b.py")
    run.refuse()
    _check(run, "/r/c.py")
    again = run.file_flow("/r/b.py")
    assert again is not None and again is not whole

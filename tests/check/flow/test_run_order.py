"""A file's findings do not depend on which files were checked before it in the same
worker, nor in what order, nor on ``--jobs``: an analysis kept from an earlier check is
reused only when it was made without the budget deciding anything, and a check that
finds it pays the units it cost (see :class:`~torchferry.check.flow.project.Budget`)."""

import ast
from pathlib import Path

import pytest

from torchferry.check import runner
from torchferry.check.engine import check_source
from torchferry.check.flow import Project
from torchferry.check.flow import project as project_module

FILES = {
    "/p/b.py": b"import torch\ndef helper():\n    return torch.zeros(2).cuda()\n"
               b"def make():\n    return helper()\n",
    "/p/c.py": b"import torch\nn = 3\n",
    # reads c (1), reads b (2), interprets make (3): helper is over the budget
    "/p/x.py": b"from c import n\nfrom b import make\nprint(n)\nmake()\n",
    # reads b (1), make (2), helper (3): within the budget, the result is on the accelerator
    "/p/a.py": b"from b import make\nx = make()\nx.numpy()\n",
    # reads c (1), b (2), make (3): helper is over the budget, the result unknown
    "/p/y.py": b"from c import n\nfrom b import make\nprint(n)\nx = make()\nx.numpy()\n",
}


def _check(order: list[str], parse=None) -> dict[str, list[tuple[str, int]]]:
    proj = Project(FILES, packages=(), parse=parse)
    return {p: [(f.code, f.line) for f in check_source(FILES[p].decode(), path=p, project=proj,
                                                        select=["ALL"])] for p in order}


@pytest.mark.parametrize("order", [["/p/a.py", "/p/x.py"], ["/p/x.py", "/p/a.py"]])
def test_findings_do_not_depend_on_the_files_checked_before(order, monkeypatch):
    # the summary of make() interpreted while x.py's budget had run out is not what a.py
    # sees: the analyses kept are dropped after x.py's check, and a.py's interprets it
    # again under its own budget
    monkeypatch.setattr(project_module, "SUMMARY_BUDGET", 3)
    got = _check(order)
    assert got["/p/a.py"] == [("FRY003", 3)]
    assert got["/p/x.py"] == []


def test_the_budget_runs_out_alike_whoever_read_the_file_first(monkeypatch):
    # a file another check already read costs the budget all the same: with two units,
    # a.py reads b and interprets make(), and helper() is over the budget, whether or not
    # x.py read b before (x.py reads c and b, and make() is over its budget)
    monkeypatch.setattr(project_module, "SUMMARY_BUDGET", 2)
    alone = _check(["/p/a.py"])["/p/a.py"]
    assert alone == []
    assert _check(["/p/x.py", "/p/a.py"])["/p/a.py"] == alone


def test_a_file_reached_by_several_checks_is_parsed_once():
    parsed: list[str] = []

    def parse(text: str, path: str) -> ast.Module:
        parsed.append(path)
        return ast.parse(text, filename=path)

    got = _check(["/p/x.py", "/p/a.py", "/p/x.py"], parse=parse)
    assert got["/p/a.py"] == [("FRY003", 3)]
    assert parsed.count("/p/b.py") == 1 and parsed.count("/p/c.py") == 1


@pytest.mark.parametrize("before", [[], ["/p/a.py"], ["/p/x.py"], ["/p/x.py", "/p/a.py"]])
def test_a_kept_summary_costs_what_it_cost_to_make(before, monkeypatch):
    # a.py leaves make() and helper() interpreted within its budget; y.py, which has a
    # unit less for them, finds make() too dear and interprets it again: helper() is over
    # its budget, as when y.py is checked first
    monkeypatch.setattr(project_module, "SUMMARY_BUDGET", 3)
    got = _check([*before, "/p/y.py"])
    assert got["/p/y.py"] == []
    if "/p/a.py" in before:
        assert got["/p/a.py"] == [("FRY003", 3)]


def _findings(outcomes: list[runner.FileOutcome]) -> dict[str, list[tuple[str, int]]]:
    assert all(o.error is None for o in outcomes)
    return {Path(o.path).name: sorted((d.code, d.line) for d in o.diagnostics) for o in outcomes}


def test_one_or_two_jobs_give_the_same_findings(tmp_path, monkeypatch):
    # (a budget of three units: x.py runs out of it, the others share what it read)
    monkeypatch.setattr(project_module, "SUMMARY_BUDGET", 3)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    for path, data in FILES.items():
        # (every file mentions torch, and is large enough for a batch of its own)
        (tmp_path / Path(path).name).write_bytes(b"import torch\n" + data + b"#" * 2000)
    paths = sorted(tmp_path.iterdir())
    opts = runner.Options(root=tmp_path, select=("ALL",))
    one = _findings(runner.check_paths(paths, opts, jobs=1))
    assert one == _findings(runner.check_paths(paths, opts, jobs=2))
    # each file checked first, the others after it
    first = {p.name: _findings(runner.check_paths([p, *(q for q in paths if q != p)], opts, jobs=1))[p.name]
             for p in paths}
    assert one == first
    assert one["a.py"] == [("FRY003", 4)] and one["y.py"] == []

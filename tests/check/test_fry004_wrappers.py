"""FRY004 follows a function of the run that loads a checkpoint with its parameter as
``map_location`` (defaulting to None): a call that leaves the parameter to its default runs
the load without ``map_location`` and is reported there, with the wrapper's load as
evidence -- in the same file, across files, and through a wrapper of the wrapper.  Quiet
where the call passes it, where the wrapper picks a value itself, or where the binding is
not known."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths


def lines(src: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(src), "<case>", select=["FRY004"])]


WRAPPERS = """
    import torch
    def load(path, map_location=None):
        return torch.load(path, map_location)
    def load_kw(path, *, map_location=None):
        return torch.load(path, map_location=map_location)
    def outer(path, location=None, **extra):
        return load(path, location)
    def chosen(path, map_location=None):
        if map_location is None:
            map_location = "cpu"
        return torch.load(path, map_location)
    def tested(path, map_location=None):
        if map_location is None:
            return torch.load(path, map_location="cpu")
        return torch.load(path, map_location)
"""

FIRES = {
    "positional-wrapper": "a = load('x.pt')",
    "keyword-only-wrapper": "a = load_kw(path='x.pt')",
    "wrapper-of-wrapper": "a = outer('x.pt', verbose=True)",
}

QUIET = {
    "passed-positionally": "a = load('x.pt', 'cpu')",
    "passed-by-keyword": "a = load_kw('x.pt', map_location='cpu')",
    "passed-on": "a = outer('x.pt', location='cpu')",
    "rebound-in-wrapper": "a = chosen('x.pt')",
    "tested-in-wrapper": "a = tested('x.pt')",
    "spread-keywords": "a = load('x.pt', **opts)",
    "refused-call": "a = load('x.pt', 'cpu', 3)",
}


@pytest.mark.parametrize("name", sorted(FIRES))
def test_fires_at_a_call_leaving_map_location_to_none(name: str) -> None:
    src = textwrap.dedent(WRAPPERS) + FIRES[name] + "\n"
    assert lines(src) == [len(src.splitlines())]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_where_the_call_or_the_wrapper_chooses(name: str) -> None:
    src = textwrap.dedent(WRAPPERS) + QUIET[name] + "\n"
    assert lines(src) == []


def test_quiet_where_a_local_name_hides_the_wrapper() -> None:
    src = textwrap.dedent(WRAPPERS) + "def run(load, p):\n    return load(p)\n"
    assert lines(src) == []


def test_quiet_on_a_decorated_wrapper() -> None:
    assert lines("""
        import functools, torch
        @functools.lru_cache
        def load(path, map_location=None):
            return torch.load(path, map_location)
        a = load("x.pt")
    """) == []


def test_the_evidence_names_the_wrappers_load() -> None:
    src = textwrap.dedent(WRAPPERS) + "a = outer('x.pt')\n"
    (f,) = check_source(src, "<case>", select=["FRY004"])
    assert [e.line for e in f.evidence] == [8, 4]
    assert "map_location=map_location" in f.evidence[-1].message


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int, list[tuple[str, int]]]]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY004",), target_torch_version=None)
    return sorted((Path(o.path).name, d.line, [(Path(e.path or o.path).name, e.line) for e in d.evidence])
                  for o in check_paths(sorted(root.rglob("*.py")), opts, cache=None, jobs=1)
                  for d in o.diagnostics)


def test_fires_on_a_wrapper_of_another_file(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/serialization.py": """
            import torch
            def load_state(path, map_location=None, pickle_module=None, **kwargs):
                return torch.load(path, map_location, pickle_module, **kwargs)
            def load(path, map_location=None):
                return load_state(path, map_location)
        """,
        "pkg/component.py": """
            from pkg.serialization import load as flambe_load, load_state
            from pkg import serialization
            def restore(path, cpu):
                if cpu:
                    return serialization.load(path, map_location="cpu")
                state = load_state(path)
                return flambe_load(path), state
        """,
    }
    assert found(tmp_path, files) == [
        ("component.py", 7, [("serialization.py", 4)]),
        ("component.py", 8, [("serialization.py", 6), ("serialization.py", 4)]),
    ]

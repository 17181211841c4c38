"""Which torch a project runs on: ``target-torch-version``, given or inferred.

Like ruff's ``target-version``: ``[tool.torchferry] target-torch-version = "2.6"`` says
the oldest torch the code must work with; rules whose advice depends on the version read
it from :attr:`Context.target_torch_version <torchferry.check.api.Context>` (FRY005 is
quiet from 2.6 on, where ``torch.load`` already defaults to ``weights_only=True``).

When the key is absent, the version is inferred from the torch requirement the project
declares in its root directory, read statically (nothing is imported or executed):

* ``pyproject.toml``: ``[project] dependencies`` and ``optional-dependencies``, Poetry's
  ``[tool.poetry.dependencies]`` (``^2.6``, ``~2.6``, ``>=2.6``);
* ``setup.cfg``: ``[options] install_requires`` and ``[options.extras_require]``;
* ``setup.py``: the ``install_requires=[...]`` and ``extras_require={...}`` literals of
  the ``setup(...)`` call (names bound to literals at module level are followed);
* ``requirements*.txt`` (and ``requirements/*.txt``).

The inferred version is the lower bound the declaration guarantees: the highest lower
bound among the unconditional core requirements (``torch>=2.1`` and ``torch>=2.7`` both
apply, so 2.7); failing that, the lowest among the conditional and optional ones, and
only if every one of those has a lower bound.  ``torch`` with no lower bound (or no
torch requirement at all) gives ``None``: the oldest torch is unknown, and rules behave
as for any version.

>>> parse_version("2.6")
(2, 6, 0)
>>> lower_bound("torch>=2.1.0,<4.0")
(2, 1, 0)
>>> lower_bound("torch (>=2.14.0)")
(2, 14, 0)
>>> lower_bound("torch") is None
True
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from torchferry.errors import UsageError

__all__ = ["Declaration", "infer", "lower_bound", "parse_version", "resolve", "validate"]

Version = tuple[int, int, int]

_VERSION = re.compile(r"^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")
_GIVEN = re.compile(r"^\d+\.\d+(\.\d+)?$")
_REQ = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*"
    r"(?P<spec>\(?[^;@]*?\)?)\s*(?:;(?P<marker>.*))?$"
)
_SPEC = re.compile(r"(===|~=|==|!=|<=|>=|<|>)\s*([^\s,()]+)")


def parse_version(text: str) -> Version | None:
    """The release part of a version (``"2.6.0rc1"`` -> ``(2, 6, 0)``), or None."""
    m = _VERSION.match(text)
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0))


def _spec_lower_bound(spec: str) -> Version | None:
    best: Version | None = None
    for op, ver in _SPEC.findall(spec):
        if op in (">=", ">", "==", "~=", "==="):
            v = parse_version(ver.rstrip(".*"))
            if v is not None and (best is None or v > best):
                best = v
    return best


def _poetry_lower_bound(spec: str) -> Version | None:
    spec = spec.strip()
    if spec[:1] in ("^", "~") and not spec.startswith("~="):
        return parse_version(spec.lstrip("^~"))
    if spec and spec[0].isdigit():  # a bare version: exactly that one
        return parse_version(spec)
    return _spec_lower_bound(spec)


def _split(requirement: str) -> tuple[str, str, str] | None:
    """(normalised name, specifier, marker) of a PEP 508 requirement, or None."""
    m = _REQ.match(requirement)
    if not m:
        return None
    name = re.sub(r"[-_.]+", "-", m.group("name")).lower()
    return name, m.group("spec") or "", (m.group("marker") or "").strip()


def lower_bound(requirement: str) -> Version | None:
    """The lowest version a ``torch`` requirement allows, if it sets one."""
    parts = _split(requirement)
    return _spec_lower_bound(parts[1]) if parts else None


@dataclass(frozen=True)
class Declaration:
    """One torch requirement found in a project file."""

    where: str  #: e.g. ``pyproject.toml [project] dependencies``
    text: str  #: the requirement as written
    core: bool  #: a core (not optional) requirement
    conditional: bool  #: has an environment marker
    bound: Version | None  #: its lower bound
    name: str = "torch"  #: the distribution required (normalised: ``future-fstrings``)


def _add(out: list[Declaration], where: str, req: str, core: bool) -> None:
    parts = _split(req)
    if parts is None:
        return
    out.append(Declaration(where, req.strip(), core, bool(parts[2]), _spec_lower_bound(parts[1]),
                           parts[0]))


def _toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _str_items(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _from_pyproject(path: Path, out: list[Declaration]) -> None:
    data = _toml(path)
    project = data.get("project")
    if isinstance(project, dict):
        for req in _str_items(project.get("dependencies")):
            _add(out, "pyproject.toml [project] dependencies", req, True)
        extras = project.get("optional-dependencies")
        if isinstance(extras, dict):
            for extra, reqs in extras.items():
                for req in _str_items(reqs):
                    _add(out, f"pyproject.toml optional-dependencies {extra}", req, False)
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    deps = poetry.get("dependencies") if isinstance(poetry, dict) else None
    if isinstance(deps, dict) and "torch" in deps:
        spec = deps["torch"]
        optional = False
        if isinstance(spec, dict):
            optional = bool(spec.get("optional"))
            spec = spec.get("version", "")
        if isinstance(spec, str):
            bound = _poetry_lower_bound(spec) if spec.strip() != "*" else None
            out.append(
                Declaration(
                    "pyproject.toml [tool.poetry.dependencies]",
                    f"torch = {spec!r}",
                    not optional,
                    False,
                    bound,
                )
            )


def _from_setup_cfg(path: Path, out: list[Declaration]) -> None:
    import configparser  # here: most projects have no setup.cfg

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return
    if parser.has_option("options", "install_requires"):
        for req in parser.get("options", "install_requires").splitlines():
            _add(out, "setup.cfg install_requires", req, True)
    if parser.has_section("options.extras_require"):
        for extra, reqs in parser.items("options.extras_require"):
            for req in reqs.splitlines():
                _add(out, f"setup.cfg extras_require {extra}", req, False)


def _literal(node: ast.AST, names: dict[str, ast.AST]) -> object:
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _from_setup_py(path: Path, out: list[Declaration]) -> None:
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return
    names: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                names[target.id] = stmt.value
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        fname = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if fname != "setup":
            continue
        for kw in node.keywords:
            value = _literal(kw.value, names) if kw.arg else None
            if kw.arg == "install_requires":
                for req in value if isinstance(value, (list, tuple)) else []:
                    if isinstance(req, str):
                        _add(out, "setup.py install_requires", req, True)
            elif kw.arg == "extras_require" and isinstance(value, dict):
                for extra, reqs in value.items():
                    for req in reqs if isinstance(reqs, (list, tuple)) else []:
                        if isinstance(req, str):
                            _add(out, f"setup.py extras_require {extra}", req, False)


def _from_requirements(path: Path, root: Path, out: list[Declaration]) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    where = path.relative_to(root).as_posix()
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-", "git+", "http:", "https:", "file:")):
            continue
        _add(out, where, line, True)


def declarations(root: Path, name: str = "torch") -> list[Declaration]:
    """Every requirement of the distribution ``name`` (normalised, ``future-fstrings``;
    torch by default) declared in the project files of ``root``."""
    out: list[Declaration] = []
    if (root / "pyproject.toml").is_file():
        _from_pyproject(root / "pyproject.toml", out)
    if (root / "setup.cfg").is_file():
        _from_setup_cfg(root / "setup.cfg", out)
    if (root / "setup.py").is_file():
        _from_setup_py(root / "setup.py", out)
    reqs = sorted(root.glob("requirements*.txt"))
    if (root / "requirements").is_dir():
        reqs += sorted((root / "requirements").glob("*.txt"))
    for path in reqs:
        if path.is_file():
            _from_requirements(path, root, out)
    return [d for d in out if d.name == name]


def infer(root: Path) -> tuple[Version | None, str]:
    """(the oldest torch the project's declared requirement allows, where that came from).

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "requirements.txt").write_text("numpy\\ntorch>=2.7  # for weights_only\\n")
    >>> infer(d)
    ((2, 7, 0), 'requirements.txt: torch>=2.7')
    """
    decls = declarations(root)
    core = [d for d in decls if d.core and not d.conditional]
    bounded = [d for d in core if d.bound is not None]
    if bounded:
        best = max(bounded, key=lambda d: d.bound or (0, 0, 0))
        return best.bound, f"{best.where}: {best.text}"
    if core or not decls:  # unconditional torch without a bound, or nothing declared
        return None, ""
    if all(d.bound is not None for d in decls):
        low = min(decls, key=lambda d: d.bound or (0, 0, 0))
        return low.bound, f"{low.where}: {low.text}"
    return None, ""


def validate(value: object, where: str) -> Version:
    """The version given as ``target-torch-version``; a usage error unless it is a string
    like ``"2.6"`` or ``"2.6.1"``."""
    if not isinstance(value, str) or not _GIVEN.match(value.strip()):
        raise UsageError(f'{where} must be a version string such as "2.6", got {value!r}')
    v = parse_version(value)
    assert v is not None
    return v


def resolve(root: Path) -> Version | None:
    """The target torch version of the project rooted at ``root``: the
    ``target-torch-version`` of its ``pyproject.toml`` if set, else :func:`infer`'s."""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        section = _toml(pyproject).get("tool", {})
        section = section.get("torchferry") if isinstance(section, dict) else None
        if isinstance(section, dict) and "target-torch-version" in section:
            return validate(
                section["target-torch-version"],
                f"{pyproject}: [tool.torchferry] target-torch-version",
            )
    return infer(root)[0]

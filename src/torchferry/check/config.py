"""``[tool.torchferry]`` in the nearest ``pyproject.toml``.

Keys: ``select``, ``ignore`` (lists of codes, prefixes or ``ALL``),
``per-file-ignores`` (a table of path patterns to lists of codes) and ``exclude``
(a list of gitignore-style patterns, relative to the project root, added to the
default excludes).  Any other plain key, or a value of the wrong type, is a
usage error (exit 2) naming the file and key::

    [tool.torchferry]
    select = ["FRY"]
    ignore = ["FRY007"]
    exclude = ["legacy/", "*_pb2.py"]
    per-file-ignores = {"tests/**" = ["FRY001"]}
    target-torch-version = "2.6"   # else inferred from the declared torch requirement
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from torchferry.errors import UsageError

__all__ = ["Config", "find_project", "load_config"]

KEYS = ("select", "ignore", "per-file-ignores", "exclude", "target-torch-version")


@dataclass
class Config:
    """The resolved configuration of a run."""

    root: Path  #: the project root: the pyproject.toml's directory, else the cwd
    path: Path | None = None  #: the pyproject.toml read, if any
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    #: ``target-torch-version`` as given (inferred when absent: see check/torch_version.py)
    target_torch_version: tuple[int, int, int] | None = None


def _toml_loads(text: str):
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib.loads(text)


def find_project(start: Path) -> tuple[Path | None, Path | None]:
    """(the first pyproject.toml with a ``[tool.torchferry]`` table, the first pyproject.toml)
    found walking up from ``start``."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    first = None
    for d in (start, *start.parents):
        candidate = d / "pyproject.toml"
        try:
            text = candidate.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{candidate}: cannot read: {exc}") from None
        if first is None:
            first = candidate
        if "tool.torchferry" in text:
            return candidate, first
    return None, first


def _str_list(value, where: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where} must be a list of strings, got {value!r}")
    return list(value)


def load_config(start: Path, explicit: Path | None = None) -> Config:
    """Read the configuration that applies to ``start`` (a file or directory).

    Raises :class:`UsageError` for invalid TOML, an unknown key or a value of the
    wrong type, or a code in ``select``/``ignore`` that names no rule.

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "pyproject.toml").write_text('[tool.torchferry]\\nignore = ["FRY007"]\\n')
    >>> cfg = load_config(d)
    >>> cfg.ignore, cfg.root == d.resolve()
    (['FRY007'], True)
    """
    from torchferry.check.engine import validate_selectors

    if explicit is not None:
        found, first = explicit, explicit
    else:
        found, first = find_project(start)
    if found is None:
        root = first.parent if first is not None else Path.cwd()
        return Config(root=root.resolve())
    try:
        data = _toml_loads(found.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{found}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError, UnicodeDecodeError
        raise UsageError(f"{found}: invalid TOML: {exc}") from None
    cfg = Config(root=found.parent.resolve(), path=found)
    section = data.get("tool", {}).get("torchferry")
    if section is None:
        return cfg
    if not isinstance(section, dict):
        raise UsageError(f"{found}: [tool.torchferry] must be a table")
    where = f"{found}: [tool.torchferry]"
    for key, value in section.items():
        if isinstance(value, dict) and key not in KEYS:
            continue  # a sub-table, e.g. [tool.torchferry.<other command>]
        if key not in KEYS:
            raise UsageError(f"{where} unknown key {key!r} (known: {', '.join(KEYS)})")
    if "select" in section:
        cfg.select = _str_list(section["select"], f"{where} select")
        validate_selectors(cfg.select, f"{where} select")
    if "ignore" in section:
        cfg.ignore = _str_list(section["ignore"], f"{where} ignore")
        validate_selectors(cfg.ignore, f"{where} ignore")
    if "target-torch-version" in section:
        from torchferry.check.torch_version import validate

        cfg.target_torch_version = validate(
            section["target-torch-version"], f"{where} target-torch-version"
        )
    if "exclude" in section:
        cfg.exclude = _str_list(section["exclude"], f"{where} exclude")
    if "per-file-ignores" in section:
        pfi = section["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise UsageError(f"{where} per-file-ignores must be a table of pattern = [codes]")
        for pattern, codes in pfi.items():
            key = f"{where} per-file-ignores {pattern!r}"
            cfg.per_file_ignores[pattern] = _str_list(codes, key)
            validate_selectors(cfg.per_file_ignores[pattern], key)
    return cfg

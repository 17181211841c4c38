"""``[tool.torchferry]`` in the nearest ``pyproject.toml``.

Keys: ``select`` (the rules to run, replacing the default; ``[]`` runs none, as
in ruff), ``extend-select`` (added to the selection), ``ignore`` (lists of codes,
prefixes or ``ALL``), ``per-file-ignores`` (a table of path patterns to lists of
codes), ``exclude`` (a list of gitignore-style patterns, relative to the project
root, replacing the default excludes, as in ruff) and ``extend-exclude`` (added to
them),
``target-version`` (``"py311"``: the Python the code is written for; else read from
``requires-python``) and ``max-file-size`` (bytes, or a string such as ``"20MB"``;
``0`` for no limit).  Any other plain key, or a value of the wrong type (a
string where a list is expected, too), is a usage error (exit 2) naming the file
and key::

    [tool.torchferry]
    select = ["FRY"]
    extend-select = ["FRY016"]
    ignore = ["FRY007"]
    exclude = ["legacy/", "*_pb2.py"]
    per-file-ignores = {"tests/**" = ["FRY001"]}
    target-torch-version = "2.6"   # else inferred from the declared torch requirement
    target-version = "py312"       # else inferred from requires-python
    max-file-size = "20MB"

``--config FILE`` reads FILE instead: a ``pyproject.toml`` (its
``[tool.torchferry]``) or a TOML file holding those keys at the top level.
``--config 'KEY = VALUE'`` (a TOML pair, as ruff takes it) overrides one key of
whatever file is read.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from torchferry.check.api import Selector
from torchferry.check.files import DEFAULT_EXCLUDE, check_pattern, read_bytes
from torchferry.errors import UsageError

__all__ = [
    "DEFAULT_MAX_FILE_SIZE", "Config", "find_project", "load_config",
    "parse_override", "parse_size", "parse_target_version",
]  # fmt: skip

KEYS = (
    "select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude",
    "target-torch-version", "target-version", "max-file-size",
)  # fmt: skip

_TARGET = re.compile(r"py3(\d{1,2})")
_REQUIRES = re.compile(r"\s*(?:>=|~=|==)\s*3\.(\d{1,2})")

#: Python files larger than this (bytes) are not checked but reported as FRY000:
#: checking takes about 0.8 s and 50 MB of memory per MB of ordinary code, and
#: far more for pathological code (a 50 MB file took over 300 s and 15 GB).
DEFAULT_MAX_FILE_SIZE = 5_000_000

_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|kib|mib|gib)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9,
          "kib": 2**10, "mib": 2**20, "gib": 2**30}  # fmt: skip


def parse_size(value: object, where: str) -> int | None:
    """Bytes from ``5000000``, ``"5MB"``, ``"4.5 MiB"``; None (no limit) for 0.

    >>> parse_size("20MB", "x"), parse_size(1024, "x"), parse_size(0, "x")
    (20000000, 1024, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise UsageError(f"{where} must be a number of bytes or a size like '20MB', got {value!r}")
    if isinstance(value, int):
        n = value
    else:
        m = _SIZE.fullmatch(value)
        if m is None:
            raise UsageError(f"{where}: cannot read {value!r} as a size (e.g. 5000000, '20MB')")
        n = int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])
    if n < 0:
        raise UsageError(f"{where} must be 0 (no limit) or more, got {value!r}")
    return n or None


@dataclass
class Config:
    """The resolved configuration of a run."""

    root: Path  #: the project root: the pyproject.toml's directory, else the cwd
    path: Path | None = None  #: the pyproject.toml read, if any
    select: list[str] | None = None  #: None: not given (the default selection)
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] | None = None  #: None: not given (the default excludes)
    extend_exclude: list[str] = field(default_factory=list)
    #: ``target-torch-version`` as given (inferred when absent: see check/torch_version.py)
    target_torch_version: tuple[int, int, int] | None = None
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE  #: None: no limit
    #: the Python (3, minor) the code targets: ``target-version``, else ``requires-python``
    target_version: tuple[int, int] | None = None

    @property
    def excludes(self) -> tuple[str, ...]:
        """The exclude patterns in force: ``exclude`` (else the defaults), then
        ``extend-exclude``, as ruff combines them.

        >>> Config(Path("."), exclude=["gen/"], extend_exclude=["*_pb2.py"]).excludes
        ('gen/', '*_pb2.py')
        >>> ".git" in Config(Path(".")).excludes
        True
        """
        base = DEFAULT_EXCLUDE if self.exclude is None else tuple(self.exclude)
        return (*base, *self.extend_exclude)

    def selection(self, select: list[str] | None = None,
                  extend_select: list[str] | None = None) -> tuple[Selector, ...]:
        """The selectors to run, as ruff combines them: the command line's ``select``
        replaces the configuration's (and its ``extend-select``), which replaces the
        default rule set; ``extend-select`` adds.  An empty result selects no rule.

        >>> cfg = Config(root=Path("."), select=["FRY001"], extend_select=["FRY002"])
        >>> cfg.selection(), cfg.selection(["FRY003"]), Config(Path("."), select=[]).selection()
        (('FRY001', 'FRY002'), ('FRY003',), ())
        >>> Config(root=Path("."), extend_select=["FRY001"]).selection()
        (<RuleSet.DEFAULT: 'the default rule set'>, 'FRY001')
        """
        if select is not None:
            return (*select, *(extend_select or ()))
        from torchferry.check.engine import default_selection

        base = default_selection() if self.select is None else tuple(self.select)
        return (*base, *self.extend_select, *(extend_select or ()))


def _toml_loads(text: str) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib.loads(text)


#: A pyproject.toml is read up to this size (a FIFO or a device never hangs the run).
CONFIG_LIMIT = 16_000_000


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
            text = read_bytes(candidate, CONFIG_LIMIT).decode("utf-8")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{candidate}: cannot read: {exc}") from None
        if first is None:
            first = candidate
        if "tool.torchferry" in text:
            return candidate, first
    return None, first


def _str_list(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        raise UsageError(f"{where} must be a list of strings, got {value!r} (write [{value!r}])")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where} must be a list of strings, got {value!r}")
    return list(value)


def parse_target_version(value: object, where: str) -> tuple[int, int]:
    """``"py312"`` -> ``(3, 12)``, as ruff spells target versions.

    >>> parse_target_version("py312", "x")
    (3, 12)
    """
    m = _TARGET.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise UsageError(f"{where} must be a Python version such as 'py311', got {value!r}")
    return 3, int(m.group(1))


def _requires_python(data: dict) -> tuple[int, int] | None:
    """The lowest Python 3 minor version ``[project] requires-python`` allows, if it says."""
    project = data.get("project")
    spec = project.get("requires-python") if isinstance(project, dict) else None
    m = _REQUIRES.match(spec) if isinstance(spec, str) else None
    return (3, int(m.group(1))) if m else None


def load_config(start: Path, explicit: Path | None = None,
                overrides: tuple[str, ...] = ()) -> Config:
    """Read the configuration that applies to ``start`` (a file or directory), then
    apply ``overrides`` (``--config 'KEY = VALUE'`` pairs) on top.

    Raises :class:`UsageError` for invalid TOML, an unknown key or a value of the
    wrong type, or a code in ``select``/``ignore`` that names no rule.

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "pyproject.toml").write_text('[tool.torchferry]\\nignore = ["FRY007"]\\n')
    >>> cfg = load_config(d)
    >>> cfg.ignore, cfg.root == d.resolve()
    (['FRY007'], True)
    >>> load_config(d, overrides=("ignore = ['FRY003']",)).ignore
    ['FRY003']
    """
    cfg, section, where = _read(start, explicit)
    if section is not None:
        _apply(cfg, section, where)
    for text in overrides:
        _apply(cfg, parse_override(text), f"--config {text!r}:")
    return cfg


def parse_override(text: str) -> dict:
    """One ``--config`` TOML pair as a table of one key, checked against the known keys.

    >>> parse_override("select = ['FRY001']")
    {'select': ['FRY001']}
    >>> parse_override("max-file-size = '20MB'")
    {'max-file-size': '20MB'}
    >>> parse_override("lint.select = ['FRY001']")  # ruff's spelling
    {'select': ['FRY001']}
    """
    try:
        table = _toml_loads(text)
    except ValueError as exc:
        raise UsageError(
            f"--config {text!r}: not a file, and not a TOML 'KEY = VALUE' pair ({exc})"
        ) from None
    table = _lifted(table, f"--config {text!r}:")
    if len(table) != 1 or next(iter(table)) not in KEYS:
        raise UsageError(
            f"--config {text!r}: one of the [tool.torchferry] keys (known: {', '.join(KEYS)})"
        )
    return table


def _read(start: Path, explicit: Path | None) -> tuple[Config, dict | None, str]:
    """(the configuration of the file found, its ``[tool.torchferry]`` section, its name)."""
    found: Path | None
    first: Path | None
    if explicit is not None:
        found, first = explicit, explicit
    else:
        found, first = find_project(start)
    if found is None:
        root = first.parent if first is not None else Path.cwd()
        return Config(root=root.resolve()), None, ""
    try:
        data = _toml_loads(read_bytes(found, CONFIG_LIMIT).decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"{found}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError, UnicodeDecodeError
        raise UsageError(f"{found}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise UsageError(f"{found}: invalid TOML: arrays or tables nested too deeply") from None
    cfg = Config(root=found.parent.resolve(), path=found, target_version=_requires_python(data))
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise UsageError(f"{found}: 'tool' must be a table ([tool.torchferry]), got {tool!r}")
    section = tool.get("torchferry")
    if section is None and explicit is not None and found.name != "pyproject.toml":
        section = {k: v for k, v in data.items() if k not in ("tool", "project")}
        if not section and tool:  # e.g. [tool.ferry]: asked for, and it would set nothing
            tables = ", ".join(f"[tool.{k}]" for k in tool)
            raise UsageError(f"{found}: no [tool.torchferry] table and no keys at the top "
                             f"level (found {tables})")
    if section is None:
        return cfg, None, ""
    if not isinstance(section, dict):
        raise UsageError(f"{found}: [tool.torchferry] must be a table")
    return cfg, section, f"{found}: [tool.torchferry]"


#: the keys ruff keeps under ``lint`` (``[tool.ruff.lint]``, ``--config 'lint.select = ...'``):
#: read there too, so a configuration written the ruff way means what it says
LINT_KEYS = ("select", "extend-select", "ignore", "per-file-ignores")


def _lifted(section: dict, where: str) -> dict:
    """``section`` with the keys of its ``lint`` sub-table (``[tool.torchferry.lint]``)
    moved up beside the others.

    >>> _lifted({"lint": {"select": ["FRY001"]}, "exclude": []}, "")
    {'exclude': [], 'select': ['FRY001']}
    """
    lint = section.get("lint")
    if not isinstance(lint, dict):
        return section
    out = {k: v for k, v in section.items() if k != "lint"}
    for key, value in lint.items():
        if key not in LINT_KEYS:
            raise UsageError(f"{where} unknown key 'lint.{key}' (known: "
                             f"{', '.join('lint.' + k for k in LINT_KEYS)})")
        if key in out:
            raise UsageError(f"{where} {key!r} is given both at the top level and in 'lint'")
        out[key] = value
    return out


def _apply(cfg: Config, section: dict, where: str) -> None:
    """Set what ``section`` (a ``[tool.torchferry]`` table) says on ``cfg``."""
    from torchferry.check.engine import validate_selectors

    section = _lifted(section, where)
    for key, value in section.items():
        if isinstance(value, dict) and key not in KEYS:
            continue  # a sub-table, e.g. [tool.torchferry.<other command>]
        if key not in KEYS:
            raise UsageError(f"{where} unknown key {key!r} (known: {', '.join(KEYS)})")
    if "select" in section:
        cfg.select = _str_list(section["select"], f"{where} select")
        validate_selectors(cfg.select, f"{where} select")
    if "extend-select" in section:
        cfg.extend_select = _str_list(section["extend-select"], f"{where} extend-select")
        validate_selectors(cfg.extend_select, f"{where} extend-select")
    if "target-version" in section:
        cfg.target_version = parse_target_version(
            section["target-version"], f"{where} target-version")
    if "ignore" in section:
        cfg.ignore = _str_list(section["ignore"], f"{where} ignore")
        validate_selectors(cfg.ignore, f"{where} ignore")
    if "target-torch-version" in section:
        from torchferry.check.torch_version import validate

        cfg.target_torch_version = validate(
            section["target-torch-version"], f"{where} target-torch-version"
        )
    for key in ("exclude", "extend-exclude"):
        if key in section:
            patterns = _str_list(section[key], f"{where} {key}")
            for pattern in patterns:
                check_pattern(pattern, f"{where} {key}")
            if key == "exclude":
                cfg.exclude = patterns
            else:
                cfg.extend_exclude.extend(patterns)
    if "max-file-size" in section:
        cfg.max_file_size = parse_size(section["max-file-size"], f"{where} max-file-size")
    if "per-file-ignores" in section:
        pfi = section["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise UsageError(f"{where} per-file-ignores must be a table of pattern = [codes]")
        for pattern, codes in pfi.items():
            key = f"{where} per-file-ignores {pattern!r}"
            check_pattern(pattern, f"{where} per-file-ignores")
            cfg.per_file_ignores[pattern] = _str_list(codes, key)
            validate_selectors(cfg.per_file_ignores[pattern], key)

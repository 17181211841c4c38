"""``ferry check``'s rules as a flake8 plugin (entry point ``flake8.extension: FRY``).

flake8 parses the file and handles ``# noqa``, ``select``/``ignore`` and output;
this plugin reuses flake8's tree and yields ``(line, column, "FRY00x message",
type)`` with flake8's convention: ``column`` 0-based, which flake8 prints plus
one (the same column ``ferry check`` prints)::

    $ flake8 --select FRY train.py
    train.py:12:5: FRY002 ...

Files that do not mention torch are skipped, as ``ferry check`` does.  Fixes are
only available through ``ferry check --fix``.  Without a ``select``/``extend-select``
naming FRY codes, the plugin runs ``ferry check``'s default rule set; naming them
(``--select FRY``, ``--extend-select FRY001``) runs every rule, and flake8 keeps the
selected ones.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import Any

from torchferry._version import __version__

__all__ = ["Plugin"]


class Plugin:
    """The flake8 checker class."""

    name = "torchferry"
    version = __version__

    #: whether flake8's select or extend-select names FRY codes (then every rule runs)
    every_rule = False

    @classmethod
    def parse_options(cls, options: Any) -> None:
        """Read flake8's selection (flake8 calls this once, before checking files)."""
        chosen = [*(getattr(options, "select", None) or ()),
                  *(getattr(options, "extend_select", None) or ())]  # fmt: skip
        cls.every_rule = any(str(c).strip().upper().startswith("FRY") for c in chosen)

    def __init__(self, tree: ast.Module, filename: str, lines: Sequence[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        source = "".join(self.lines)
        if "torch" not in source:
            return
        from torchferry.check.engine import check_tree

        # flake8 applies noqa comments itself (and honours --disable-noqa)
        select = ["ALL"] if self.every_rule else None
        for f in check_tree(self.tree, source, self.filename, select=select, noqa=False):
            yield f.line, f.column, f"{f.code} {f.message}", type(self)

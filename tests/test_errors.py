"""Every exception torchferry defines lives in ``errors.py``, is a ``FerryError`` and a builtin.

``except FerryError`` catches everything torchferry raises on purpose, and code written
against the builtin (``except RuntimeError`` around a device move, ``except ValueError``
around a parser) keeps working (docs/architecture.md).
"""

from __future__ import annotations

import ast
import builtins
import inspect
from pathlib import Path

import pytest

from torchferry import errors

SRC = Path(errors.__file__).resolve().parent
_BUILTIN_EXCEPTIONS = {
    name for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
}


def _defines_exception(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name in _BUILTIN_EXCEPTIONS or name.endswith(("Error", "Exception", "Warning")):
            return True
    return False


def test_every_exception_class_is_defined_in_errors_py():
    elsewhere = [
        f"{path.relative_to(SRC.parent)}:{node.lineno} {node.name}"
        for path in sorted(SRC.rglob("*.py")) if path.name != "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and _defines_exception(node)
    ]
    assert elsewhere == [], "exception classes outside errors.py:\n" + "\n".join(elsewhere)


_CLASSES = [c for _, c in inspect.getmembers(errors, inspect.isclass)
            if issubclass(c, BaseException) and c.__module__ == errors.__name__]


def test_the_scan_reads_errors_py():
    assert len(_CLASSES) >= 10 and errors.FerryError in _CLASSES


@pytest.mark.parametrize("cls", [c for c in _CLASSES if c is not errors.FerryError],
                         ids=lambda c: c.__name__)
def test_each_error_is_a_ferry_error_and_a_builtin(cls):
    assert issubclass(cls, errors.FerryError)
    builtin = [b for b in cls.__mro__ if b.__module__ == "builtins"
               and b not in (Exception, BaseException, object)]
    assert builtin, f"{cls.__name__} derives from no builtin exception but Exception"
    assert cls.__name__ in errors.__all__

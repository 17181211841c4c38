"""The rules of ``ferry check``: one module per rule, named ``fryNNN_<name>.py``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType


@cache
def all_rules() -> tuple[ModuleType, ...]:
    """Every rule module, sorted by code."""
    mods = [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
        if info.name.startswith("fry")
    ]
    return tuple(sorted(mods, key=lambda m: m.CODE))


def rule_by_code(code: str) -> ModuleType | None:
    code = code.upper()
    for mod in all_rules():
        if mod.CODE == code or mod.NAME == code.lower():
            return mod
    return None

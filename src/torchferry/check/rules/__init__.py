"""The rules of ``ferry check``: one module per rule, named ``fryNNN_<name>.py``.

The default rule set, as ruff has one: on unless configured otherwise are the rules whose
findings are mistakes, code that crashes or computes wrong results on some machine.  The
rules below are opt-in (``extend-select``, ``--select ALL`` or naming them), each for the
reason given, which ``docs/rules.md``, ``ferry rule`` and ``ferry rules`` show: on real
code most of their findings are deliberate, or (FRY006) too often false (measured in
docs/check.md).  A rule may be on by default in part (``PARTLY_DEFAULT``): the default set
alone runs it for the findings it is sure of, and a selector naming it (its code, ``ALL``,
``extend-select``) for every finding.  FRY010 is: its meetings with a tensor the run's own
code puts on the accelerator are crashes on a GPU machine; most of those with a value only a
hint places (a parameter every caller passes on the CPU) were false on real code.  So is
FRY011: an attribute left on the CPU, or put on a device written out, is left behind by
``model.to(device)``; one that ``__init__`` puts on a device the program chooses when it runs
(``args.device``, ``"cuda" if torch.cuda.is_available() else "cpu"``) is where the program
puts the model too, unless it moves the model elsewhere, and on real code such findings were
harmless.  So is FRY001: a hard-coded accelerator in a program whose own code picks its
device with a CPU fallback (in the file, a file it imports or one that imports it) crashes
on the run that fallback is written for; elsewhere most were deliberate (code that is
CUDA-only by design).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

#: code -> why the rule is not in the default set
OPT_IN: dict[str, str] = {
    "FRY004": (
        "most loads without map_location in real code read back a checkpoint the same "
        "program saved on the same machine; it crashes only when the file moves to a "
        "machine without that device"
    ),
    "FRY005": (
        "a hardening advice rather than a mistake: torch >= 2.6 loads weights only by "
        "default, and most explicit weights_only=False loads read the program's own files"
    ),
    "FRY007": "a performance advice (a host sync per step), not a mistake",
    "FRY008": "a performance advice (a copy per step), not a mistake",
    "FRY009": "a performance advice (a one-off extra copy), not a mistake",
    "FRY006": (
        "on code it was never developed on, most of its findings were deliberate or false "
        "(3 real, 13 debatable, 9 false over six such sets): a progress line or a CPU-only "
        "path timed, rarely a benchmark; a misleading timing, not a crash or a wrong result"
    ),
}

#: code -> the part of its findings a rule on by default reports when the default set alone
#: selects it (a selector naming the rule reports every finding; see
#: :class:`~torchferry.check.api.Selected`)
PARTLY_DEFAULT: dict[str, str] = {
    "FRY001": "where the program picks its device with a CPU fallback",
    "FRY010": "sure meetings, tensors or layers of the module or an optimizer's parameters",
    "FRY011": "not for attributes placed on a device the program chooses when it runs",
}


def is_default(code: str) -> bool:
    """Whether the rule ``code`` is on when nothing selects rules.

    >>> is_default("FRY013"), is_default("FRY004")
    (True, False)
    """
    return code not in OPT_IN


def default_part(code: str) -> str | None:
    """What the default rule set reports of the rule ``code`` when it is on by default only
    in part, else None (every finding, or an opt-in rule).

    >>> default_part("FRY013") is None
    True
    """
    return PARTLY_DEFAULT.get(code) if is_default(code) else None


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

"""The ``ferry check`` rules that the runtime diagnostics name, read from ``torchferry.check.rules``.

``explain`` and ``trips`` point at the rule that finds a mistake statically by
its code (``FRY013``); the rule's name comes from its module in
:mod:`torchferry.check.rules`, never from a copy here.  ``tests/diagnose``
checks that every code mentioned in ``torchferry/diagnose`` exists there.
A rule's one-line fix (its ``HINT``) is read from there too, for the rules whose fix
does not depend on what was seen (trips' per-loop notes); the fixes the explanation
writes name the user's own tensors and lines, so they are built in ``diagnose``.
"""

from __future__ import annotations

import functools


@functools.cache
def rule_name(code: str) -> str:
    """The name of rule ``code`` (``"FRY007"`` -> ``"sync-in-loop"``); '' for an unknown code.

    >>> rule_name("FRY013")
    'partial-batch-move'
    """
    from torchferry.check.rules import rule_by_code

    mod = rule_by_code(code)
    return str(mod.NAME) if mod is not None else ""


def rule_hint(code: str) -> str:
    """The one-line fix of rule ``code`` (its module's ``HINT``); '' when it has none.

    >>> rule_hint("FRY008")
    'move the model once, before the loop'
    """
    from torchferry.check.rules import rule_by_code

    mod = rule_by_code(code)
    return str(getattr(mod, "HINT", "")) if mod is not None else ""

"""The ``ferry check`` rules that the runtime diagnostics name, read from ``torchferry.check.rules``.

``explain`` and ``trips`` point at the rule that finds a mistake statically by
its code (``FRY013``); the rule's name comes from its module in
:mod:`torchferry.check.rules`, never from a copy here.  ``tests/diagnose``
checks that every code mentioned in ``torchferry/diagnose`` exists there.
(The fix texts stay in ``diagnose``: they are written for what was seen at run
time, e.g. "move the model once, before the loop", and the rule modules keep
theirs private.)
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

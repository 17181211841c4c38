"""Replace attributes of other modules for a while, and put them back: the one patcher.

Every place where torchferry swaps a function of torch for its own (the
simulation's ``torch.cuda`` stand-ins, ``trips``' ride counters, ``explain``'s
creation-site recorder) goes through :class:`Patch`:

* **Refcounted.** ``acquire()`` installs the replacements on the first call,
  ``release()`` restores the originals on the matching last one; nested and
  repeated users share one installation.  Thread-safe.
* **One policy for "someone patched over us".**  On restore, an attribute that
  still holds our replacement gets its original back (or is deleted again when
  the owner had none of its own, e.g. a method inherited from a base class).
  An attribute that holds something else was replaced by someone after us
  (a test's ``monkeypatch``, another tool's wrapper) and is not undone yet: we
  leave *their* object in place -- it is theirs to undo, and removing it would
  silently break them -- and warn once (:class:`RuntimeWarning`) naming the
  attribute, because what they will restore later is our replacement.  The
  attribute's name is also kept in :attr:`Patch.contested`.
  Replacements that can outlive their patch this way should therefore do
  nothing of their own once the patch is released (``trips``' and
  ``explain``'s wrappers check whether they are active and call through).

>>> import types
>>> mod = types.SimpleNamespace(f=lambda: "original")
>>> p = Patch("demo", lambda: [(mod, "f", lambda: "patched")])
>>> with p:
...     with p:  # nested: installed once
...         mod.f()
...     mod.f()
'patched'
'patched'
>>> mod.f()
'original'

Standard library only: importing this module imports no torch.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["Patch", "MISSING"]

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()
"""Stands for "the owner had no attribute of its own" in a saved original."""

Plan = Callable[[], Iterable[tuple[Any, str, Any]]]


def _owner_name(owner: Any) -> str:
    name = getattr(owner, "__qualname__", None) or getattr(owner, "__name__", None)
    module = getattr(owner, "__module__", None)
    if isinstance(owner, type) and module and name:
        return f"{module}.{name}"
    return str(name or type(owner).__name__)


class Patch:
    """A set of ``(owner, attribute, replacement)`` installed and restored together.

    ``plan`` is called at each installation (not at construction) and returns
    the triples; it may skip attributes the running torch lacks.  Use as a
    context manager or with :meth:`acquire` / :meth:`release`.
    """

    def __init__(self, name: str, plan: Plan) -> None:
        self.name = name
        self._plan = plan
        self._lock = threading.RLock()
        self._depth = 0
        # (owner, attribute, original or MISSING, replacement), in installation order
        self._saved: list[tuple[Any, str, Any, Any]] = []
        self.contested: list[str] = []

    @property
    def depth(self) -> int:
        """How many users hold the patch now (0: not installed)."""
        return self._depth

    @property
    def active(self) -> bool:
        """True while the replacements are installed."""
        return self._depth > 0

    def original(self, owner: Any, attr: str) -> Any:
        """The object that ``owner.attr`` held before the patch (MISSING when inherited)."""
        for o, a, orig, _ in self._saved:
            if o is owner and a == attr:
                return orig
        raise KeyError(f"{self.name}: {attr!r} is not patched")

    def acquire(self) -> None:
        """Install the replacements, unless already installed; count one more user."""
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            try:
                for owner, attr, new in self._plan():
                    self._saved.append((owner, attr, vars(owner).get(attr, MISSING), new))
                    setattr(owner, attr, new)
            except BaseException:
                self._depth = 0
                self._restore()
                raise

    def release(self) -> None:
        """Count one user less; restore the originals when it was the last."""
        with self._lock:
            if self._depth == 0:
                return
            self._depth -= 1
            if self._depth == 0:
                self._restore()

    @contextlib.contextmanager
    def suspended(self) -> Iterator[None]:
        """The originals back for the block, the same replacements after it.

        For code that must see the attributes as they were before the patch (a module
        whose import keeps references to them), without ending the patch: unlike
        ``release()`` and ``acquire()``, which call the plan again, the replacements that
        others already hold stay the ones in place.  An attribute someone patched over is
        left alone (theirs); a patch not installed suspends nothing.
        """
        with self._lock:
            ours = [(o, a, orig, new) for o, a, orig, new in self._saved
                    if vars(o).get(a, MISSING) is new]
            for owner, attr, orig, _ in reversed(ours):
                if orig is MISSING:
                    delattr(owner, attr)
                else:
                    setattr(owner, attr, orig)
            try:
                yield
            finally:
                for owner, attr, _, new in ours:
                    setattr(owner, attr, new)

    def _restore(self) -> None:
        contested = []
        for owner, attr, orig, new in reversed(self._saved):
            if vars(owner).get(attr, MISSING) is not new:
                contested.append(f"{_owner_name(owner)}.{attr}")
                continue  # someone patched over us: theirs to undo (see the module docstring)
            if orig is MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, orig)
        self._saved = []
        self.contested = contested
        if contested:
            warnings.warn(
                f"torchferry ({self.name}): {', '.join(contested)} was replaced by other code while "
                "torchferry's patch was installed and is still replaced; torchferry left that "
                "replacement in place (undo it before leaving the torchferry block)",
                RuntimeWarning,
                stacklevel=4,
            )

    def __enter__(self) -> Patch:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"Patch({self.name!r}, depth={self._depth})"

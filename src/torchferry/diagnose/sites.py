"""Where a tensor was made: the factory recorder, the simulation's record, or the source.

:data:`RECORDER` wraps torch's factory functions while ``explain`` is active and notes
the user's line that made each new storage.  :func:`created_at` asks, in order, the
simulation (:func:`torchferry.sim.created_at`), the recorder, and the source: the last
assignment to the operand's name before the failing line, ``self.x = ...`` in the class,
or the caller's line for a function argument.
"""

from __future__ import annotations

import ast
import functools
import linecache
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from torchferry import sim
from torchferry._internal import frames as _frames
from torchferry._internal.patcher import Patch
from torchferry._internal.registry import StorageRegistry
from torchferry.diagnose import operands as ops

__all__ = ["RECORDER", "created_at"]


class _Recorder:
    """While active, torch's factory functions note where each new tensor was made.

    Only the factories (``torch.zeros``, ``torch.randint``, ``torch.tensor``,
    ``torch.stack`` as a DataLoader's collate uses it, ...) are wrapped: every
    other op runs untouched, so the cost is one Python call per *creation*.
    Keys are storages, so views and ``.detach()`` share their base's site.
    """

    NAMES = tuple(sorted(ops.FACTORIES | {"stack"}))

    def __init__(self) -> None:
        # made with the first wrapper (torch loaded)
        self._registry: StorageRegistry[list[Any]] | None = None
        self._sweep_at = 4096
        self.patch = Patch("explain", self._plan)
        self._script_keys: list[int] = []  # the wrappers' entries in TorchScript's builtin table

    @property
    def sites(self) -> dict[int, list[Any]]:
        """storage key -> [weak ref, path, line, call]."""
        return self.registry().entries

    def registry(self) -> StorageRegistry[list[Any]]:
        if self._registry is None:
            import torch

            self._registry = StorageRegistry(torch.UntypedStorage._expired,
                                             torch.UntypedStorage._free_weak_ref)
        return self._registry

    @property
    def depth(self) -> int:
        return self.patch.depth

    def _plan(self) -> list[tuple[Any, str, Any]]:
        import torch
        from torch.utils._device import _device_constructors

        # torch caches torch.<factory> objects on first use (set_default_device,
        # `with torch.device(...)`): fill it with the builtins, not our wrappers
        _device_constructors()
        out = []
        for name in self.NAMES:
            orig = getattr(torch, name, None)
            if orig is None or getattr(orig, "__ferry_site__", False):
                continue
            out.append((torch, name, self._wrap(name, orig)))
        return out

    def enter(self) -> None:
        import torch

        # TorchScript compiles a call of torch.<factory> as its operator when the object is in
        # its builtin table (keyed by id): built before the wrappers (so the originals are in
        # it), then given the wrappers too, or scripting a module that calls torch.empty_like
        # while sites are recorded tries to compile the factory as Python
        table = torch.jit._builtins._get_builtin_table()
        first = self.patch.depth == 0
        self.patch.acquire()
        if first:
            self._script_keys = []
            for name in self.NAMES:
                try:
                    old = self.patch.original(torch, name)
                except KeyError:  # not wrapped
                    continue
                new = getattr(torch, name, None)
                if new is not old and id(old) in table and id(new) not in table:
                    table[id(new)] = table[id(old)]
                    self._script_keys.append(id(new))

    def exit(self) -> None:
        self.patch.release()
        if self.patch.depth == 0:
            import torch

            table = torch.jit._builtins._get_builtin_table()
            for key in self._script_keys:
                table.pop(key, None)
            self._script_keys = []

    def _wrap(self, name: str, orig: Callable[..., Any]) -> Callable[..., Any]:
        import torch

        # everything the hot path needs, bound once (a wrapped factory call costs a few µs)
        registry = self.registry()
        put = registry.put
        tensor_type = torch.Tensor
        is_compiling = torch.compiler.is_compiling
        user_frame = _frames.user_frame
        plain = f"torch.{name}(...)"
        no_device = f"torch.{name}(...) (always on the CPU)" if name == "from_numpy" else None
        without = f"torch.{name}(...) without device=" if name in ops.FACTORIES else plain
        recorder = self
        patch = self.patch

        @functools.wraps(orig)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            out = orig(*args, **kwargs)
            if not isinstance(out, tensor_type):
                return out
            try:  # never let bookkeeping break the user's code
                if not patch.active or is_compiling():
                    return out
                f = user_frame(1)
                if f is None:
                    return out
                call = no_device or (without if kwargs.get("device") is None else plain)
                st = out.untyped_storage()
                put(st._cdata, st._weak_ref(), f.f_code.co_filename, f.f_lineno, call)
                if len(registry) > recorder._sweep_at:
                    recorder.sweep()
            except Exception:
                pass
            return out

        wrapper.__ferry_site__ = True  # type: ignore[attr-defined]
        return wrapper

    def sweep(self) -> None:
        live = self.registry().sweep()
        self._sweep_at = max(4096, 2 * len(live))

    def site_of(self, t: Any) -> tuple[str, int, str] | None:
        try:
            st = t.untyped_storage()
        except (RuntimeError, NotImplementedError):
            return None
        e = self.registry().live(st._cdata)
        if e is None:
            return None
        return e[1], e[2], e[3]


RECORDER = _Recorder()


def _sim_created_at(t: Any) -> tuple[str, int, str] | None:
    if not sim.is_active():
        return None
    try:
        return sim.created_at(t)
    except Exception:
        return None


def _static_site(op: ops.Operand, frame: FrameType, tree: ast.Module | None,
                 line: int, outer: list[tuple[FrameType, int]]) -> dict[str, Any] | None:
    """Where the operand's name was last assigned before the failing line (no recording)."""
    node = op.node
    if node is None:
        return None
    # self.attr: the class's `self.attr = ...`
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        obj = frame.f_locals.get("self")
        if obj is not None:
            return _attr_assignment(type(obj), node.attr)
    name = ops.root_name(node)
    if name is None or tree is None:
        return None
    fn = _function_node(tree, frame.f_code.co_firstlineno) if frame.f_code.co_name != "<module>" else tree
    if fn is None:
        return None
    best = _last_assignment(fn, name, line)
    if best is None and fn is not tree and name not in frame.f_locals:
        best = _global_assignment(tree, name)
    if best is not None:
        path = frame.f_code.co_filename
        return {"path": path, "line": best, "call": _frames.source_line(path, best, frame.f_globals)}
    return _passed_in(frame, name, outer)


def _binds(targets: list[ast.expr], name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment, a ``for`` or a ``with ... as`` binds."""
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    return []


def _last_assignment(fn: ast.AST, name: str, line: int) -> int | None:
    """The last line of ``fn`` (not of a nested function or class) at or before ``line``
    that binds ``name``."""
    best = None
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) and node is not fn:
            continue
        for t in _targets(node):
            if _binds([t], name):
                ln = getattr(node, "lineno", None) or t.lineno
                if ln <= line and (best is None or ln > best):
                    best = ln
    return best


def _global_assignment(tree: ast.Module, name: str) -> int | None:
    """A global's module-level assignment (the last one met)."""
    best = None
    for stmt in tree.body:
        for sub in ast.walk(stmt):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                break
            if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.For, ast.AugAssign)) and _binds(_targets(sub), name):
                best = sub.lineno
    return best


def _passed_in(frame: FrameType, name: str, outer: list[tuple[FrameType, int]]) -> dict[str, Any] | None:
    """A function argument: the caller's line."""
    code = frame.f_code
    if name not in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount] or not outer:
        return None
    f, ln = outer[-1]
    src = _frames.source_line(f.f_code.co_filename, ln, f.f_globals)
    return {"path": f.f_code.co_filename, "line": ln, "call": f"{src} (passed in as {name!r})"}


def _function_node(tree: ast.Module, firstlineno: int) -> ast.AST | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start == firstlineno or node.lineno == firstlineno:
                return node
    return None


def _user_class_trees(cls: type) -> Iterator[tuple[type, str, ast.Module]]:
    """Each class of ``cls``'s MRO defined in the user's code, with its file and parsed source."""
    import inspect

    for klass in cls.__mro__:
        try:
            path = inspect.getsourcefile(klass)
            inspect.getsourcelines(klass)
        except (OSError, TypeError):
            continue
        if path is None or not _frames.is_user_file(path):
            continue
        try:
            yield klass, path, ast.parse("".join(linecache.getlines(path)))
        except SyntaxError:
            continue


def _self_assignment(classdef: ast.ClassDef, attr: str) -> int | None:
    """The first ``self.attr = ...`` in the class body's methods."""
    for sub in ast.walk(classdef):
        if isinstance(sub, (ast.Assign, ast.AnnAssign)):
            for t in sub.targets if isinstance(sub, ast.Assign) else [sub.target]:
                if (isinstance(t, ast.Attribute) and t.attr == attr
                        and isinstance(t.value, ast.Name) and t.value.id == "self"):
                    return sub.lineno
    return None


def _attr_assignment(cls: type, attr: str) -> dict[str, Any] | None:
    for klass, path, tree in _user_class_trees(cls):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == klass.__name__:
                ln = _self_assignment(node, attr)
                if ln is not None:
                    return {"path": path, "line": ln, "call": _frames.source_line(path, ln)}
    return None


def created_at(op: ops.Operand, frame: FrameType, tree: ast.Module | None, line: int,
                outer: list[tuple[FrameType, int]]) -> dict[str, Any] | None:
    torch = sys.modules.get("torch")
    t = op.value
    if torch is not None and isinstance(t, torch.nn.Module):
        t = None
    site = None
    if torch is not None and isinstance(t, torch.Tensor):
        rec = RECORDER.site_of(t)
        simulated = _sim_created_at(t)
        if simulated is not None and _frames.is_user_file(simulated[0]):
            call = _frames.source_line(simulated[0], simulated[1])
            if rec is not None and (rec[0], rec[1]) == (simulated[0], simulated[1]):
                call = rec[2]
            site = {"path": simulated[0], "line": simulated[1], "call": call}
        elif rec is not None:
            site = {"path": rec[0], "line": rec[1], "call": rec[2]}
    if site is None:
        site = _static_site(op, frame, tree, line, outer)
    return site

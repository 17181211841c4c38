"""The operands of a failing line, as written, and their values, read without side effects.

Given the frame of the user's line that raised, :func:`focus_node` finds the
exact expression that failed (Python 3.11+ records each instruction's source
span; older Pythons fall back to the whole statement), :func:`operand_nodes`
lists its operands as the user wrote them (``labels``, ``self.scale``,
``batch["mask"]``, ``model(x)``), and :func:`resolve` reads a name,
attribute or subscript chain from the frame's variables *without running any
user code*: instance ``__dict__`` entries, a module's registered parameters,
buffers and submodules, plain ``dict``/``list``/``tuple`` items with literal or
local-variable keys.  Properties, ``__getattr__``, custom ``__getitem__`` and
calls are never run; such an operand is reported as unknown.
"""

from __future__ import annotations

import ast
import builtins
import collections
import enum
import inspect
import linecache
import sys
import types
from dataclasses import dataclass, field
from types import FrameType, TracebackType
from typing import Any

from torchferry._internal import vocabulary

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "<unknown>"})()

# tensor attributes that are plain reads (no side effects, no user code)
_TENSOR_ATTRS = vocabulary.TENSOR_ATTRIBUTES

# torch's tensor-making functions (shared with ``ferry check``)
FACTORIES = vocabulary.FACTORIES


class OperandKind(enum.Enum):
    """What an operand's value was read as."""

    UNKNOWN = "unknown"  # not read (a property, a custom __getitem__, ...)
    TENSOR = "tensor"
    MODULE = "module"  # an nn.Module: its parameters' device and dtype
    CALL = "call"  # a call's result, never re-run


@dataclass
class Operand:
    """One operand of the failing expression, as written, with what is known of its value."""

    expr: str
    node: ast.expr | None = None
    value: Any = UNKNOWN
    kind: OperandKind = OperandKind.UNKNOWN
    device: str | None = None
    dtype: str | None = None
    shape: list[int] | None = None
    note: str = ""
    culprit: bool = False
    created_at: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------ source
def _file_tree(path: str, frame: FrameType) -> ast.Module | None:
    lines = linecache.getlines(path, frame.f_globals)
    if not lines:
        return None
    try:
        return ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None


def _positions(frame: FrameType, lasti: int) -> tuple[int, int, int, int] | None:
    co_positions = getattr(frame.f_code, "co_positions", None)
    if co_positions is None or lasti < 0:
        return None
    try:
        pos = list(co_positions())[lasti // 2]
    except (IndexError, ValueError):
        return None
    start, end, col, end_col = pos
    if start is None or end is None or col is None or end_col is None:
        return None
    return start, end, col, end_col


def _statement_at(tree: ast.AST, line: int) -> ast.stmt | None:
    """The innermost simple statement spanning ``line``."""
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or (node.lineno, -(node.end_lineno or 0)) >= (
                best.lineno,
                -(best.end_lineno or 0),
            ):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                best = node
    return best


def _header_expr(stmt: ast.stmt) -> list[ast.AST]:
    """For compound statements, the parts evaluated on their own line (not the body)."""
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.While, ast.If)):
        return [stmt.test]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    return [stmt]


def focus_node(
    frame: FrameType, line: int, lasti: int = -1
) -> tuple[ast.AST | None, ast.stmt | None, ast.Module | None]:
    """The failing expression (or its statement when unknown), its statement and the file's tree."""
    path = frame.f_code.co_filename
    tree = _file_tree(path, frame)
    if tree is None:
        text = linecache.getline(path, line, frame.f_globals).strip()
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return None, None, None
        stmt = tree.body[0] if tree.body else None
        return stmt, stmt, None
    stmt = _statement_at(tree, line)
    pos = _positions(frame, lasti)
    if pos is not None and stmt is not None:
        l0, l1, c0, c1 = pos
        best = None
        for node in ast.walk(stmt):
            if not isinstance(node, ast.expr) or not hasattr(node, "end_lineno"):
                continue
            if (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == (l0, c0, l1, c1):
                best = node  # walk is breadth-first: keep the outermost exact match
                break
        if best is not None:
            return best, stmt, tree
    return stmt, stmt, tree


def text_of(node: ast.AST, source: str = "") -> str:
    """The node's text as written in ``source`` (when known), else as ``ast`` unparses it."""
    if source and getattr(node, "end_lineno", None) is not None:
        seg = ast.get_source_segment(source, node)
        if seg:
            return " ".join(seg.split()) if "\n" in seg else seg
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression
        return "<expr>"


# ---------------------------------------------------------------- operands
def _flatten(node: ast.AST) -> list[ast.expr]:
    """Leaves of arithmetic: ``a + b * c`` -> a, b, c; list/tuple literals -> items."""
    if isinstance(node, ast.BinOp):
        return _flatten(node.left) + _flatten(node.right)
    if isinstance(node, ast.UnaryOp):
        return _flatten(node.operand)
    if isinstance(node, ast.Compare):
        out = _flatten(node.left)
        for c in node.comparators:
            out += _flatten(c)
        return out
    if isinstance(node, ast.BoolOp):
        return [x for v in node.values for x in _flatten(v)]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [x for e in node.elts for x in _flatten(e)]
    if isinstance(node, ast.Starred):
        return _flatten(node.value)
    if isinstance(node, (ast.Constant, ast.Slice, ast.Lambda, ast.JoinedStr)):
        return []
    if isinstance(node, ast.expr):
        return [node]
    return []


def _index_parts(sl: ast.AST) -> list[ast.expr]:
    if isinstance(sl, ast.Tuple):
        return [x for e in sl.elts for x in _index_parts(e)]
    if isinstance(sl, (ast.Slice, ast.Constant)):
        return []
    return _flatten(sl)


def operand_nodes(focus: ast.AST) -> list[ast.expr]:
    """The operands of the failing expression, as written."""
    if isinstance(focus, ast.Call):
        out: list[ast.expr] = []
        if isinstance(focus.func, ast.Attribute):
            out.append(focus.func)  # a module attribute (self.rnn) or a method's receiver
        elif not isinstance(focus.func, ast.Name) or focus.func.id not in dir(builtins):
            out.append(focus.func)
        for a in focus.args:
            out += _flatten(a)
        for k in focus.keywords:
            out += _flatten(k.value)
        return out
    if isinstance(focus, ast.Subscript):
        return _flatten(focus.value) + _index_parts(focus.slice)
    if isinstance(focus, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
        return _flatten(focus)
    if isinstance(focus, ast.Attribute):
        return [focus.value]
    # a whole statement: every maximal reference and call in it
    out = []
    parts = _header_expr(focus) if isinstance(focus, ast.stmt) else [focus]
    for node in parts:
        part: ast.AST | None = node
        if isinstance(part, ast.Assign):
            part = part.value
        elif isinstance(part, (ast.AugAssign, ast.AnnAssign)):
            out += _flatten(part.target) if isinstance(part, ast.AugAssign) else []
            part = part.value
        elif isinstance(part, ast.Expr):
            part = part.value
        elif isinstance(part, ast.Return):
            part = part.value
        if part is None:
            continue
        if isinstance(part, ast.Call):
            out += operand_nodes(part)
        elif isinstance(part, ast.expr):
            out += _flatten(part)
    return out


def bind_call_args(call: ast.Call, callee: FrameType) -> dict[int, Any]:
    """Values of ``call``'s arguments as the called Python function received them.

    Maps ``id(arg_node)`` to the value found in the callee's frame (parameters are
    read as bound, before the callee could change them in most library code).
    """
    code = callee.f_code
    loc = callee.f_locals
    nparams = code.co_argcount
    names = code.co_varnames[:nparams]
    nkw = code.co_kwonlyargcount
    kwonly = code.co_varnames[nparams : nparams + nkw]
    i = nparams + nkw
    varargs = varkw = None
    if code.co_flags & inspect.CO_VARARGS:
        varargs = loc.get(code.co_varnames[i])
        i += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        varkw = loc.get(code.co_varnames[i])
    skip = 1 if names and names[0] in ("self", "cls") else 0
    out: dict[int, Any] = {}
    for j, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        k = skip + j
        if k < nparams:
            if names[k] in loc:
                out[id(arg)] = loc[names[k]]
        elif isinstance(varargs, tuple) and k - nparams < len(varargs):
            out[id(arg)] = varargs[k - nparams]
    for kw in call.keywords:
        if kw.arg is None:
            continue
        if kw.arg in names or kw.arg in kwonly:
            if kw.arg in loc:
                out[id(kw.value)] = loc[kw.arg]
        elif isinstance(varkw, dict) and kw.arg in varkw:
            out[id(kw.value)] = varkw[kw.arg]
    return out


# ------------------------------------------------------------------ values
def _lookup_name(name: str, frame: FrameType) -> Any:
    loc = frame.f_locals
    if name in loc:
        return loc[name]
    g = frame.f_globals
    if name in g:
        return g[name]
    b = frame.f_builtins
    if name in b:
        return b[name]
    return UNKNOWN


def _is_data_descriptor(x: Any) -> bool:
    t = type(x)
    return hasattr(t, "__set__") or hasattr(t, "__delete__")


def safe_getattr(obj: Any, name: str) -> Any:
    """``obj.name`` when reading it runs no user code; else UNKNOWN."""
    if isinstance(obj, types.ModuleType):
        namespace = obj.__dict__
        return namespace[name] if name in namespace else UNKNOWN
    torch = sys.modules.get("torch")
    if torch is not None:
        if isinstance(obj, torch.Tensor):
            return getattr(obj, name) if name in _TENSOR_ATTRS else UNKNOWN
        if isinstance(obj, torch.nn.Module):
            mod_dict = object.__getattribute__(obj, "__dict__")
            for store in ("_parameters", "_buffers", "_modules"):
                s = mod_dict.get(store)
                if isinstance(s, dict) and name in s:
                    return s[name]
    try:
        cls_attr = inspect.getattr_static(type(obj), name)
    except AttributeError:
        cls_attr = UNKNOWN
    if cls_attr is not UNKNOWN and _is_data_descriptor(cls_attr):
        if isinstance(cls_attr, types.MemberDescriptorType) or (
            type(cls_attr).__name__ == "_tuplegetter"
        ):
            try:
                return getattr(obj, name)
            except AttributeError:
                return UNKNOWN
        return UNKNOWN  # a property or other descriptor: would run code
    d: Any  # the instance dict, if a plain one
    try:
        d = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        d = None
    if type(d) is dict and name in d:
        return d[name]
    if cls_attr is not UNKNOWN and not hasattr(type(cls_attr), "__get__"):
        return cls_attr  # a plain class attribute
    return UNKNOWN


def _key(node: ast.AST, frame: FrameType) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _key(node.operand, frame)
        return -v if isinstance(v, int) and not isinstance(v, bool) else UNKNOWN
    if isinstance(node, ast.Name):
        v = _lookup_name(node.id, frame)
        return v if isinstance(v, (int, str)) and not isinstance(v, bool) else UNKNOWN
    if isinstance(node, ast.Tuple):
        parts = tuple(_key(e, frame) for e in node.elts)
        return UNKNOWN if any(p is UNKNOWN for p in parts) else parts
    return UNKNOWN


def safe_getitem(base: Any, key: Any) -> Any:
    """``base[key]`` for plain dicts, lists and tuples (and UserDicts); else UNKNOWN."""
    if key is UNKNOWN:
        return UNKNOWN
    if isinstance(base, dict) and type(base).__getitem__ is dict.__getitem__:
        try:
            if dict.__contains__(base, key):  # never __missing__ (defaultdict inserts)
                return dict.__getitem__(base, key)
        except TypeError:
            return UNKNOWN
        return UNKNOWN
    if isinstance(base, collections.UserDict):
        data = base.__dict__.get("data")
        if type(data) is dict and key in data:
            return data[key]
        return UNKNOWN
    if isinstance(base, (list, tuple)) and isinstance(key, int) and not isinstance(key, bool):
        # only the builtin item lookup: a subclass's own __getitem__ would run user code
        getter: Any = list.__getitem__ if isinstance(base, list) else tuple.__getitem__
        cls: Any = type(base)
        if cls.__getitem__ is getter:
            try:
                return getter(base, key)
            except IndexError:
                return UNKNOWN
    return UNKNOWN


def resolve(node: ast.AST, frame: FrameType) -> Any:
    """The value of a name / attribute / subscript chain in ``frame``, or UNKNOWN."""
    if isinstance(node, ast.Name):
        return _lookup_name(node.id, frame)
    if isinstance(node, ast.Attribute):
        base = resolve(node.value, frame)
        return UNKNOWN if base is UNKNOWN else safe_getattr(base, node.attr)
    if isinstance(node, ast.Subscript):
        base = resolve(node.value, frame)
        if base is UNKNOWN:
            return UNKNOWN
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(base, torch.Tensor):
            return _IndexedView(base)  # indexing a tensor keeps its device; never run it
        return safe_getitem(base, _key(node.slice, frame))
    if isinstance(node, ast.Constant):
        return node.value
    return UNKNOWN


class _IndexedView:
    """Stands for ``t[...]``: same device and dtype as ``t``; the index is not evaluated."""

    def __init__(self, base: Any) -> None:
        self.base = base


def root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def call_name(call: ast.Call) -> str:
    """``torch.randint`` for ``torch.randint(0, 10, (64,))``."""
    parts = []
    f: ast.AST = call.func
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
    elif parts:
        parts.append("<expr>")
    return ".".join(reversed(parts)) if parts else text_of(call.func)


def is_factory_call(call: ast.Call) -> bool:
    name = call_name(call)
    head, _, last = name.rpartition(".")
    return last in FACTORIES and head in ("torch", "th", "")


def has_device_kw(call: ast.Call) -> bool:
    return any(k.arg in ("device", None) for k in call.keywords)


def traceback_entries(tb: TracebackType | None) -> list[TracebackType]:
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out

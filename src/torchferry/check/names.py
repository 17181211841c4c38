"""The checker's vocabulary: which torch names create, move or cast tensors, how
variables are named, and small helpers to read names and positions off ``ast`` nodes.

Nothing here looks at more than one node; :mod:`torchferry.check.scopes` records what
happens where, :mod:`torchferry.check.flow` says what an expression is.

>>> import ast
>>> tail(ast.parse("x.to(d)", mode="eval").body.func), dotted(ast.parse("a.b.c", mode="eval").body)
('to', 'a.b.c')
>>> bool(ACCEL_LITERAL.match("cuda:1")), bool(ACCEL_LITERAL.match("cudax"))
(True, False)
"""

from __future__ import annotations

import ast
import enum
import re
from typing import Any

from torchferry._internal import vocabulary

SHIFT = 20  # positions are encoded as (line << SHIFT) | column

# --------------------------------------------------------------------------- torch names
# (the torch names themselves come from torchferry._internal.vocabulary, shared with
# diagnose and checked against the installed torch by tests/test_vocabulary.py)
#: ``torch.<name>(*shape, device=...)``: the result's device comes only from ``device=``
DEVICE_FACTORIES = vocabulary.SHAPE_FACTORIES
#: ``torch.FloatTensor(...)``: always on the CPU; ``torch.cuda.FloatTensor(...)``: on the GPU
LEGACY_CONSTRUCTORS = vocabulary.LEGACY_CONSTRUCTORS
EMPTY_MODULES = vocabulary.EMPTY_MODULES
MOVE_METHODS = vocabulary.MOVE_METHODS
#: The keywords the device moves of a tensor or module accept (torch 2.13: ``Tensor.to`` and
#: ``Module.to`` through ``torch._C._nn._parse_to``, ``Tensor.cuda``/``xpu``/``cpu``; checked
#: against the installed torch by tests/test_vocabulary.py): a call naming any other keyword,
#: ``structure.to(filename="x.cif")``, raises TypeError on every tensor and module, so its
#: receiver is some other library's object.
MOVE_KEYWORDS: dict[str, frozenset[str]] = {
    "to": frozenset({"device", "dtype", "non_blocking", "copy", "memory_format", "tensor"}),
    "cuda": frozenset({"device", "non_blocking", "memory_format"}),
    "xpu": frozenset({"device", "non_blocking", "memory_format"}),
    "cpu": frozenset({"memory_format"}),
}
def strings_after_the_device(call: ast.Call) -> bool:
    """Is ``call`` a ``.to(...)`` with a string among its positional arguments after the
    first (``data.to(device, "x", "y")``, PyG's ``Data.to`` moving only the named
    attributes)?  Torch 2.13's ``Tensor.to`` and ``Module.to`` take a device, a dtype or a
    tensor first and only a dtype and bools after it positionally (``_parse_to``, the
    signatures its TypeError lists): a string there raises TypeError on every tensor and
    module, so the receiver is some other library's object and the call is not torch's move.

    >>> strings_after_the_device(ast.parse('d.to(dev, "x", "y")', mode="eval").body)
    True
    >>> strings_after_the_device(ast.parse("x.to(dev, torch.float16, True)", mode="eval").body)
    False
    """
    return isinstance(call.func, ast.Attribute) and call.func.attr == "to" and any(
        isinstance(a, ast.JoinedStr) or isinstance(a, ast.Constant) and isinstance(a.value, str)
        for a in call.args[1:])


NON_TENSOR_METHODS = frozenset(
    "item tolist numpy size dim ndimension numel nelement element_size data_ptr get_device "
    "stride storage untyped_storage is_contiguous is_floating_point is_complex equal "
    "storage_offset register_hook backward is_pinned is_shared is_set_to __len__ "
    "allclose".split()
)
TENSORISH_USES = frozenset({"shape", "device", "dtype", "size", "dim", "ndim", "is_cuda"})
ACCEL_LITERAL = vocabulary.ACCELERATOR_LITERAL

# --------------------------------------------------------------------------- variable names
DEVICE_NAME = re.compile(r"^(device|dev|.*_device|device_.*)$", re.I)
OPTIM_NAME = re.compile(r"opt", re.I)
EPOCHISH = re.compile(r"epoch|step|iter|batch", re.I)
GUARD_NAME = re.compile(r"log|print|verbose|interval|freq|every|debug|display|report", re.I)
AVAIL_NAME = re.compile(r"cuda|gpu|device|accel|mps|xpu", re.I)

_SKIP_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "n", "s", "kind", "type_comment", "names",
     "level", "module", "conversion", "is_async", "name", "asname", "type_params"}
)
FIELDS: dict[type, tuple[str, ...]] = {}


def fields_of(t: type[ast.AST]) -> tuple[str, ...]:
    """The child fields of a node type worth visiting (names, operators... skipped)."""
    f = FIELDS.get(t)
    if f is None:
        f = FIELDS[t] = tuple(x for x in t._fields if x not in _SKIP_FIELDS)
    return f


# --------------------------------------------------------------------------- node helpers
def pos(node: Any) -> int:
    """A node's start as one sortable int: ``(line << SHIFT) | column`` (any node with a
    position: expressions, statements, handlers, arguments; ``Any`` because ``ast.AST``
    itself declares none, and this runs for every recorded node)."""
    return (node.lineno << SHIFT) | node.col_offset


def end_pos(node: Any) -> int:
    """A node's end as one sortable int (see :func:`pos`)."""
    return (node.end_lineno << SHIFT) | node.end_col_offset


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def self_attr(node: ast.AST | None) -> str | None:
    """``x`` of ``self.x`` as written, else None.

    >>> [self_attr(ast.parse(e, mode="eval").body) for e in ("self.net", "self.net.w", "other.net")]
    ['net', None, None]
    """
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def tail(func: ast.AST) -> str | None:
    """The last name of a call's function: ``f`` for ``f(...)`` and ``x.f(...)``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    """The value of keyword argument ``name`` of ``call``, or None."""
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def has_star_kwargs(call: ast.Call) -> bool:
    """Does the call pass ``*args`` or ``**kwargs`` (so any argument may be there)?"""
    return any(k.arg is None for k in call.keywords) or any(
        isinstance(a, ast.Starred) for a in call.args
    )


def is_accel_literal(node: ast.AST | None) -> bool:
    """``"cuda"``, ``"mps:0"``... or ``torch.device("cuda")``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(ACCEL_LITERAL.match(node.value))
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        v = node.args[0].value
        return isinstance(v, str) and bool(ACCEL_LITERAL.match(v))
    return False


def same_expr(a: ast.AST, b: ast.AST) -> bool:
    """The same name chain, or structurally equal expressions."""
    da = dotted(a)
    if da is not None:
        return da == dotted(b)
    return type(a) is type(b) and ast.dump(a) == ast.dump(b)


def indent_of(line: str) -> str:
    """The leading whitespace of a line."""
    return line[: len(line) - len(line.lstrip())]


def needs_parens(node: ast.AST) -> bool:
    """Whether ``node`` must be parenthesised before appending ``.method()`` to it."""
    return type(node) not in (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant,
                              ast.List, ast.Tuple, ast.Dict, ast.ListComp)


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters for messages.

    >>> short("a  +\\n b", 5)
    'a + b'
    """
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Step(enum.Enum):
    """A call that makes a training step."""

    BACKWARD = "backward"  # ``loss.backward()``
    STEP = "step"  # ``optimizer.step()``


def learning_step(call: ast.Call) -> Step | None:
    """:attr:`Step.BACKWARD` for ``x.backward()``, :attr:`Step.STEP` for
    ``optimizer.step()``, else None."""
    func = call.func
    fn = tail(func)
    if fn == "backward":
        return Step.BACKWARD
    if fn == "step" and isinstance(func, ast.Attribute) and OPTIM_NAME.search(dotted(func.value) or ""):
        return Step.STEP
    return None


#: the fields of a compound statement that hold statements (its bodies)
BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def header_parents(stmt: ast.AST) -> dict[int, ast.AST]:
    """Parent map (by ``id``) of a statement's own expressions (not the bodies of compound
    statements)."""
    parents: dict[int, ast.AST] = {}
    roots: list[ast.AST] = []
    for f in fields_of(type(stmt)):
        if f in BODY_FIELDS:
            continue
        v = getattr(stmt, f, None)
        if isinstance(v, ast.AST):
            roots.append(v)
        elif type(v) is list:
            roots.extend(x for x in v if isinstance(x, ast.AST))
    for r in roots:
        parents[id(r)] = stmt
        for n in ast.walk(r):
            for c in ast.iter_child_nodes(n):
                parents[id(c)] = n
    return parents


#: functions that import a module named by a string and give it back (``importlib``'s,
#: ``pytest``'s skip-if-missing import, the optional import of nibabel and dipy, which
#: returns the module first in a tuple)
IMPORTING_CALLS = frozenset({"import_module", "importorskip", "optional_package"})


def imported_by_call(st: ast.stmt) -> tuple[str, str] | None:
    """``torch = importlib.import_module("torch")``, ``torch = pytest.importorskip("torch")``,
    ``torch, have_torch, _ = optional_package("torch")``: (the name bound, the module it
    holds), or None for any other statement."""
    if not isinstance(st, ast.Assign) or len(st.targets) != 1 or not isinstance(st.value, ast.Call):
        return None
    call, target = st.value, st.targets[0]
    if tail(call.func) not in IMPORTING_CALLS or not call.args or not (
            isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
        return None
    if tail(call.func) == "optional_package":
        if not isinstance(target, ast.Tuple) or not target.elts:
            return None
        target = target.elts[0]
    return (target.id, call.args[0].value) if isinstance(target, ast.Name) else None

"""One file of the run as the analysis sees it: its imports, definitions and classes, the
interpretation of each of its scopes (memoised), and the files it reaches.

Every scope is interpreted at most once, on demand (a rule asks for the file's scopes, a
call asks for a callee's summary).  A function's summary *is* its interpretation, with
its parameters as symbolic places (:func:`torchferry.check.flow.lattice.param`), so one
interpretation serves the rules and every caller.  A call that reaches a function already
being interpreted (recursion, a cycle) sees the approximation so far (first nothing), and
the function is interpreted again until its result stops changing, at most
:data:`RECURSION_ROUNDS` times; then its result is unknown.  A file's callees cost at most
:data:`SUMMARY_BUDGET` interpretations; past that, calls are unknown.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import torchferry.check.flow.kept_lists as kept_lists
import torchferry.check.flow.vocab as vocab
from torchferry.check.flow.converted import param_names
from torchferry.check.flow.events import AnyKey, Callee, CallEvent, Position, ScopeResult
from torchferry.check.flow.forwards import forward_name
from torchferry.check.flow.interp import Env, Interp, class_reference, function_reference
from torchferry.check.flow.lattice import (
    ACCEL,
    BOTTOM,
    CPU,
    ORIGIN_CAP,
    PLACE_CAP,
    UNKNOWN,
    Basis,
    Kind,
    Op,
    Origin,
    Place,
    Reason,
    Value,
    Where,
    in_order,
    in_path,
    join,
    join_all,
    outside,
    param,
    substitute,
)
from torchferry.check.flow.libfacts import (
    LIGHTNING_TRAINERS,
    METRIC_INPUT_METHOD,
    TORCHMETRICS_METRICS,
    Placement,
    holds_tensors,
    hook_parameter,
    trainer_may_accelerate,
)
from torchferry.check.flow.modclass import module_base, module_class
from torchferry.check.flow.modulelists import fills
from torchferry.check.flow.optimizers import OPTIMIZER_NAMES
from torchferry.check.flow.order import Point, surely_after
from torchferry.check.flow.shadowed import shadowed_imports
from torchferry.check.flow.stars import import_bindings
from torchferry.check.flow.treeindex import tree_index
from torchferry.check.flow.walk import own_nodes
from torchferry.check.names import imported_by_call

if TYPE_CHECKING:
    from torchferry.check.flow.feeds import Feed
    from torchferry.check.flow.project import Project

RECURSION_ROUNDS = 3
SUMMARY_BUDGET = 400
#: interpretations of a file's functions for the kinds one call gives (per file)
GIVEN_BUDGET = 64
#: calls nested deeper than this (callee of a callee ...) are not followed
MAX_DEPTH = 6
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TENSOR_ANNOTATIONS = frozenset({"Tensor", "torch.Tensor", "FloatTensor", "LongTensor"})
_MODULE_ANNOTATIONS = frozenset({"nn.Module", "torch.nn.Module", "Module"})
_LOADER_ANNOTATIONS = frozenset({"DataLoader", "torch.utils.data.DataLoader", "data.DataLoader"})


class HeldSite(NamedTuple):
    """A call ``self.<attr>.<name>(...)`` in a method of a class (:meth:`ClassInfo.held_call_sites`)."""

    method: ast.FunctionDef | ast.AsyncFunctionDef
    call: ast.Call
    attr: str


def _on_self(st: ast.Assign, fn: ast.AST) -> bool:
    """Does ``st`` assign to one attribute of ``self`` (the first parameter of ``fn``)?"""
    args = getattr(fn, "args", None)
    first = args.args[0].arg if args is not None and args.args else None
    return len(st.targets) == 1 and isinstance(t := st.targets[0], ast.Attribute) and \
        isinstance(t.value, ast.Name) and t.value.id == first


@dataclass
class ClassInfo:
    """A class of the run: its methods, bases and whether it is an ``nn.Module``."""

    ff: FileFlow
    node: ast.ClassDef
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    bases: list[ClassInfo] = field(default_factory=list)
    is_module: bool = False
    resolved: bool = False  # bases found and ``is_module`` decided
    table: dict[str, Value] | None = None  # attributes joined over every method
    #: every base found (set once :meth:`FileFlow._resolve_bases` is done: ``bases`` is final)
    settled: bool = field(default=False, repr=False, compare=False)
    #: :func:`mro` of the class, kept once every class in it is settled
    mro_memo: tuple[ClassInfo, ...] | None = field(default=None, repr=False, compare=False)
    #: (start method, stop method) -> :func:`torchferry.check.flow.timers.class_timer`
    timers: dict[tuple[str, str], bool | None] = field(default_factory=dict)
    #: :meth:`held_call_sites`, found once per class
    _held_sites: dict[str, list[HeldSite]] | None = field(default=None, repr=False, compare=False)
    #: :meth:`calls_seen`, found once per class
    _seen: ClassCalls | None = field(default=None, repr=False, compare=False)
    #: the bindings of attributes in the class's text, by attribute name, see
    #: :func:`torchferry.check.flow.converted.attribute_bindings` (None: not yet asked)
    attr_bindings: dict[str, list[tuple[ast.Attribute, ast.expr | None]]] | None = field(
        default=None, repr=False, compare=False)

    def is_optimizer(self) -> bool:
        """Is the class a subclass of ``torch.optim.Optimizer`` (directly, or through bases
        of the run), by the qualified names of its bases?"""
        return not self.is_module and any(
            c.ff.qualname(b) in OPTIMIZER_NAMES for c in mro(self) for b in c.node.bases)

    def calls_seen(self) -> ClassCalls:
        """What the class's text calls or reads that the weight questions need
        (:func:`class_calls`), found by one walk of the class the first time it is asked."""
        if self._seen is None:
            self._seen = class_calls(self.node)
        return self._seen

    def held_call_sites(self, name: str) -> list[HeldSite]:
        """The calls ``self.<attr>.<name>(...)`` in the methods of this class (its own, not a
        base's; static methods left out): (method, call, ``attr``), in the order of the
        methods and of ``ast.walk`` in each.  The methods are walked once for every name."""
        if self._held_sites is None:
            self._held_sites = {}
            for m in self.node.body:
                if isinstance(m, _FUNCS) and not _static(m):
                    for call, attr, name_called in _self_attribute_calls(m):
                        self._held_sites.setdefault(name_called, []).append(HeldSite(m, call, attr))
        return self._held_sites.get(name, [])

    def method(self, name: str, depth: int = 0) -> tuple[ClassInfo, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The method ``name`` of this class or of a base in the run (in MRO-ish order)."""
        fn = self.methods.get(name)
        if fn is not None:
            return self, fn
        if depth > 8:
            return None
        for b in self.bases:
            found = b.method(name, depth + 1)
            if found is not None:
                return found
        return None

    def forward_method(self) -> tuple[ClassInfo, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """What calling an instance of this module class runs for its computation: the
        ``__call__`` it (or a base in the run) defines in place of ``nn.Module.__call__``,
        unless that hands on to ``forward`` (:func:`forward_name`); else its ``forward``."""
        return self.method(forward_name(self))

    def input_methods(self) -> frozenset[str]:
        """The methods whose parameters are the module's inputs: what calling an instance
        runs (:meth:`forward_method`), and ``update`` of a subclass of torchmetrics'
        ``Metric`` whose lineage in the run defines no ``forward``: the library's
        ``forward`` hands its own arguments to ``update``
        (:data:`~torchferry.check.flow.libfacts.TORCHMETRICS_METRICS`)."""
        name = forward_name(self)
        if self.method(name) is None and any(
                c.ff.qualname(b) in TORCHMETRICS_METRICS for c in mro(self) for b in c.node.bases):
            return frozenset({name, METRIC_INPUT_METHOD})
        return frozenset({name})

    def lineage(self) -> Iterator[ClassInfo]:
        """This class and its bases in the run, each once, nearest first (:func:`mro`)."""
        return mro(self)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def may_hold_global(text: str) -> bool:
    """Can ``text`` hold a ``global`` statement?  Only where the word ``global`` begins a
    line or follows ``;`` or ``:`` (blanks between); a superset, as a docstring's line may
    begin with the word too.  One search for the word, then a look at its neighbours.

    >>> may_hold_global("def f():\\n    global d\\n"), may_hold_global("def f(): x = 1; global d\\n")
    (True, True)
    >>> may_hold_global("global_pool = 1  # a global pool\\nx = 'global'\\n")
    False
    """
    at = text.find("global")
    while at >= 0:
        end = at + 6
        if end == len(text) or not (text[end].isalnum() or text[end] == "_"):
            k = at
            while k > 0 and text[k - 1] in " \t\f\ufeff":
                k -= 1
            if k == 0 or text[k - 1] in "\n\r;:":
                return True
        at = text.find("global", end)
    return False


def word_rows(text: str, word: str) -> list[int]:
    """The numbers of the lines of ``text`` (as Python counts them: only ``\\r\\n``,
    ``\\r`` and ``\\n`` end a line) on which ``word`` begins, in order, each once.

    >>> word_rows("def g():\\r\\n    yield 1\\x0c\\r    x = 2\\n    yield x; yield 3\\n", "yield")
    [2, 4]
    >>> word_rows("def f():\\n    return 1\\n", "yield")
    []
    """
    rows: list[int] = []
    row, prev = 1, 0
    at = text.find(word)
    while at >= 0:
        row += len(_LINE_BREAK.findall(text, prev, at))
        if not rows or rows[-1] != row:
            rows.append(row)
        prev = at
        at = text.find(word, at + len(word))
    return rows


def in_file(v: Value, other: FileFlow, ff: FileFlow) -> Value:
    """``v`` of ``other``'s analysis as ``ff``'s findings cite it: its origins name their file."""
    if other is ff:
        return v
    return in_path(v, other.path)


class FileFlow:
    """The analysis of one file (see the module docstring)."""

    def __init__(self, tree: ast.Module, path: str, project: Project | None = None,
                 module_classes: frozenset[str] = frozenset(),
                 lines: list[str] | None = None, source: str | None = None) -> None:
        self.tree = tree
        self.path = path
        self.lines = lines
        self.project = project
        self.module_classes = module_classes
        self._init_names(source)
        self._init_scopes()
        self._init_memos(source)
        self._init_calls()
        self._index(tree.body)

    def _init_names(self, source: str | None) -> None:
        """The file's names (filled by :meth:`_index`) and what is asked of them."""
        self._relevant: set[int] | None = None
        self._relevant_of: set[int] = set()
        #: :meth:`_factory_aliases` (None: not yet asked)
        self._aliases: frozenset[str] | None = None
        #: :meth:`accelerating_trainer` (None: not yet asked; False: none)
        self._trainer: ast.Call | Literal[False] | None = None
        self.imports: dict[str, str] = {}
        self.stars: list[str] = []
        #: per star-imported module, the names it binds to what it imports from outside
        #: the run (:meth:`~torchferry.check.flow.project.Project.star_imports`)
        self.star_names: dict[str, dict[str, str]] = {}
        self.defs: dict[str, ast.AST] = {}
        self.classes: dict[int, ClassInfo] = {}
        self.method_of: dict[int, ClassInfo] = {}
        #: :meth:`rebound_globals` (None: not yet asked); empty at once when the text the
        #: tree was parsed from cannot hold a ``global`` statement
        self._rebound: frozenset[str] | None = \
            frozenset() if source is not None and not may_hold_global(source) else None
        #: :attr:`shadowed_imports` and :attr:`settled_imports` (None: not yet asked)
        self._shadowed: frozenset[str] | None = None
        self._settled: frozenset[str] | None = None
        #: :meth:`base_names` (None: not yet asked)
        self._base_names: frozenset[str] | None = None

    def _init_scopes(self) -> None:
        """The scopes' interpretations and the state of their making."""
        #: the interpretation of the module's code while it runs (its ``env`` is replaced
        #: at each join: an ``if``'s arms, a loop), for the functions it calls meanwhile
        self.live_module: Interp | None = None
        self.globals: Env | None = None
        self.last_reason = Reason.UNRESOLVED
        self._results: dict[int, ScopeResult] = {}
        self._pending: dict[int, ScopeResult] = {}
        #: the budget's units each memoised summary paid for (see :meth:`summary`)
        self._paid: dict[int, frozenset[tuple[str, int, int]]] = {}
        self._given: dict[tuple[int, tuple[tuple[int, Kind], ...]], ScopeResult] = {}
        self._reentered: set[int] = set()
        self._scopes: list[tuple[ast.AST, ClassInfo | None, Env | None]] = []
        #: the functions defined in functions: id -> (the method's class, the enclosing names)
        self._enclosed: dict[int, tuple[ClassInfo | None, Env]] = {}
        #: the classes defined in functions whose methods are scopes (:meth:`local_class`)
        self._local_classes: set[int] = set()
        self._depth = 0
        #: whether :meth:`results` has interpreted every scope it yields
        self._complete = False
        #: whether :meth:`_specialise` has run
        self._specialised = False

    def _init_memos(self, source: str | None) -> None:
        """What the rules' and the analysis's questions about the file found, per question."""
        #: :meth:`memo_cache` (None: not yet asked)
        self._memo: dict[str, ast.AST] | None = None
        #: what each function feeds to modules, see :func:`torchferry.check.flow.feeds.feeds`
        self.feeds_memo: dict[int, dict[int, list[Feed]]] = {}
        #: whether each function waits for the device before it returns, see
        #: :func:`torchferry.check.flow.waits.waits`
        self.waits_memo: dict[int, bool] = {}
        #: id(decorator function) -> its timing wrapper and the wrapped calls, see
        #: :func:`torchferry.check.flow.timers.timing_wrapper`
        self.wrappers_memo: dict[int, tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.Call]] | None] = {}
        #: (id(function), id(its class) or 0, depth) -> the class asked with and
        #: :func:`~torchferry.check.flow.converted.converted_params`' answer
        self.converted_memo: dict[tuple[int, int, int], tuple[ClassInfo | None, frozenset[int]]] = {}
        #: (id(class), scopes interpreted) -> an instance on an accelerator, see
        #: :meth:`instance_on_device`
        self._instances: dict[tuple[int, int, int], Value | None] = {}
        #: :meth:`held_calls`, per method
        self._held: dict[int, list[tuple[FileFlow, ScopeResult, dict[str, Value]]]] = {}
        #: :meth:`constructed_attr`, per (id(class), attribute)
        self._constructed_attrs: dict[tuple[int, str], Value | None] = {}
        #: :meth:`_self_assigns`: id(function) -> (the function, its assignments to ``self``)
        self._assigns_of: dict[int, tuple[ast.AST, list[ast.Assign]]] = {}
        #: :meth:`own_yields`, per function of this file
        self._yields: dict[int, list[ast.Yield | ast.YieldFrom]] = {}
        #: the lines of ``source``, the text ``tree`` was parsed from, that hold the word
        #: ``yield`` (None: the text is not known), for :meth:`own_yields`' pre-check; the
        #: text itself is not kept (an analysis outlives its file's check)
        self._yield_rows: list[int] | None = word_rows(source, "yield") if source is not None else None

    def _init_calls(self) -> None:
        """The calls and constructions the interpretations of this file's scopes record."""
        #: the calls of each function of this file made from this file: id(function) ->
        #: id(call) -> (the calling scope, parameter index as a string -> argument value)
        self.call_sites: dict[int, dict[int, tuple[ScopeResult, dict[str, Value]]]] = {}
        #: this file's calls of functions of other files: (their file, name, line) -> id(call)
        #: -> (the calling scope, parameter index as a string -> argument value)
        self.calls_into: dict[tuple[str, str, int], dict[int, tuple[ScopeResult, dict[str, Value]]]] = {}
        #: id(call) -> what ``Plain(...)``, a plain class of the run built in this file,
        #: gives its ``__init__`` (parameter index as a string -> argument value)
        self.constructed: dict[int, dict[str, Value]] = {}
        #: id(call) -> the class of the run a call of this file built an instance of
        self.built: dict[int, ClassInfo] = {}
        #: id(call) -> the classes of the run a call of this file built an instance of one
        #: of, one on each path (``models[name](...)`` of a table of classes)
        self.built_among: dict[int, tuple[ClassInfo, ...]] = {}
        #: this file's constructions of plain classes of the run, as calls of their
        #: ``__init__``: (its file, name, line) -> id(call) -> (the constructing scope,
        #: parameter index as a string -> argument value)
        self.constructions: dict[tuple[str, str, int], dict[int, tuple[ScopeResult, dict[str, Value]]]] = {}

    # -- the file's names ---------------------------------------------------------------
    def _index(self, body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                for b in import_bindings(st):
                    if b.name == "*":
                        self._star(b.qualified)
                    elif b.plain:
                        self.imports.setdefault(b.name, b.qualified)
                    else:
                        self.imports[b.name] = b.qualified
            elif isinstance(st, ast.Assign) and (found := imported_by_call(st)) is not None:
                self.imports.setdefault(*found)  # ``torch = importlib.import_module("torch")``
            elif isinstance(st, (*_FUNCS, ast.ClassDef)):
                self.defs[st.name] = st
                if isinstance(st, ast.ClassDef):
                    self._class(st)
            elif isinstance(st, (ast.If, ast.Try)):  # ``try: import x except: ...``
                self._index(st.body)
                for h in getattr(st, "handlers", ()):
                    self._index(h.body)
                self._index(st.orelse)

    def _star(self, base: str) -> None:
        """``from base import *``: what the module imports from outside the run is imported
        here too (a name this file imported before keeps its meaning); the names it
        defines are looked up there (:meth:`star_definition`, :meth:`global_value`)."""
        self.stars.append(base)
        if self.project is not None:
            found = self.star_names[base] = self.project.star_imports(self.path, base)
            for name, qual in found.items():
                self.imports.setdefault(name, qual)

    def _class(self, st: ast.ClassDef) -> ClassInfo:
        info = ClassInfo(self, st)
        for item in st.body:
            if isinstance(item, _FUNCS):
                info.methods[item.name] = item
                self.method_of[id(item)] = info
        self.classes[id(st)] = info
        return info

    def local_class(self, st: ast.ClassDef) -> None:
        """A class defined inside a function: its methods become scopes (once, even when
        :meth:`class_info` was asked about it before the function was interpreted)."""
        if id(st) not in self._local_classes:
            self._local_classes.add(id(st))
            info = self.class_info(st)
            for fn in info.methods.values():
                self._scopes.append((fn, info, None))

    def class_info(self, st: ast.ClassDef) -> ClassInfo:
        info = self.classes.get(id(st)) or self._class(st)
        if not info.resolved:
            self._resolve_bases(info)
        return info

    def _resolve_bases(self, info: ClassInfo) -> None:
        """Find the class's bases in the run and decide whether it is an ``nn.Module``
        (:func:`torchferry.check.flow.modclass.module_class`)."""
        info.resolved = True
        verdicts: list[bool | None] = []
        for b in info.node.bases:
            target = self._class_node(b)
            if target is not None and target[1] is not info.node:
                base = target[0].class_info(target[1])
                info.bases.append(base)
                verdicts.append(base.is_module)
                continue
            q = self.qualname(b) or (b.id if isinstance(b, ast.Name) else "")
            last = q.rsplit(".", 1)[-1]
            if module_base(q) or last in self.module_classes:
                verdicts.append(True)
            elif q in ("object", "builtins.object") or q.startswith(("typing.", "abc.", "enum.")):
                verdicts.append(False)
            else:
                verdicts.append(None)
        info.is_module = module_class(info.node, verdicts, self.qualname, self._run_module)
        info.settled = True

    def _run_module(self, name: str) -> bool:
        """Is the bare name ``name`` a module class of the run, as this file sees it?"""
        target = self._class_node(ast.Name(name))
        if target is not None:
            return target[0].class_info(target[1]).is_module
        return name in self.module_classes

    def _class_node(self, b: ast.expr) -> tuple[FileFlow, ast.ClassDef] | None:
        if isinstance(b, ast.Name) and isinstance(self.defs.get(b.id), ast.ClassDef):
            return self, self.defs[b.id]  # type: ignore[return-value]
        q = self.qualname(b)
        found = self.resolve(q) if q else None
        if found is None and isinstance(b, ast.Name) and b.id not in self.imports:
            found = self.star_definition(b.id)  # ``from .layers import *``
        if found is not None and isinstance(found[1], ast.ClassDef):
            return found  # type: ignore[return-value]
        return None

    def qualname(self, node: ast.AST, interp: Interp | None = None) -> str | None:
        """``torch.nn.Linear`` for ``nn.Linear`` after ``import torch.nn as nn``; None when
        the head is a local name or not imported."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        if interp is not None and (node.id in interp.env or node.id in interp.outer):
            return None
        if interp is not None and interp.node is not self.tree and node.id in self.shadowed_imports:
            return None  # (a function reads the module's later binding: :meth:`global_value`)
        root = self.imports.get(node.id)
        if root is None:
            return None
        return ".".join([root, *reversed(parts)]) if parts else root

    def is_dtype(self, node: ast.AST, interp: Interp) -> bool:
        q = self.qualname(node, interp)
        return q is not None and q.startswith("torch.") and q.rsplit(".", 1)[1] in _DTYPE_NAMES

    def hint_kinds(self, name: str, annotation: ast.expr | None) -> frozenset[Kind] | None:
        """What an annotation or a name suggests (a hint, never proof)."""
        text = _annotation_name(annotation) if annotation is not None else ""
        if text in _TENSOR_ANNOTATIONS:
            return frozenset((Kind.TENSOR,))
        if text in _MODULE_ANNOTATIONS:
            return frozenset((Kind.MODULE,))
        if text in vocab.SCALAR_ANNOTATIONS:
            return frozenset((Kind.SCALAR,))
        if text in _LOADER_ANNOTATIONS:
            return frozenset((Kind.LOADER,))
        device = name in ("device", "dev") or name.endswith("_device")
        if text == "str" and not device:  # ``device: str`` names a device ("cuda:0")
            return frozenset((Kind.OTHER,))
        if vocab.LOADER_NAME.search(name):
            return frozenset((Kind.LOADER,))
        if device:
            return frozenset((Kind.DEVICE,))
        return None

    # -- definitions and imports ---------------------------------------------------------
    def definition(self, name: str) -> ast.AST | None:
        return self.defs.get(name)

    def is_method(self, fn: ast.AST) -> bool:
        return id(fn) in self.method_of

    def resolve(self, qual: str) -> tuple[FileFlow, ast.AST] | None:
        """The function or class a qualified name names in a file of the run."""
        if self.project is None:
            return None
        return self.project.resolve(self, qual)

    def star_definition(self, name: str) -> tuple[FileFlow, ast.AST] | None:
        if self.project is None:
            return None
        for mod in self.stars:
            if not self.project.star_exported(self.path, mod, name):
                continue
            found = self.project.resolve(self, f"{mod}.{name}" if mod.strip(".") else mod + name)
            if found is not None:
                return found
        return None

    def memo_cache(self, fn: ast.AST, name: str) -> bool:
        """Is ``name`` a module-level cache that only ``fn`` fills, with values it returns
        (:func:`~torchferry.check.flow.caches.memo_caches`), and that no other file of the
        run that imports this one names?"""
        if self._memo is None:
            from torchferry.check.flow.caches import memo_caches

            self._memo = memo_caches(self.tree)
            if self._memo and self.project is not None:
                by = self.project.importers(self.path)
                texts = [self.project.files.get(p, b"") for p in by] if by is not None else None
                self._memo = {n: f for n, f in self._memo.items()
                              if texts is not None and not any(n.encode() in t for t in texts)}
        return self._memo.get(name) is fn

    @property
    def rebound_globals(self) -> frozenset[str]:
        """The module-level names that a function of the file rebinds (``global device``
        then ``device = torch.device("cuda")``): the module's own binding is then one of
        the values a reader may see, which the analysis does not follow (the interpreter
        binds such a name in the function's scope).

        >>> ff = FileFlow(ast.parse("d = None\\ndef f():\\n    global d\\n    d = 1\\n"), "<example>")
        >>> sorted(ff.rebound_globals)
        ['d']
        """
        if self._rebound is not None:
            return self._rebound
        out: set[str] = set()
        if not any(isinstance(n, ast.Global) for n in ast.walk(self.tree)):
            self._rebound = frozenset()
            return self._rebound
        for fn in ast.walk(self.tree):
            if not isinstance(fn, _FUNCS):
                continue
            declared = {name for n in ast.walk(fn) if isinstance(n, ast.Global) for name in n.names}
            out.update(n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in declared
                       and isinstance(n.ctx, (ast.Store, ast.Del)))
        self._rebound = frozenset(out)
        return self._rebound

    @property
    def shadowed_imports(self) -> frozenset[str]:
        """The names the module imports and also binds otherwise (``import model`` then
        ``model = model.Net(...)``): a function that reads one sees whatever the module
        left it as when the function runs, not necessarily the module imported.

        >>> ff = FileFlow(ast.parse("import net\\nnet = net.Net()\\n"), "<example>")
        >>> sorted(ff.shadowed_imports)
        ['net']
        """
        if self._shadowed is None:
            self._shadowed, self._settled = shadowed_imports(self.tree, set(self.imports))
        return self._shadowed

    @property
    def settled_imports(self) -> frozenset[str]:
        """Those of :attr:`shadowed_imports` that every function of the file reads as the
        module's last binding (:func:`~torchferry.check.flow.shadowed.shadowed_imports`)."""
        self.shadowed_imports  # noqa: B018 (computes both)
        return self._settled or frozenset()

    def global_value(self, name: str) -> Value | None:
        """A module-level name's value, seen from a function (the module's state as it
        stands while the module's code runs, its final state afterwards)."""
        env = self.globals if self.globals is not None else \
            self.live_module.env if self.live_module is not None else {}
        v = env.get(name)
        if name in self.shadowed_imports:
            return v if v is not None and name in self.settled_imports else UNKNOWN
        if v is not None:
            return UNKNOWN if name in self.rebound_globals else v
        if name in self.defs:
            node = self.defs[name]
            if isinstance(node, _FUNCS):
                return function_reference(node)
            if isinstance(node, ast.ClassDef):
                return class_reference(node)
            return Value.of(Kind.OTHER)
        if self.project is None:
            return None
        q = self.imports.get(name)
        if q is not None:
            return self.project.imported_value(self, q) or self._imported_class(self.resolve(q))
        for mod in self.stars:
            if not self.project.star_exported(self.path, mod, name):
                continue
            v = self.project.imported_value(self, f"{mod}.{name}" if mod.strip(".") else mod + name)
            if v is not None:
                return v
        return self._imported_class(self.star_definition(name))

    @staticmethod
    def _imported_class(found: tuple[FileFlow, ast.AST] | None) -> Value | None:
        """A class another file of the run defines, as a value (None for anything else)."""
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        return class_reference(found[1], found[0].path)

    # -- scopes and summaries -------------------------------------------------------------
    def results(self) -> Iterator[ScopeResult]:
        """The scopes of the file the rules need, interpreted: the module's code first, then
        each function and method (nested ones as they are found) that can hold a device
        mistake (see :meth:`relevant`); the functions they call are interpreted too, as
        their summaries are needed, and yielded after the others."""
        self.module_result()
        k = 0
        order = []
        skipped = []
        while k < len(self._scopes):
            node, cls, outer = self._scopes[k]
            k += 1
            if self.relevant(node):
                self.result(node, cls, outer)
                order.append(node)
            else:
                skipped.append(node)
        # a scope left out whose summary a call needed is interpreted already: its record
        # costs nothing (``net.predict(x)``, whose text neither makes nor moves a tensor)
        order.extend(n for n in skipped if id(n) in self._results)
        self._complete = True  # (every call site of the file is known: :meth:`callers_of`)
        self._specialise(order)
        yield from (self._results[id(n)] for n in order)
        yield self._results[id(self.tree)]

    def _specialise(self, scopes: list[ast.AST]) -> None:
        """Interpret again, once every call site of the file is known, each function whose
        parameter every call of the run hands an instance of one plain class of the run
        or a module (:func:`~torchferry.check.flow.instances.given_by_callers`), with the
        parameter that class's instance (its methods' calls are followed) or a module (its
        calls are a module's), for the rules and for the calls interpreted later."""
        if self._specialised:
            return
        self._specialised = True
        from torchferry.check.flow.instances import given_by_callers

        for node in scopes:
            res = self._results.get(id(node))
            given = given_by_callers(self, res) if res is not None else None
            if given is not None:
                self._results[id(node)] = Interp(self, node, self.method_of.get(id(node)), None,
                                                 by_callers=given).run()

    def called_from_run(self, needles: tuple[str, ...]) -> list[ScopeResult]:
        """The functions defined at module level that :meth:`results` left out (their text
        neither makes nor moves a tensor) whose text mentions one of ``needles`` and that
        the run's other files call (``plot_batch(batch)`` of ``utils/plot.py``, given
        tensors by ``train.py``; :meth:`Project.foreign_calls`): interpreted, so that what
        they hand on can be placed by those calls."""
        if self.project is None or self.lines is None:
            return []
        out = []
        for node, cls, outer in self._scopes:
            if cls is not None or outer is not None or id(node) in self._results or \
                    not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                    not node.args.args or self.relevant(node):
                continue
            text = "\n".join(self.lines[node.lineno - 1: node.end_lineno or node.lineno])
            if any(n in text for n in needles) and self.project.foreign_calls(self, node):
                out.append(self.result(node))
        return out

    def interpreted(self) -> list[ScopeResult]:
        """Every scope of this file interpreted so far: those :meth:`results` gave, and the
        functions interpreted for a summary because a scope calls them (a helper whose text
        mentions no device, given a tensor by its caller)."""
        return list(self._results.values())

    def scope_of(self, node: ast.AST) -> ScopeResult | None:
        """The scope that evaluated the expression ``node``, interpreted now if it was not
        (relevant or not; None: no scope evaluated it)."""
        key = id(node)
        for done in self._results.values():  # an expression is evaluated by one scope only
            if key in done.values:
                return done
        line = getattr(node, "lineno", 0)
        module = self.module_result()
        found = module if id(node) in module.values else None
        k = 0
        while k < len(self._scopes):  # outer scopes first: they add their nested ones
            fn, cls, outer = self._scopes[k]
            k += 1
            if fn.lineno <= line <= (getattr(fn, "end_lineno", None) or fn.lineno):  # type: ignore[attr-defined]
                res = self.result(fn, cls, outer)
                if id(node) in res.values:
                    found = res
        return found

    def skipped(self) -> Iterator[ast.AST]:
        """The scopes :meth:`results` left out (nothing in them makes or moves a tensor, and
        no call needed their summary)."""
        return (n for n, _, _ in self._scopes if not self.relevant(n) and id(n) not in self._results)

    def relevant(self, node: ast.AST) -> bool:
        """Can a device mistake show in this scope?  Only where a tensor is made or moved,
        a loader is iterated, or a function that does so is called: its text mentions a
        factory, a move or a loader, or calls such a function of this file (found by
        name, to a fixed point), or a file of the run that imports this one calls it with
        a value that may be on an accelerator (:meth:`given_by_run`).  Without the source
        lines, every scope is."""
        if self.lines is None:
            return True
        if self._relevant is None:
            scopes = [n for n, _, _ in self._scopes]
            self._relevant = _relevant_scopes(self.lines, scopes, self._factory_aliases())
            self._relevant_of = {id(n) for n in scopes}
            self._relevant |= self.given_by_run([n for n in scopes if id(n) not in self._relevant])
            self._relevant |= kept_lists.readers(
                [(n, c) for n, c, _ in self._scopes], self._relevant, self._text_of, self._grown_outside)
        key = id(node)
        if key not in self._relevant_of:  # found later: a function or class inside a function
            self._relevant_of.add(key)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    _relevant_scopes(self.lines, [node], self._factory_aliases()):
                self._relevant.add(key)
        return key in self._relevant

    def _text_of(self, node: ast.AST) -> str:
        """The source text of a scope of this file (its lines)."""
        return "\n".join((self.lines or [])[node.lineno - 1: node.end_lineno or node.lineno])  # type: ignore[attr-defined]

    def _grown_outside(self, attr: str) -> bool:
        """Does this file store ``<x>.<attr>`` for an ``x`` other than ``self``, or grow a
        list held there (``r.acc.append(t)``)?"""
        return self._assigned_outside(attr) or kept_lists.grown_outside(self.lines or [], attr)

    def _factory_aliases(self) -> frozenset[str]:
        """:func:`_factory_aliases` of the file's lines, found once per analysis."""
        if self._aliases is None:
            self._aliases = frozenset(_factory_aliases(self.lines or []))
        return self._aliases

    def given_by_run(self, fns: list[ast.AST]) -> set[int]:
        """The functions and methods of ``fns`` (of this file) that a call of another file
        of the run gives a value that may be on an accelerator: a tensor or a model moved
        there, or a tuple, list or dict holding one (a method's object included:
        ``net.embed(x)`` with ``net`` moved), as that file's analysis places the argument
        (:meth:`placed`).  Only the files that import this one, when
        :meth:`Project.importers` knows them, and only those whose text calls one of the
        names (``name(``) are interpreted."""
        if self.project is None or not fns:
            return set()
        importers = self.project.importers(self.path)
        if not importers:
            return set()
        keys = {(self.path, fn.name, fn.lineno): id(fn) for fn in fns
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and not fn.name.endswith("__")}
        # (a special method is not called by its name: ``__init__``, ``__len__``)
        wanted = {f"{'.' if self.is_method(fn) else ''}{fn.name}(".encode() for fn in fns  # type: ignore[attr-defined]
                  if id(fn) in keys.values()}
        out: set[int] = set()
        for path in sorted(importers):
            data = self.project.files.get(path, b"")
            if not any(w in data for w in wanted):
                continue
            other = self.project.file_flow(path)
            if other is None or other is self:
                continue
            for _ in other.results():
                pass
            for key, fn_id in keys.items():
                if fn_id not in out and any(
                        _may_be_on_device(other.placed(caller, v))
                        for caller, bound in other.calls_into.get(key, {}).values()
                        for v in bound.values()):
                    out.add(fn_id)
        return out

    def _stores_on_self(self, fn: ast.AST) -> bool:
        """Does a method's text assign a ``self`` attribute (or register a buffer, or read
        ``self.state[...]``, where an optimizer keeps what it writes per parameter)?"""
        if self.lines is None:
            return True
        text = "\n".join(self.lines[fn.lineno - 1: fn.end_lineno or fn.lineno])  # type: ignore[attr-defined]
        return _STORES.search(text) is not None

    def module_result(self) -> ScopeResult:
        res = self._results.get(id(self.tree))
        if res is None:
            self._results[id(self.tree)] = res = ScopeResult(self.tree)  # reentry: nothing yet
            interp = Interp(self, self.tree)
            res = interp.run()
            self._results[id(self.tree)] = res
            self.globals = interp.env
            self._collect_scopes(self.tree.body)
        return res

    def _collect_scopes(self, body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, _FUNCS):
                self._scopes.append((st, None, None))
            elif isinstance(st, ast.ClassDef):
                info = self.class_info(st)
                for fn in info.methods.values():
                    self._scopes.append((fn, info, None))
            elif isinstance(st, (ast.If, ast.Try, ast.With)):
                self._collect_scopes(st.body)
                self._collect_scopes(getattr(st, "orelse", []))

    def nested_scope(self, fn: ast.AST, cls: ClassInfo | None, env: Env) -> None:
        if id(fn) not in self._results and not any(n is fn for n, _, _ in self._scopes):
            outer = dict(env)
            self._scopes.append((fn, cls, outer))
            self._enclosed[id(fn)] = (cls, outer)

    def enclosed(self, fn: ast.AST) -> tuple[ClassInfo | None, Env] | None:
        """For a function defined inside a function of this file whose definition the
        analysis has run (``def create_model()`` in ``main()``): the class of the method it
        is in, if any, and the enclosing function's names as they stood where it is
        defined, which its summary reads (a closure, never the module's global of the same
        name); None for any other function."""
        return self._enclosed.get(id(fn))

    def result(self, fn: ast.AST, cls: ClassInfo | None = None,
               outer: Env | None = None) -> ScopeResult:
        """The interpretation of one function (memoised)."""
        done = self._results.get(id(fn))
        if done is not None:
            return done
        if cls is None:
            cls = self.method_of.get(id(fn))
            if cls is not None:
                self.class_info(cls.node)
        if cls is not None and cls.table is None:
            self._table(cls)  # every method in order, __init__ first, each seeing the table so far
            done = self._results.get(id(fn))
            if done is not None:
                return done
        return self._fixpoint(fn, cls, outer)

    def _fixpoint(self, fn: ast.AST, cls: ClassInfo | None, outer: Env | None) -> ScopeResult:
        key = id(fn)
        self._pending[key] = ScopeResult(fn)
        res = self._pending[key]
        for _ in range(RECURSION_ROUNDS):
            self._reentered.discard(key)
            res = Interp(self, fn, cls, outer).run()
            if key not in self._reentered or res.returns == self._pending[key].returns:
                break
            self._pending[key] = res
        else:
            res.returns = Value(reason=Reason.RECURSION)
        del self._pending[key]
        self._results[key] = res
        return res

    def building(self, fn: ast.AST) -> bool:
        """Is ``fn`` being interpreted now (a call inside it reaches it again)?"""
        return id(fn) in self._pending

    def summary(self, fn: ast.AST, caller: FileFlow) -> ScopeResult | None:
        """``fn``'s interpretation for a call from ``caller`` (None: over the budget).

        Memoised with the budget's units it paid for: a later check that finds it charges
        them (:meth:`~torchferry.check.flow.project.Budget.reuse`), and interprets it
        again when they would use its budget up."""
        key = id(fn)
        pending = self._pending.get(key)
        if pending is not None:
            self._reentered.add(key)
            return pending
        budget = caller.project.budget if caller.project is not None else None
        done = self._results.get(key)
        if done is not None:
            if budget is None or budget.reuse(self._paid.get(key, frozenset())):
                return done
        unit = (self.path, getattr(fn, "lineno", 0), getattr(fn, "col_offset", 0))
        if budget is not None and not budget.take(unit):
            caller.last_reason = Reason.BUDGET
            return None
        if self._depth >= MAX_DEPTH:
            caller.last_reason = Reason.BUDGET
            if self.project is not None:
                self.project.refuse()
            return None
        if done is not None:
            del self._results[key]  # (made again within this check's budget)
        self._depth += 1
        if budget is not None:
            budget.open()
        try:
            cls, outer = self.enclosed(fn) or (None, None)
            return self.result(fn, cls, outer)
        finally:
            self._depth -= 1
            if budget is not None:
                self._paid[key] = budget.close() | {unit}

    def returns_given(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, given: dict[int, Kind]) -> Value | None:
        """What ``fn`` returns when its parameters of unknown kind are given values of the
        kinds ``given`` (parameter index -> kind): ``get_batch(source, i)``, whose
        ``source[i:j]`` is of unknown kind in the summary, returns a tensor when given one.
        None over the budget, or for a function nested in another."""
        res = self.given_result(fn, given)
        return None if res is None else res.returns

    def given_result(self, fn: ast.AST, given: dict[int, Kind]) -> ScopeResult | None:
        """The interpretation of ``fn`` with its parameters of unknown kind given values of
        the kinds ``given`` (memoised per kinds; it records no call sites: the summary's
        do); ``Kind.DEVICE`` given for a device parameter puts it on the CPU.  None past :data:`GIVEN_BUDGET`, or for a function nested in another."""
        if not isinstance(fn, _FUNCS) or self.defs.get(fn.name) is not fn and id(fn) not in self.method_of:
            return None
        key = (id(fn), tuple(sorted(given.items())))
        done = self._given.get(key)
        if done is not None:
            return done
        if id(fn) in self._pending or self._depth >= MAX_DEPTH or len(self._given) >= GIVEN_BUDGET:
            if self.project is not None and id(fn) not in self._pending:
                self.project.refuse()  # (the analyses kept are dropped before the next file)
            return None  # (its own budget: the run's summaries do not pay for it)
        self._depth += 1
        try:
            out = self._given[key] = Interp(self, fn, self.method_of.get(id(fn)), None, given).run()
        finally:
            self._depth -= 1
        return out

    def as_method_of(self, fn: ast.AST, cls: ClassInfo) -> ScopeResult | None:
        """The interpretation of ``fn``, a method of a base of ``cls`` in this file, run on
        an instance of ``cls``: ``self.<attr>`` as ``cls``'s methods (and its bases') leave
        it, ``self.<name>(...)`` the override ``cls`` inherits (a base's ``forward``
        computing ``torch.mv(self.M, self.mu_f(out))``, with the subclass's ``mu_f``).
        Memoised per class; it records no call sites (the method's own interpretation
        does).  None when ``fn`` is no method of a base of ``cls`` (``cls``'s own methods
        are interpreted as such already), or past :data:`GIVEN_BUDGET`.

        >>> import ast
        >>> src = ("import torch\\nclass B(torch.nn.Module):\\n    def f(self, x):\\n"
        ...        "        return torch.zeros(2)\\n    def forward(self, x):\\n"
        ...        "        return self.f(x)\\nclass C(B):\\n    def f(self, x):\\n"
        ...        "        return x * 2\\n")
        >>> tree = ast.parse(src)
        >>> ff = FileFlow(tree, "<example>")
        >>> b, c = (ff.class_info(n) for n in tree.body[1:])
        >>> fwd = b.methods["forward"]
        >>> ff.result(fwd, b).returns.places == {CPU}, ff.as_method_of(fwd, c).returns.places
        (True, frozenset({Place(where=<Where.PARAM: 3>, ref='1')}))
        """
        owner = self.method_of.get(id(fn))
        if owner is None or owner is cls or owner.node is cls.node or \
                not any(k.node is owner.node for k in cls.lineage()):
            return None
        key = (id(fn), ((-id(cls.node), Kind.OTHER),))  # (its own key among the given ones)
        done = self._given.get(key)
        if done is not None:
            return done
        if id(fn) in self._pending or self._depth >= MAX_DEPTH or len(self._given) >= GIVEN_BUDGET:
            return None
        self._table(cls)
        self._depth += 1
        try:
            out = self._given[key] = Interp(self, fn, cls, None, {}).run()
        finally:
            self._depth -= 1
        return out

    def as_called(self, res: ScopeResult, kinds: frozenset[Kind]) -> ScopeResult | None:
        """``res`` (a function's interpretation) as this file's calls of it see it: each
        parameter of no kind of its own that every call of this file passes a value of one
        of ``kinds`` (``evaluate(model, valid_loader)`` with ``valid_loader =
        DataLoader(...)``) takes that kind; None when no parameter does (or no call is
        known).  Complete once :meth:`results` has been consumed."""
        sites = list(self.call_sites.get(id(res.node), {}).values())
        if not sites:
            return None
        given: dict[int, Kind] = {}
        for k in range(len(res.params)):
            if k in res.param_hints:
                continue
            passed = [bound.get(str(k)) for _, bound in sites]
            for kind in kinds:  # (a value with parts, a collate's items, is more than its kind)
                if all(v is not None and v.is_(kind) and v.basis is not Basis.HINT and v.item is None
                       and v.elts is None and v.keys is None for v in passed):
                    given[k] = kind
        return self.given_result(res.node, given) if given else None

    def arguments(self, fn: ast.AST, k: int) -> list[tuple[ScopeResult, Value]] | None:
        """What this file's calls of ``fn`` pass for its parameter ``k``: (the calling scope,
        the argument's value) per call; None when a call leaves it unbound or spreads
        ``*args``.  Only calls from this file count, so the answer depends on this file's
        bytes alone; it is complete once :meth:`results` has been consumed (a function
        passed around as a value may still be called elsewhere)."""
        out = []
        for caller, bound in self.call_sites.get(id(fn), {}).values():
            v = bound.get(str(k))
            if v is None:
                return None
            out.append((caller, v))
        return out

    def run_arguments(self, fn: ast.AST, k: int) -> list[tuple[FileFlow, ScopeResult, Value]] | None:
        """What the calls of the run pass for parameter ``k`` of ``fn``: (the calling file,
        its scope, the argument) for this file's calls (:meth:`arguments`) and, for a
        function defined at module level or a method of a plain class defined there, those
        of the files that import this one when the run knows them all
        (:meth:`Project.foreign_calls`, :meth:`Project.foreign_method_calls`; an argument of
        another file has its origins cite that file).  None when a call leaves ``k`` unbound or spreads
        ``*args``.  A function no file of the run calls gets ``[]``: its callers decide."""
        mine = self.arguments(fn, k)
        if mine is None:
            return None
        out: list[tuple[FileFlow, ScopeResult, Value]] = [(self, c, v) for c, v in mine]
        for other, caller, bound in self.held_calls(fn):
            v = bound.get(str(k))
            if v is None:
                return None
            out.append((other, caller, in_file(v, other, self)))
        if self.project is None:
            return out
        foreign = self.project.foreign_method_calls(self, fn) if self.is_method(fn) \
            else self.project.foreign_calls(self, fn)
        for other, caller, _, bound in foreign or ():
            v = bound.get(str(k))
            if v is None:
                return None
            out.append((other, caller, v))
        return out

    def held_calls(self, fn: ast.AST) -> list[tuple[FileFlow, ScopeResult, dict[str, Value]]]:
        """The calls ``self.<attr>.<fn>(...)`` in the methods of the plain classes of this
        file and of the files that import it, where ``self.<attr>`` is a constructor's
        parameter kept as it is (:meth:`constructed_attr`) and every construction of the
        holder in the run hands an instance of ``fn``'s class built in the run
        (``self.main = main`` of ``Parts(mesh)``, ``mesh = Mesh(...)``): (the calling file,
        its scope, parameter index as a string -> argument) per call; ``[]`` for a function
        that is no plain method of a class, or when the run is not known."""
        name = getattr(fn, "name", None)
        cls = self.method_of.get(id(fn))
        if name is None or cls is None or cls.is_module or _static(fn) or self.project is None:
            return []
        key = id(fn)
        if key not in self._held:
            self._held[key] = []  # (asked again while answering: no calls yet)
            files = self.project.importers(self.path)
            found = []
            for p in sorted({self.path, *(files or ())}):
                other = self if p == self.path else self.project.file_flow(p)
                if other is not None:
                    found.extend(other._calls_through_held(name, fn))
            self._held[key] = found
        return self._held[key]

    def _calls_through_held(self, name: str, fn: ast.AST) -> list[tuple[FileFlow, ScopeResult, dict[str, Value]]]:
        """:meth:`held_calls` of ``fn`` (named ``name``) in this file's classes."""
        out: list[tuple[FileFlow, ScopeResult, dict[str, Value]]] = []
        for holder in list(self.classes.values()):
            for m, call, attr in holder.held_call_sites(name):
                held = self.held_class(holder, attr)
                found = held.method(name) if held is not None else None
                if found is None or found[1] is not fn:
                    continue
                res = self.result(m, holder)
                event = res.calls.get(id(call))
                if event is None or any(isinstance(a, ast.Starred) for a in call.args) or \
                        any(k.arg is None for k in call.keywords):
                    continue
                params = param_names(fn)
                bound = {str(k + 1): a for k, a in enumerate(event.args) if k + 1 < len(params)}
                bound.update((str(params.index(n)), v) for n, v in event.keywords if n in params[1:])
                out.append((self, res, bound))
        return out

    def kept_arguments(self, holder: ClassInfo, attr: str) -> list[tuple[FileFlow, ScopeResult, int, Value]] | None:
        r"""For ``self.<attr>`` of ``holder`` (a plain class of this file) that ``__init__``
        binds to one of its parameters kept as it is (``self.model = model``, and nothing
        else stores it: :meth:`constructed_attr`): what every construction of ``holder`` in
        the run hands that parameter, as (the constructing file, its scope, the call's id,
        the argument); None when not so, when no construction of the run is known, or when
        one leaves the parameter unbound.

        >>> src = (
        ...     "import torch\n"
        ...     "class T:\n"
        ...     "    def __init__(self, model, n):\n        self.model = model\n"
        ...     "        self.n = 3\n"
        ...     "    def step(self, x):\n        return self.model(x)\n"
        ...     "def main():\n    T(torch.nn.Linear(2, 2), 3)\n")
        >>> from torchferry.check.flow.project import Project
        >>> ff = Project({"/r/t.py": src.encode()}, packages=set()).file_flow("/r/t.py")
        >>> t = next(c for c in ff.classes.values() if c.node.name == "T")
        >>> [v.origins[0].text for *_, v in ff.kept_arguments(t, "model")]
        ['torch.nn.Linear(...)']
        >>> ff.kept_arguments(t, "n") is None
        True
        """
        kept = self._kept_param(holder, attr)
        if kept is None or self.project is None:
            return None
        init, k = kept
        sites = self.project.constructions(self, holder.node, init)
        if not sites or any(k not in bound for *_, bound in sites):
            return None
        return [(other, caller, call_id, bound[k]) for other, caller, call_id, bound in sites]

    def _kept_param(self, holder: ClassInfo, attr: str
                    ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
        """``holder``'s ``__init__`` and the index (as a string) of the one parameter it keeps
        as it is in ``self.<attr>`` (``self.model = model``, nothing else storing there:
        :meth:`constructed_attr`), for the constructions of the run to say what they pass;
        None when not so (or when no project of files is known)."""
        init = holder.method("__init__")
        if init is None or self.project is None or self.constructed_attr(holder, attr) is None:
            return None
        raw = init[0].ff.result(init[1], init[0]).stores.get(attr)
        refs = _param_refs(raw) if raw is not None else set()
        if raw is None or len(refs) != 1 or raw.places != frozenset((param(next(iter(refs))),)):
            return None
        return init[1], str(next(iter(refs)))

    def own_yields(self, fn: ast.AST) -> list[ast.Yield | ast.YieldFrom]:
        """The ``yield`` expressions of ``fn``, a function of this file, itself (not of the
        functions and classes it defines); walked once per function.

        >>> ff = FileFlow(ast.parse("def g(xs):\\n    for x in xs:\\n        yield x\\n"), "<example>")
        >>> [ast.unparse(y) for y in ff.own_yields(ff.tree.body[0])]
        ['(yield x)']
        """
        found = self._yields.get(id(fn))
        if found is None:
            found = self._yields[id(fn)] = []
            if not self._may_yield(fn):
                return found
            found.extend(n for n in own_nodes(fn) if isinstance(n, (ast.Yield, ast.YieldFrom)))
        return found

    def base_names(self) -> frozenset[str]:
        """The plain names the classes of this file (nested ones included) derive from
        (``class B(A)``: ``A``), from one walk of the tree.

        >>> ff = FileFlow(ast.parse("class A: pass\\nclass B(A, m.C):\\n    class D(B): pass\\n"), "<example>")
        >>> sorted(ff.base_names())
        ['A', 'B']
        """
        if self._base_names is None:
            self._base_names = frozenset(
                b.id for st in tree_index(self.tree).classes for b in st.bases if isinstance(b, ast.Name))
        return self._base_names

    def _may_yield(self, fn: ast.AST) -> bool:
        """Whether a line of ``fn`` (its decorators included) holds the word ``yield`` in
        the text the file was parsed from (True when the text is not known): a ``yield``
        expression is written on a line of its function, so a function without one has
        none (the walk is left out)."""
        rows = self._yield_rows
        if rows is None:
            return True
        first = min([getattr(fn, "lineno", 0)] + [d.lineno for d in getattr(fn, "decorator_list", ())])
        i = bisect.bisect_left(rows, first)
        return i < len(rows) and rows[i] <= (getattr(fn, "end_lineno", None) or rows[i])

    def held_class(self, holder: ClassInfo, attr: str) -> ClassInfo | None:
        """The class of the run of the object that ``self.<attr>`` of ``holder`` (a plain
        class of this file) holds: a constructor's parameter kept as it is, to which every
        construction of ``holder`` in the run hands an object that a constructor of that one
        class built (``Parts(mesh)`` with ``mesh = Mesh(...)``); None when not so."""
        kept = self._kept_param(holder, attr)
        if kept is None or self.project is None:
            return None
        init, k = kept
        sites = self.project.constructions(self, holder.node, init) or []
        classes = set()
        held: ClassInfo | None = None
        for other, _, _, bound in sites:
            a = bound.get(k)
            made = next((o for o in reversed(a.origins) if o.op is Op.MADE), None) if a is not None else None
            if a is None or not a.is_(Kind.OTHER) or made is None or not isinstance(made.node, ast.Call):
                return None
            where = other if made.path in (None, other.path) else self.project.file_flow(made.path)
            held = where.class_called(made.node) if where is not None else None
            if held is None or held.is_module:
                return None
            classes.add(id(held))
        return held if len(classes) == 1 else None

    def forward_of(self, module: Value) -> ScopeResult | None:
        """The interpretation of ``forward`` of the class of the run that built ``module``
        in this file (``DecoderRNN(...)``, imported or not), or None when not known."""
        info = self.class_of(module)
        method = info.forward_method() if info is not None and info.is_module else None
        if method is None:
            return None
        return method[0].ff.summary(method[1], self)

    def plain_instance(self, v: Value) -> bool:
        """Is ``v`` an instance of a plain class of the run (no module, no base outside the
        run, no ``__getattr__``/``__setattr__``) that a constructor of this file built?"""
        info = self.class_of(v) if v.is_(Kind.OTHER) else None
        return info is not None and not info.is_module and _plain_class(info)

    def class_of(self, module: Value) -> ClassInfo | None:
        """The class of the run whose constructor, called in this file, built ``module``."""
        made = next((o for o in reversed(module.origins) if o.op is Op.MADE), None)
        if made is None or made.path is not None or not isinstance(made.node, ast.Call):
            return None
        return self.class_called(made.node)

    def classes_of(self, res: ScopeResult, module: Value, depth: int = 0) -> list[ClassInfo] | None:
        """The classes of the run whose constructors built ``module``, a value of ``res``:
        the one this file builds it with (:meth:`class_of`), or, for a parameter of ``res``'s
        function used as it came in (``model(x)`` in ``def train(model, loader)``), those
        of what every call of this file passes for it (:meth:`arguments`, three calls
        deep).  None when one of them is not known, or no call of this file binds it.

        >>> src = ("import torch.nn as nn\\nclass Net(nn.Module):\\n    pass\\n"
        ...        "def run(model, x):\\n    return model(x)\\nrun(Net(), 1)\\n")
        >>> ff = FileFlow(ast.parse(src), "<example>")
        >>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
        >>> call = next(c for c in res.calls.values() if c.callee is Callee.MODULE)
        >>> [c.node.name for c in ff.classes_of(res, call.func) or ()]
        ['Net']
        """
        info = self.class_of(module)
        if info is not None:
            return [info]
        k = _parameter_itself(module)
        if k is None or depth >= 3 or k == 0 and self.method_of.get(id(res.node)) \
                and not _static(res.node):
            return None
        given = self.arguments(res.node, k)
        if not given:
            return None
        out: list[ClassInfo] = []
        for caller, a in given:
            found = self.classes_of(caller, a, depth + 1)
            if found is None:
                return None
            out.extend(found)
        return out

    def class_called(self, call: ast.Call) -> ClassInfo | None:
        """The class of the run whose constructor ``call``, a call of this file, is."""
        built = self.built.get(id(call))
        if built is not None:  # (``agent = Agent; agent(device)``, a star-imported class)
            return built
        func = call.func
        local = self.defs.get(func.id) if isinstance(func, ast.Name) else None
        if isinstance(local, ast.ClassDef):
            found: tuple[FileFlow, ast.AST] | None = (self, local)
        else:
            q = self.qualname(func)
            found = self.resolve(q) if q else None
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        return found[0].class_info(found[1])

    def instance_on_device(self, cls: ClassInfo, at: Point | None = None) -> Value | None:
        """An instance of ``cls`` (or of a subclass) that this file builds and puts on an
        accelerator (``model = Net().to(device)``, ``Net().cuda()``), or a method of the
        class, of a base or of a subclass that moves its own object there
        (``self.cuda()``, ``self.to(device)``): in the methods of ``cls``, ``self`` -- its
        submodules, parameters and buffers -- may be there too.  With ``at``, the point of
        the run that asks (a call of the module, a tensor meeting its weights), only a move
        that can have happened before it counts (:meth:`may_precede`: not one the code
        surely runs after it, ``out = self.forward(x)`` then ``self.to(device)``).  None
        when no call of the interpreted scopes shows one (complete once :meth:`results`
        has been consumed).  When this file shows none, the files of the run that import
        it, directly or not, are asked the same (the model class of ``model.py`` that
        ``train.py`` moves; their order is not known), when :meth:`Project.importers`
        knows them; the move found there cites its file."""
        key = (id(cls), len(self._results), id(at.node) if at is not None else 0)  # (asked again once more scopes are known)
        if key in self._instances:
            return self._instances[key]
        found = self._moved_instance(cls, list(self._results.values()), at)
        if found is None:
            found = self._moved_owner(cls, at)
        if found is None and self.project is not None:
            for path in sorted(self.project.importers(self.path) or ()):
                other = self.project.file_flow(path)
                if other is None or other is self:
                    continue
                v = other._moved_instance(cls, list(other.results()), None)
                if v is not None:
                    found = in_file(v, other, self)
                    break
        self._instances[key] = found
        return found

    def trainer_placed(self, cls: ClassInfo, fn: ast.AST) -> Value | None:
        """``self`` of ``fn``, a hook of ``cls`` that Lightning calls once the module is
        where its trainer runs (:data:`~torchferry.check.flow.libfacts.LIGHTNING_RUN_HOOKS`,
        ``cls`` derived from ``LightningModule``), when this file or one of the run that
        imports it builds a ``Trainer`` that may use an accelerator
        (:func:`~torchferry.check.flow.libfacts.trainer_may_accelerate`): a module that may
        be there (or on the CPU), the trainer's construction its move.  None otherwise."""
        name = getattr(fn, "name", None)
        if not isinstance(name, str) or hook_parameter(cls, name, 0) is not Placement.TRAINER_DEVICE:
            return None
        files = [self]
        if self.project is not None:
            files += [f for path in sorted(self.project.importers(self.path) or ())
                      if (f := self.project.file_flow(path)) is not None and f is not self]
        for other in files:
            call = other.accelerating_trainer()
            if call is not None:
                origin = Origin(Op.MOVED, call.lineno, call.col_offset, f"{ast.unparse(call.func)}(...)",
                                to=frozenset((ACCEL, CPU)), node=call)
                return in_file(Value.of(Kind.MODULE, ACCEL, origin)._replace(
                    places=frozenset((ACCEL, CPU))), other, self)
        return None

    def accelerating_trainer(self) -> ast.Call | None:
        """The first construction in this file of Lightning's ``Trainer`` that may run on an
        accelerator (:func:`~torchferry.check.flow.libfacts.trainer_may_accelerate`)."""
        if self._trainer is None:
            self._trainer = next((c for c in tree_index(self.tree).calls
                                  if c.keywords and self.qualname(c.func) in LIGHTNING_TRAINERS
                                  and trainer_may_accelerate(c)), False)
        return self._trainer if isinstance(self._trainer, ast.Call) else None

    def _moved_owner(self, cls: ClassInfo, at: Point | None, depth: int = 0) -> Value | None:
        """An instance that the run builds and puts on an accelerator (``model =
        Transformer(...).to(device)``, in this file or in one that imports it) of a module
        class of this file whose ``__init__`` makes an instance of ``cls`` its submodule
        (``self.encoder = Encoder(...)``), or of an owner of that class, three deep: moving a
        module moves its submodules.  (An owner's method moving its own object is not
        counted: it says nothing of when the submodule's methods run.)"""
        if not cls.is_module or depth >= 3:
            return None
        for owner in list(self.classes.values()):
            if owner is cls or owner.node.name not in self.defs or not self.class_info(owner.node).is_module:
                continue
            init = owner.methods.get("__init__")
            if init is None or not any(self._builds(cls, st.value) for st in self._self_assigns(init)) \
                    and not fills(self, owner, init, partial(self._builds, cls)):
                continue  # (also ``self.blocks.append(Block(...))`` of an ``nn.ModuleList``)
            found = self._built_on_device(owner, at) or self._moved_owner(owner, at, depth + 1)
            if found is not None:
                return found
        return None

    def _self_assigns(self, fn: ast.AST) -> list[ast.Assign]:
        """The assignments to one attribute of ``self`` (:func:`_on_self`) anywhere in
        ``fn``, nested scopes included, in :func:`ast.walk`'s order; walked once per
        function (:meth:`_moved_owner` asks about each owner class for every class).

        >>> tree = ast.parse("class A:\\n    def __init__(self):\\n        self.a = B()\\n"
        ...                  "        x = 1\\n        self.b, self.c = 1, 2\\n")
        >>> ff = FileFlow(tree, "<example>")
        >>> init = tree.body[0].body[0]
        >>> [ast.unparse(st) for st in ff._self_assigns(init)], ff._self_assigns(init) is ff._self_assigns(init)
        (['self.a = B()'], True)
        """
        got = self._assigns_of.get(id(fn))
        if got is None or got[0] is not fn:
            got = self._assigns_of[id(fn)] = (fn, [st for st in ast.walk(fn)
                                                  if isinstance(st, ast.Assign) and _on_self(st, fn)])
        return got[1]

    def _built_on_device(self, cls: ClassInfo, at: Point | None) -> Value | None:
        """An instance of ``cls`` that this file, or a file of the run importing it, builds
        and puts on an accelerator (see :meth:`_moved_instance`)."""
        found = self._moved_instance(cls, list(self._results.values()), at, built=True)
        if found is not None or self.project is None:
            return found
        for path in sorted(self.project.importers(self.path) or ()):
            other = self.project.file_flow(path)
            if other is None or other is self:
                continue
            v = other._moved_instance(cls, list(other.results()), None, built=True)
            if v is not None:
                return in_file(v, other, self)
        return None

    def _builds(self, cls: ClassInfo, value: ast.expr) -> bool:
        """Is ``value`` a construction of ``cls`` (or of a subclass of it)?"""
        made = self.class_called(value) if isinstance(value, ast.Call) else None
        return made is not None and any(k is cls for k in mro(made))

    def _moved_instance(self, cls: ClassInfo, scopes: list[ScopeResult], at: Point | None,
                        built: bool = False) -> Value | None:
        """The first call of ``scopes`` (of this file) that puts an instance of ``cls`` on
        an accelerator, or moves its own object there, and that can have happened before
        ``at`` (see :meth:`instance_on_device`)."""
        for res in scopes:
            for c in res.calls.values():
                v = c.result
                if not v.is_(Kind.MODULE) or not v.places or ACCEL not in v.places:
                    continue
                made = self.class_of(v)
                mover = self._moves_itself(res, c) if made is None and not built else None
                if (made is not None and any(k is cls for k in mro(made)) or
                        mover is not None and (any(k is cls for k in mro(mover)) or
                                               any(k is mover for k in mro(cls)))) and \
                        (at is None or self.may_precede(Point(res.node, c.node), at)):
                    return v
        return None

    def may_precede(self, first: Point, then: Point) -> bool:
        """Can the point ``first`` of this file (a move) have happened before ``then`` on
        some path of the run?  False only where the code shows it always comes after
        (:func:`torchferry.check.flow.order.surely_after`: later in the same scope, outside
        any loop around both; or, lifted through the calls of their scopes, later in the
        one invocation that runs both); True where the order is not known.

        >>> src = ("import torch.nn as nn\\nclass Net(nn.Module):\\n    def probe(self, x):\\n"
        ...        "        return x\\nm = Net()\\nm.probe(1)\\nm.cuda()\\n")
        >>> ff = FileFlow(ast.parse(src), "<example>")
        >>> _ = list(ff.results())
        >>> probe = ff.tree.body[1].body[0]
        >>> use, move = probe.body[0].value, ff.tree.body[4].value
        >>> ff.may_precede(Point(ff.tree, move), Point(probe, use))
        False
        """
        return not surely_after(first, then, self.callers_of)

    def callers_of(self, scope: ast.AST) -> list[Point] | None:
        """The calls that run ``scope`` (a function or method of this file, or its top
        level: none), each a point of its caller; None when they cannot all be known: the
        file is not interpreted whole, the function is run other than by a call of its name
        (``forward`` by ``model(x)``, a dunder, a decorated one, one handed on as a value),
        it is not defined at the file's top level or in a class there, a call of its name
        is not resolved to it, or another file of the run may call it."""
        if scope is self.tree:
            return []
        name = getattr(scope, "name", None)
        if not self._complete or not isinstance(scope, _FUNCS) or name is None or \
                name == "forward" or name.startswith("__") or scope.decorator_list or \
                name in self._value_names() or not self._top_level(scope) or not self._alone_in_run(scope):
            return None
        sites = self.call_sites.get(id(scope), {})
        out: list[Point] = []
        for call_id, (caller, _) in sites.items():
            event = caller.calls.get(call_id)
            if event is None:
                return None
            out.append(Point(caller.node, event.node))
        return out if self._calls_of(scope) == len(out) else None

    def _top_level(self, fn: ast.AST) -> bool:
        """Is ``fn`` defined at the file's top level, or as a method of a class there?"""
        cls = self.method_of.get(id(fn))
        body = self.tree.body if cls is None else cls.node.body
        return any(st is fn for st in body) and (cls is None or any(st is cls.node for st in self.tree.body))

    def _alone_in_run(self, fn: ast.AST) -> bool:
        """Does no other file of the run import this one (so none calls ``fn``)?  A file
        checked alone is the whole run."""
        if self.project is None:
            return True
        importers = self.project.importers(self.path)
        return importers is not None and not (importers - {self.path})

    def _value_names(self) -> frozenset[str]:
        """The names this file uses other than as the function of a call (``f`` of
        ``map(f, xs)``, ``self.step`` of ``hooks.append(self.step)``)."""
        return tree_index(self.tree).value_names()

    def _calls_of(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
        """How many calls of this file may run ``fn`` by its name: for a method, every call
        of the name (``obj.f(x)``, ``f(x)``); for a function, a call of the bare name or of
        the name as an attribute of an imported module
        (:meth:`~torchferry.check.flow.treeindex.TreeIndex.function_calls`): ``model.train()``
        is no call of a ``def train(model, loader)``."""
        index = tree_index(self.tree)
        if id(fn) in self.method_of:
            return index.called_names().get(fn.name, 0)
        return index.function_calls(frozenset(self.imports)).get(fn.name, 0)

    def _moves_itself(self, res: ScopeResult, call: CallEvent) -> ClassInfo | None:
        """The ``nn.Module`` class whose method ``res`` moves its own object with ``call``
        (``self.cuda()``, ``self.to(device)``; in a loop, ``self`` moved on an earlier turn
        too), else None."""
        cls = self.method_of.get(id(res.node))
        places = call.receiver.places if call.receiver is not None else None
        if cls is None or not cls.is_module or _static(res.node) or \
                call.callee is not Callee.METHOD or not places or param(0) not in places or \
                any(p.symbolic and p != param(0) for p in places) or not call.result.origins or \
                call.result.origins[0].op is not Op.MOVED:
            return None
        return cls

    def self_placed(self, res: ScopeResult, v: Value, at: ast.AST | None = None) -> Value:
        """``v`` of a method of an ``nn.Module`` class with the place of ``self`` (what its
        submodules, parameters and buffers give) replaced by that of an instance this file
        puts on an accelerator, the move added to its origins; ``v`` itself when there is
        none, or ``v`` does not live where ``self`` does.  With ``at``, the node of ``res``
        where ``v`` is used, only a move that can have happened before it counts (see
        :meth:`instance_on_device`)."""
        cls = self.method_of.get(id(res.node))
        self_place = param(0)
        if cls is None or not cls.is_module or not v.places or self_place not in v.places or \
                self.constructing(res.node):
            return v
        inst = self.instance_on_device(cls, Point(res.node, at) if at is not None else None)
        if inst is None or not inst.places:
            inst = self.trainer_placed(cls, res.node)
        if inst is None or not inst.places:
            return v
        places = (v.places - {self_place}) | inst.places
        # its own latest origin (the module call it came out of), then the instance's move
        origins = tuple(dict.fromkeys((*v.origins[:1], *inst.origins, *v.origins[1:])))[:ORIGIN_CAP]
        return v._replace(places=places if len(places) <= PLACE_CAP else None, origins=origins)

    def placed(self, res: ScopeResult, v: Value, depth: int = 0, at: ast.AST | None = None) -> Value:
        """``v`` of the scope ``res`` with the places of parameters resolved where the file
        says where they are: ``self`` of a module's method by the instances it moves (see
        :meth:`self_placed`), another parameter by what the run's calls of the function
        pass for it (:meth:`run_arguments`: this file's, and other files' calls of a
        function defined at module level), followed through the callers' own parameters
        (three calls deep); an item taken by position from a parameter (``audio, f0 =
        batch``) by what the calls pass at that position (``(audio.to(device), f0)``), and
        of its kind when every call passes one.  A parameter no call of the run binds (a
        public function, a ``forward`` called as ``model(x)``) keeps its symbolic place.
        ``at``, the node of ``res`` that uses ``v``, places ``self`` by the moves that can
        have happened before it."""
        v = self.self_placed(res, v, at)
        if not v.places or depth >= 3:
            return v
        places = set(v.places)
        origins = list(v.origins[:1])
        kinds = v.kinds
        for p in in_order(v.places):  # (the origins follow the parameters' order)
            if p.where is not Where.PARAM or p == param(0) and self.method_of.get(id(res.node)) \
                    and not _static(res.node):
                continue  # (``self``; a static method's first parameter is an argument)
            given = self.run_arguments(res.node, int(p.ref))
            if not given:
                continue  # no call, or one that leaves it unbound: the callers decide
            position = _item_position(res, v, int(p.ref))
            if position is not None:
                given = [(other, caller, _passed_at(a, position)) for other, caller, a in given]
            found = [in_file(other.placed(caller, a, depth + 1), other, self)
                     for other, caller, a in given]
            if any(a.places is None for a in found):
                continue
            if position is not None and kinds is None and all(a.kinds for a in found):
                kinds = frozenset().union(*(a.kinds or () for a in found))
            elif position is None and kinds is None and _the_parameter(v, p) and all(
                    a.kinds and a.kinds <= _NUMBER_OR_TENSOR for a in found):
                kinds = frozenset().union(*(a.kinds or () for a in found))  # what every call passes
            for a in found:  # (a caller's own symbolic places mean nothing here)
                places |= {q for q in a.places or () if not q.symbolic}
                origins.extend(a.origins)
            if not any(q.symbolic for a in found for q in a.places or ()):
                places.discard(p)  # every call says where it is
        if places == v.places and kinds == v.kinds:
            return v
        origins.extend(v.origins[1:])
        return v._replace(kinds=kinds, places=frozenset(places) if len(places) <= PLACE_CAP else None,
                          origins=tuple(dict.fromkeys(origins))[:ORIGIN_CAP])

    def follows_model(self, res: ScopeResult, v: Value, depth: int = 0, used: bool = False) -> bool:
        """Does ``v`` (a value of ``res``) follow a module to its device, wherever
        ``model.to(device)`` puts it: on an accelerator already, or computed from ``self``
        of an ``nn.Module``'s method other than ``__init__`` (its submodules' outputs, its
        parameters and buffers), from an input of its ``forward``, or from a parameter
        that a call of the run gives such a value (:meth:`run_arguments`, three calls deep)?
        ``used``: the callee that ``v`` is handed to uses its parameter as a tensor
        (``torch.stft(x, ...)`` in ``self.transform(x)`` of a ``forward`` input ``x`` that
        ``forward`` only hands on), which tells the argument's kind too."""
        # (a parameter's kind from its uses, ``x.view(-1)``, never from a hint)
        kinds = res.kind_of(v._replace(kinds=None) if v.basis is Basis.HINT else v)
        if kinds is None and used:
            kinds = frozenset((Kind.TENSOR,))
        if not v.places or kinds is not None and not kinds & {Kind.TENSOR, Kind.BATCH}:
            return False
        cls = self.method_of.get(id(res.node))
        module_method = cls is not None and cls.is_module and not self.constructing(res.node)
        for p in v.places:
            if p.where is Where.ACCEL:
                return True
            if p.where is not Where.PARAM:
                continue
            k = int(p.ref)
            if module_method and kinds is not None and \
                    (k == 0 or cls is not None and getattr(res.node, "name", "") in cls.input_methods()):
                return True  # (of unknown kind, ``step`` may be a number)
            if depth >= 3:
                continue
            if cls is not None:  # its class's methods call it: interpret them all
                for fn in cls.methods.values():
                    self.result(fn, cls)
            given = self.run_arguments(res.node, k)
            tensor = kinds is not None and Kind.TENSOR in kinds
            if given and any(other.follows_model(caller, a, depth + 1, tensor) for other, caller, a in given):
                return True
        return False

    def target_of(self, call: ast.Call, cls: ClassInfo | None = None,
                  self_name: str | None = None) -> tuple[FileFlow, ast.AST, int] | None:
        """The function of the run a call runs, with the index of the parameter its first
        positional argument binds: ``helper(a, b)`` (0), ``self.helper(a)`` in a method of
        ``cls`` (1: ``self`` is bound), ``Fn.apply(a)`` of a ``torch.autograd.Function``
        subclass (its ``forward``; 1: ``ctx`` comes first).  None when not known."""
        func = call.func
        if isinstance(func, ast.Name):
            found = self._named(func)
            if found is not None and isinstance(found[1], _FUNCS):
                return found[0], found[1], 0
            return None
        if not isinstance(func, ast.Attribute):
            return None
        base = func.value
        if cls is not None and isinstance(base, ast.Name) and base.id == self_name:
            m = cls.method(func.attr)
            return None if m is None else (m[0].ff, m[1], 0 if _static(m[1]) else 1)
        found = self._named(base) if func.attr == "apply" else None
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        info = found[0].class_info(found[1])
        if not any(found[0].qualname(b) == "torch.autograd.Function" for c in mro(info)
                   for b in c.node.bases):
            return None
        fwd = info.method("forward")
        return (fwd[0].ff, fwd[1], 1) if fwd is not None else None

    def _named(self, node: ast.expr) -> tuple[FileFlow, ast.AST] | None:
        """The function or class a name (or a dotted name) names in the run."""
        if isinstance(node, ast.Name) and node.id in self.defs:
            return self, self.defs[node.id]
        q = self.qualname(node)
        return self.resolve(q) if q else None

    def meeting_params(self, fn: ast.AST) -> frozenset[tuple[int, int]]:
        """The pairs ``(i, j)``, ``i < j``, of parameters of ``fn`` whose values meet in one
        operation of its body: an operator (``weight * mask``), a torch function or a
        tensor method other than a move, a cast or a shape read (``input.mm(weight.t())``);
        what ``fn`` does with its parameters as the caller's tensors would meet there."""
        res = self.result(fn, self.method_of.get(id(fn)))
        groups: list[list[set[int]]] = []
        for m in res.meets.values():
            groups.append([_param_refs(v) for _, v in m.operands])
        for c in res.calls.values():
            if c.callee is Callee.TORCH or c.callee is Callee.METHOD and \
                    c.qualname not in vocab.NO_MEETING:
                parts = [] if c.receiver is None else [c.receiver]
                args = (*parts, *c.args, *(v for _, v in c.keywords))
                groups.append([r for v in args for r in (
                    _listed_refs(v) if c.callee is Callee.TORCH else [_param_refs(v)])])
        out: set[tuple[int, int]] = set()
        for g in groups:
            for a in range(len(g)):
                for b in range(a + 1, len(g)):
                    out.update((min(i, j), max(i, j)) for i in g[a] for j in g[b] if i != j)
        return frozenset(out)

    def moved_before_a_call(self, fn: ast.AST, name: str) -> Value | None:
        """The global ``name`` as a call of ``fn`` in this file finds it, when that call's
        function moved it in place (``model.to(device)`` as a statement,
        :attr:`ScopeResult.outer_moves`) in a statement of its body, not nested in a branch
        or a loop, before the statement that holds the call (``train()`` moves the global
        model, then calls ``test()``): that move.  Other calls of ``fn`` may find it
        elsewhere; this one surely finds it moved.  None when no call is so (complete once
        :meth:`results` has been consumed)."""
        for call_id, (caller, _) in self.call_sites.get(id(fn), {}).items():
            moved = caller.outer_moves.get(name)
            event = caller.calls.get(call_id)
            body = getattr(caller.node, "body", None)
            if moved is None or event is None or isinstance(caller.node, ast.Module) or not body:
                continue
            move = next((o.node for o in moved.origins if o.op is Op.MOVED), None)
            at_move = _top_statement(body, move)
            at_call = _top_statement(body, event.node)
            if at_move is not None and at_call is not None and at_move < at_call and \
                    isinstance(body[at_move], ast.Expr) and body[at_move].value is move and \
                    not self._may_move(caller, body[at_move + 1:at_call + 1], name, event.node):
                return moved
        return None

    def _may_move(self, caller: ScopeResult, stmts: list[ast.stmt], name: str, until: ast.AST) -> bool:
        """Might ``stmts`` of ``caller`` (up to the call ``until``) move or rebind the global
        ``name`` again: a move of it (``name.cpu()``), an assignment to it, or a call of a
        function of the file that moves it in place or that the analysis cannot follow?"""
        for st in stmts:
            for n in ast.walk(st):
                if n is until:
                    break
                if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
                    return True
                if not isinstance(n, ast.Call):
                    continue
                f = n.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == name \
                        and f.attr in vocab.MOVE_NAMES:
                    return True
                c = caller.calls.get(id(n))
                target = self.target_of(n) if c is not None and c.callee is Callee.FUNCTION else None
                if target is not None and name in target[0].result(target[1]).outer_moves:
                    return True
        return False

    def constructing(self, fn: ast.AST) -> bool:
        """Does the method run only while its object is built: ``__init__``, or a method
        this file calls only from ``__init__`` (the object is on the CPU until moved)?"""
        if getattr(fn, "name", "") == "__init__":
            return True
        sites = self.call_sites.get(id(fn), {}).values()
        return bool(sites) and all(getattr(caller.node, "name", "") == "__init__"
                                   for caller, _ in sites)

    # -- classes ---------------------------------------------------------------------------
    def class_attr(self, cls: ClassInfo, attr: str) -> Value:
        """``self.<attr>`` as every method of the class (and its bases in the run) leaves it."""
        for c in mro(cls):
            table = c.ff._table(c)
            v = table.get(attr)
            if v is not None:  # a mixin's submodule follows the module it is mixed into
                return _as_attribute(v, cls.is_module)
        inherited = self._layer_tensor(cls, attr) if cls.is_module else None
        return UNKNOWN if inherited is None else inherited

    def _layer_tensor(self, cls: ClassInfo, attr: str) -> Value | None:
        """``self.<attr>`` of a subclass (or a subclass of a subclass in the run) of a
        ``torch.nn`` layer whose ``__init__`` always registers ``attr``
        (:data:`vocab.LAYER_TENSORS`: ``self.weight`` of ``class WSConv2d(nn.Conv2d)``) when
        no class of the run stores it and this file assigns no ``<x>.<attr>``: a parameter
        of the module, where ``self`` is.  None for anything else."""
        if self._assigned_outside(attr):
            return None
        for c in mro(cls):
            for b in c.node.bases:
                q = c.ff.qualname(b) or ""
                head, _, last = q.rpartition(".")
                if head in ("torch.nn", "torch.nn.modules") or head.startswith("torch.nn.modules."):
                    if attr in vocab.LAYER_TENSORS.get(last, ()):
                        made = Origin(Op.MADE, b.lineno, b.col_offset,
                                      f"torch.nn.Parameter ({last}.{attr})", node=b)
                        v = Value(frozenset((Kind.TENSOR,)), frozenset((param(0),)), (made,))
                        return v if c.ff is self else in_path(v, c.ff.path)
        return None

    def instance_attr(self, obj: Value, attr: str) -> Value | None:
        """``obj.<attr>`` for an instance of a plain class of the run (not a module) that
        this file constructs (``corpus = data.Corpus(path)``, then ``corpus.train``): what
        the class's methods store in ``self.<attr>``, when that is a value at known,
        concrete places; None when not known.  Not for a class with a base outside the run
        (it may set the attribute), one that defines ``__getattr__``/``__setattr__``, or an
        attribute this file assigns from outside the class (``corpus.train = ...``)."""
        info = self.class_of(obj) if obj.is_(Kind.OTHER) else None
        if info is None or info.is_module or not _plain_class(info) or self._assigned_outside(attr):
            return None
        v = self._constructed_attr(info, obj, attr) or self.class_attr(info, attr)
        if not _concrete(v) and not _loader_attr(v):
            return None
        if info.ff is not self:
            v = in_path(v, info.ff.path)
        return outside(v)

    def _constructed_attr(self, info: ClassInfo, obj: Value, attr: str) -> Value | None:
        """``obj.<attr>`` of ``obj = Plain(x, device=d)`` built in this file, where
        ``__init__`` stores a value made from its parameters (``self.data =
        data.to(device)``): that value with the construction's arguments bound (a tensor or
        module argument makes its parameter one), joined with what the class's other methods
        store there.  None when the construction is not known or ``__init__`` does not
        store ``attr``."""
        made = next((o for o in reversed(obj.origins) if o.op is Op.MADE), None)
        bound = self.constructed.get(id(made.node)) if made is not None else None
        init = info.method("__init__")
        if bound is None or init is None:
            return None
        owner, fn = init[0].ff, init[1]
        given = {int(k): kind for k, a in bound.items() for kind in (Kind.TENSOR, Kind.MODULE) if a.is_(kind)}
        res = owner.given_result(fn, given) if given else owner.result(fn, init[0])
        raw = res.stores.get(attr) if res is not None else None
        if raw is None:
            return None
        v = substitute(raw, bound)
        for c in mro(info):
            c.ff._table(c)  # (every method that stores on ``self`` interpreted)
            for other in c.methods.values():
                done = c.ff._results.get(id(other))
                if other is not fn and done is not None and attr in done.stores:
                    v = join(v, _as_attribute(done.stores[attr], False))
        return v

    def constructed_attr(self, cls: ClassInfo, attr: str) -> Value | None:
        """``self.<attr>`` in the methods of ``cls``, a plain class (not a module) of this
        file that stores it only in ``__init__`` (its own or a base's) from the
        constructor's parameters (``self.model = model``, ``self.data = data.to(device)``):
        the join over every construction of the class in the run
        (:meth:`Project.constructions`: this file's and those of the files that import it)
        of that value with the construction's arguments bound, each placed in its own file
        (:meth:`placed`; its origins cite that file).  A parameter kept as it is takes the
        arguments' kinds too (``Predictor(net.to(device))``: a module on the device).  None
        when the class or the attribute is not so, no construction of the run is known, or
        one leaves a parameter the value depends on unbound."""
        key = (id(cls.node), attr)
        if key not in self._constructed_attrs:
            self._constructed_attrs[key] = self._constructed_attr_of_run(cls, attr)
        return self._constructed_attrs[key]

    def placed_at(self, res: ScopeResult, node: ast.AST, v: Value) -> Value:
        """:meth:`placed` of ``v``, the value of the expression ``node`` in ``res``, or, for
        ``self.<attr>`` of a plain class's method, what the constructions give it
        (:meth:`built_at`)."""
        built = self.built_at(res, node, v)
        return built if built is not None else self.placed(res, v, at=node)

    def built_at(self, res: ScopeResult, node: ast.AST, v: Value) -> Value | None:
        """``v``, the value of ``self.<attr>`` (the expression ``node``) in a method of a
        plain class whose table does not know its place, as the class's constructions in
        the run give it (:meth:`constructed_attr`); None for any other expression or value."""
        if v.places is not None or not isinstance(node, ast.Attribute) or \
                not isinstance(node.value, ast.Name) or node.value.id != "self" or _static(res.node):
            return None
        cls = self.method_of.get(id(res.node))
        built = self.constructed_attr(cls, node.attr) if cls is not None else None
        if built is None or built.kinds is None and v.kinds is not None:
            return built if built is None else built._replace(kinds=v.kinds)
        return built

    def _constructed_attr_of_run(self, cls: ClassInfo, attr: str) -> Value | None:
        """:meth:`constructed_attr`, not memoised."""
        init = cls.method("__init__")
        if init is None or self.project is None or cls.is_module or cls.ff is not self or \
                not _plain_class(cls) or self._assigned_outside(attr):
            return None
        owner, fn = init[0].ff, init[1]
        raw = owner.result(fn, init[0]).stores.get(attr)
        refs = _param_refs(raw) if raw is not None else set()
        if raw is None or not refs or 0 in refs or any(
                m is not fn and c.ff._stores_on_self(m) and attr in c.ff.result(m, c).stores
                for c in mro(cls) for m in c.methods.values()):
            return None
        sites = self.project.constructions(self, cls.node, fn)
        if not sites:
            return None
        out: Value | None = None
        for other, caller, _, bound in sites:
            if any(str(k) not in bound for k in refs):
                return None
            given = {str(k): in_file(other.placed(caller, bound[str(k)]), other, self) for k in refs}
            v = substitute(raw, given)
            if raw.kinds is None and raw.places == {param(next(iter(refs)))} and len(refs) == 1:
                v = v._replace(kinds=given[str(next(iter(refs)))].kinds)  # the argument itself
            out = v if out is None else join(out, v)
        return outside(out) if out is not None else None

    def _assigned_outside(self, attr: str) -> bool:
        """Does this file assign ``<x>.<attr>`` for an ``x`` other than ``self`` (or call
        ``setattr``)?"""
        stores = tree_index(self.tree).outside_stores()
        return attr in stores or "" in stores

    def _table(self, cls: ClassInfo) -> dict[str, Value]:
        if cls.table is not None:
            return cls.table
        cls.table = {}
        order = sorted(cls.methods.values(), key=lambda f: f.name != "__init__")
        early = {id(fn) for fn in order if id(fn) in self._results}
        for fn in order:
            if id(fn) not in early and id(fn) in self._results and id(fn) not in self._pending:
                # interpreted for a call of a method before it (``self._update()`` in
                # ``__init__``), it saw none of the attributes that method stores: again,
                # with the table so far
                del self._results[id(fn)]
            if id(fn) in self._pending or not self._stores_on_self(fn):
                continue  # the method asking has its own view of self; others store nothing
            res = self.result(fn, cls)
            for name, v in res.stores.items():
                v = _as_attribute(v, cls.is_module)
                old = cls.table.get(name)
                cls.table[name] = v if old is None else join(old, v)
        return cls.table


#: what a scope's text must mention for a device mistake to show in it (plain substrings:
#: ``in`` is much faster than a regular expression with alternatives)
_NEEDLES = (".to(", ".cuda(", ".cpu(", ".xpu(", ".numpy(", ".item(", ".tolist(", ".type_as(",
            "zeros(", "ones(", "empty(", "full(", "arange(", "rand", "eye(", "linspace(",
            "logspace(", "tensor(", "asarray(", "from_numpy(", "normal(", "bernoulli(",
            "multinomial(", "_window(", "Tensor(", "TensorV2(", "oader", "device", "synchronize", "non_blocking", "return_tensors")
#: (``\b`` first: a name is tried from its first character only, not again from each later
#: one; the same names, a third less CPU)
_CALLED = re.compile(r"\b(\w+)\(")
#: a scope that iterates (``for x in obj``, a comprehension, ``iter(obj)``): it may run an
#: ``__iter__`` of the file
_ITERATES = re.compile(r"\bfor\b[^\n]*\bin\b|\biter\(")
_STORES = re.compile(r"self\.\w+\s*(?::[^=\n]*)?[-+*/]?=(?!=)|self\.\w+\.(?:to|cuda|cpu|append|extend|insert)\("
                     r"|self\.\w+\[[^\]\n]*\]\.(?:append|extend|insert)\("
                     r"|self\.\w+\[[^\]\n]*\]\s*=(?!=)|register_|setattr|self\.state\[")


#: a factory of torch bound to a name as a value (``self.win = torch.hann_window``)
_FACTORY_ALIAS = re.compile(r"\b(\w+)\s*=\s*(?:torch|th)\.(\w+)\s*(?:$|[#;)\]])")


def _factory_aliases(lines: list[str]) -> set[str]:
    r"""The names that the file binds to a factory of torch named as a value: a scope
    calling one (``self.win(n)``) makes a tensor as the factory does.

    >>> sorted(_factory_aliases(["        self.win = torch.hann_window", "f = torch.ones(2)"]))
    ['win']
    """
    return {m.group(1) for line in lines if "torch." in line or "th." in line
            for m in [_FACTORY_ALIAS.search(line)] if m is not None
            and m.group(2) in vocab.SHAPE_FACTORIES | vocab.LIKE_FACTORIES | vocab.DATA_FACTORIES}


def _relevant_scopes(lines: list[str], scopes: list[ast.AST], aliases: frozenset[str]) -> set[int]:
    """The scopes whose text mentions one of :data:`_NEEDLES` or calls (by name) one that
    does, or a factory the file names as a value (``aliases``: :func:`_factory_aliases` of
    ``lines``), to a fixed point."""
    texts = {id(n): "\n".join(lines[n.lineno - 1: n.end_lineno or n.lineno]) for n in scopes
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names = {id(n): n.name for n in scopes if id(n) in texts}  # type: ignore[attr-defined]
    relevant = {k for k, t in texts.items() if any(x in t for x in _NEEDLES)}
    calls = {k: set(_CALLED.findall(t)) for k, t in texts.items() if k not in relevant}
    for k, c in calls.items():  # a loop calls the ``__iter__`` of what it iterates over
        if _ITERATES.search(texts[k]):
            c.add("__iter__")
    called = {names[k] for k in relevant} | aliases
    while True:
        more = {k for k, c in calls.items() if c & called}
        if not more:
            return relevant
        relevant |= more
        called |= {names[k] for k in more}
        for k in more:
            del calls[k]


def _may_be_on_device(v: Value, depth: int = 0) -> bool:
    """Is ``v``, or a part of it (an element of a tuple, an item of a list, a value of a
    dict), a tensor, a model or a batch that may be on an accelerator?"""
    if v.places is not None and ACCEL in v.places and \
            (v.kinds is None or v.kinds & {Kind.TENSOR, Kind.MODULE, Kind.BATCH}):
        return True
    if depth >= 2:
        return False
    parts = [*(v.elts or ()), *((v.item,) if v.item is not None else ()), *(x for _, x in v.keys or ())]
    return any(_may_be_on_device(x, depth + 1) for x in parts)


def _annotation_name(node: ast.expr) -> str:
    """``torch.Tensor`` for ``torch.Tensor``, ``Optional[Tensor]``, ``"Tensor"``; else ""."""
    if isinstance(node, ast.Subscript):  # Optional[X]
        node = node.slice
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


#: what a construction tells of a ``torch.nn`` container built in ``__init__``: its
#: weights (:func:`builds_weights`), or None where it tells nothing
Given = Callable[[ast.Call], "bool | None"]


def holds_parameters(cls: ClassInfo, seen: frozenset[int] = frozenset(), buffers: bool = True,
                     given: Given | None = None) -> bool:
    """Does a module class (or a base in the run) own weights: a submodule that is not known
    to be without weights (:func:`builds_weights`), a registered ``nn.Parameter`` or
    ``nn.Buffer``, or a call of ``self.register_buffer`` / ``self.register_parameter``
    (``buffers`` False: parameters only, ``nn.Parameter`` and ``register_parameter``)?
    ``seen``: the classes already asked about (a cycle answers no); ``given``: what one
    construction's arguments tell of a container ``__init__`` fills from its parameters
    (:func:`_given_containers`)."""
    seen = seen | {id(cls)}
    for c in mro(cls):
        for b in c.node.bases:  # ``class Layer(nn.Linear)``: a torch.nn layer's weights
            q = c.ff.qualname(b) or ""
            if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1] in vocab.PARAM_LAYERS:
                return True
        if _registers(c, buffers):
            return True
        for v in c.ff._table(c).values():
            # (an ``nn.Parameter(t)``: the wrapper, followed by what made ``t``)
            made = next((o.text for o in v.origins if o.op is Op.MADE and o.text.startswith(
                vocab.REGISTERED)), v.origins[-1].text if v.origins else "")
            if v.is_(Kind.MODULE):
                if _submodule_weights(c.ff, v, seen, buffers, given) is not False:
                    return True
            elif v.is_(Kind.TENSOR) and made.startswith(vocab.REGISTERED if buffers else _PARAMETERS):
                return True
    return False


def weightless(cls: ClassInfo, seen: frozenset[int] = frozenset(), call: ast.Call | None = None,
               given: Given | None = None) -> bool:
    """Is a module class of the run surely without weights: every base in the run or
    ``nn.Module``, every attribute its methods store of a known kind or made only of
    arguments of ``call`` (its construction) that are plain data, none a submodule that may
    own weights, no parameter or buffer registered and no ``setattr`` or
    ``self.add_module`` (``ColorJitterLayer(brightness=0.4)``, a layer that stores its
    numbers and draws its factors on its input's device)?  ``given``: see
    :func:`holds_parameters`."""
    if holds_parameters(cls, seen, given=given):
        return False
    plain_data = _plain_arguments(cls, call)
    seen = seen | {id(cls)}
    for c in mro(cls):
        plain = sum(c.ff.qualname(b) in ("torch.nn.Module", "torch.nn.modules.module.Module")
                    or isinstance(b, ast.Name) and b.id == "object" for b in c.node.bases)
        if plain + len(c.bases) < len(c.node.bases) or c.node.keywords or _adds_attributes(c):
            return False
        for v in c.ff._table(c).values():
            if v.kinds is None and not (v.origins and all(o.op is Op.PARAM and o.text in plain_data
                                                          for o in v.origins)):
                return False
            if v.is_(Kind.MODULE) and _submodule_weights(c.ff, v, seen, given=given) is not False:
                return False
    return True


def _plain_arguments(cls: ClassInfo, call: ast.Call | None) -> set[str]:
    """The parameters of the class's ``__init__`` (its own, or the one it inherits) that
    ``call`` (its construction) binds, itself or by their defaults, to plain data (numbers,
    strings, ``None`` and tuples or lists of them): what is stored from them is no module."""
    found = cls.method("__init__")  # (its own, or the one it inherits from a base of the run)
    init = found[1] if found is not None else None
    if call is None or init is None or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return set()
    a = init.args
    names = [p.arg for p in [*a.posonlyargs, *a.args]][1:]
    bound: dict[str, ast.expr] = dict(zip(names, call.args, strict=False))
    if len(call.args) > len(names):
        return set()
    defaults = dict(zip(names[len(names) - len(a.defaults):], a.defaults, strict=True))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None})
    bound.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    return {name for name in [*names, *(p.arg for p in a.kwonlyargs)]
            if _plain_data(bound.get(name, defaults.get(name)))}


def _plain_data(node: ast.expr | None) -> bool:
    """A number, string, ``None`` or bool literal (signed), or a tuple or list of them."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, (ast.Tuple, ast.List)) and all(_plain_data(e) for e in node.elts)


def builds_weights(ff: FileFlow, call: ast.Call, seen: frozenset[int] = frozenset(),
                   buffers: bool = True) -> bool | None:
    """Does the module that ``call`` (a call of ``ff``'s file) builds own weights: a
    ``torch.nn`` layer of :data:`~vocab.PARAM_LAYERS`, a torchvision model, a container
    (``nn.Sequential``, ``nn.ModuleList``, ``nn.ModuleDict``) holding such a module, a
    module class of the run that holds one (:func:`holds_parameters`)?  False for another
    ``torch.nn`` layer, a container of modules without weights only, a class of the run
    surely without them (:func:`weightless`); None when not known (a call the analysis
    cannot see into, a container given a list it did not build right there).  ``buffers``
    False: a class of the run counts its parameters only."""
    q = ff.qualname(call.func) or ""
    if q.startswith("torch.nn."):
        layer = q.rsplit(".", 1)[-1]
        if layer in vocab.CONTAINERS:
            return _container_weights(ff, call, seen, buffers)
        return layer in vocab.PARAM_LAYERS
    if q.startswith(vocab.MODEL_ZOOS) or vocab.tensor_state_metric(q):
        return True  # (a metric's state tensors meet its inputs as weights do)
    if holds_tensors(q):  # (a library module's buffers: a resampling kernel, a window)
        return buffers
    among = ff.built_among.get(id(call))
    if among is not None:  # (one of several classes: known when all agree)
        answers = {class_weights(ff, info, call, seen, buffers) for info in among}
        return answers.pop() if len(answers) == 1 else None
    info = ff.class_called(call)
    return class_weights(ff, info, call, seen, buffers) if info is not None else None


def class_weights(ff: FileFlow, info: ClassInfo, call: ast.Call, seen: frozenset[int] = frozenset(),
                  buffers: bool = True) -> bool | None:
    """:func:`builds_weights` of ``call`` building an instance of ``info``, a class of the run."""
    if not info.is_module or id(info) in seen:
        return None
    given = _given_containers(ff, info, call, seen, buffers)
    if holds_parameters(info, seen, buffers, given) or injected_weights(ff, info, call, seen, buffers):
        return True
    return False if weightless(info, seen, call, given) else None


def _given_containers(ff: FileFlow, info: ClassInfo, call: ast.Call, seen: frozenset[int],
                      buffers: bool) -> Given:
    """For ``call`` (of ``ff``'s file) building ``info``: the weights of a ``torch.nn``
    container that the class's ``__init__`` builds from one of its parameters, as it came in
    (``self.transforms = nn.ModuleList(transforms)``, ``transforms`` never rebound there),
    judged by what ``call`` gives that parameter: a literal of modules written out
    (``Compose([SpliceOut(...)])``), each known with or without weights; None for any other
    container or argument."""
    init = info.method("__init__")
    seen = seen | {id(info)}

    def weights(node: ast.Call) -> bool | None:
        if init is None or node.keywords or len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
            return None
        owner, fn = init
        q = owner.ff.qualname(node.func) or ""
        name = node.args[0].id
        names = param_names(fn)
        if not q.startswith("torch.nn.") or q.rsplit(".", 1)[-1] not in vocab.CONTAINERS or \
                name not in names[1:] or not any(n is node for n in ast.walk(fn)) or any(
                isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                for n in ast.walk(fn)):
            return None
        arg = argument_of(call, names.index(name), info)
        items = _elements(arg) if arg is not None else None
        if not items:
            return None
        found = [builds_weights(ff, i, seen, buffers) if isinstance(i, ast.Call) else None for i in items]
        if any(f is True for f in found):
            return True
        return False if all(f is False for f in found) else None

    return weights


def injected_weights(ff: FileFlow, info: ClassInfo, call: ast.Call, seen: frozenset[int] = frozenset(),
                     buffers: bool = True) -> bool:
    """Does ``call`` (of ``ff``'s file) give the module class ``info`` of the run a submodule
    with weights through its constructor: a parameter that ``__init__`` keeps as it is on
    ``self`` (``self.encoder = encoder``, no other method storing there), whose argument
    builds weights (:func:`builds_weights`: ``Seq2Seq(Encoder(...), dec)``, or a name the
    calling scope bound to such a module, ``enc = Encoder(...)``)?"""
    seen = seen | {id(info)}
    for k in kept_attributes(info).values():
        arg = argument_of(call, k, info)
        if arg is not None and _argument_weights(ff, arg, seen, buffers):
            return True
    return False


def holds_a_moved_module(ff: FileFlow, call: ast.Call, depth: int = 0) -> bool:
    """Does ``call`` (of ``ff``'s file) build a module class of the run around a module that
    may be off the CPU: a parameter its ``__init__`` keeps on ``self`` (:func:`kept_attributes`)
    given a module that was moved, whose place is not known, or that is itself built around
    such a module (``BayesNN(args, net)`` after ``net = Net().to(dev)``)?  Such a construction
    holds the argument's weights where the argument is, so it is not built on the CPU."""
    info = ff.class_called(call)
    if info is None or not info.is_module or depth >= 3:
        return False
    for k in kept_attributes(info).values():
        arg = argument_of(call, k, info)
        if isinstance(arg, ast.Call) and holds_a_moved_module(ff, arg, depth + 1):
            return True
        res = ff.scope_of(arg) if isinstance(arg, ast.Name) else None
        v = res.value(arg) if res is not None and isinstance(arg, ast.Name) else None
        if v is None or not v.is_(Kind.MODULE):
            continue
        if v.places != frozenset((CPU,)):
            return True
        made = next((o for o in v.origins if o.op is Op.MADE), None)
        if made is not None and isinstance(made.node, ast.Call) and made.path is None and \
                holds_a_moved_module(ff, made.node, depth + 1):
            return True
    return False


def kept_attributes(info: ClassInfo) -> dict[str, int]:
    """The attributes that ``info``'s ``__init__`` binds to one of its parameters kept as it
    is (``self.encoder = encoder``), and no other method of the class (or of a base in the
    run) stores: attribute -> the parameter's index (``self`` 0)."""
    init = info.method("__init__")
    if init is None:
        return {}
    owner, fn = init
    out: dict[str, int] = {}
    for attr, v in owner.ff.result(fn, owner).stores.items():
        refs = _param_refs(v)
        if len(refs) != 1 or 0 in refs or v.places != frozenset((param(next(iter(refs))),)) or any(
                m is not fn and c.ff._stores_on_self(m) and attr in c.ff.result(m, c).stores
                for c in mro(info) for m in c.methods.values()):
            continue
        out[attr] = next(iter(refs))
    return out


def argument_of(call: ast.Call, k: int, info: ClassInfo) -> ast.expr | None:
    """The argument ``call`` gives parameter ``k`` of ``info``'s ``__init__`` (``self`` 0):
    positional before any ``*args``, or by keyword; None when not written out."""
    init = info.method("__init__")
    if init is None:
        return None
    names = param_names(init[1])
    for j, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if j + 1 == k:
            return a
    name = names[k] if k < len(names) else None
    return next((kw.value for kw in call.keywords if kw.arg is not None and kw.arg == name), None)


def _argument_weights(ff: FileFlow, arg: ast.expr, seen: frozenset[int], buffers: bool) -> bool:
    """Does the module ``arg`` (an argument of a call of ``ff``'s file) own weights: a call
    that builds weights, or a name whose value there was made only by such calls (moves
    aside)?"""
    if isinstance(arg, ast.Call):
        return builds_weights(ff, arg, seen, buffers) is True
    if not isinstance(arg, ast.Name):
        return False
    res = ff.scope_of(arg)
    v = res.value(arg) if res is not None else None
    return v is not None and v.is_(Kind.MODULE) and _submodule_weights(ff, v, seen, buffers) is True


def _submodule_weights(ff: FileFlow, v: Value, seen: frozenset[int], buffers: bool = True,
                       given: Given | None = None) -> bool | None:
    """Does a submodule ``v`` stored by a method of ``ff``'s file own weights (None: not
    known; ``given``: see :func:`holds_parameters`)?"""
    made = [o for o in v.origins if o.op is Op.MADE]
    if not made or any(o.op not in (Op.MADE, Op.MOVED) for o in v.origins) or any(o.path is not None or not isinstance(o.node, ast.Call) for o in made):
        return None
    found = [_made_weights(ff, o.node, seen, buffers, given) for o in made if isinstance(o.node, ast.Call)]
    if any(f is True for f in found):
        return True
    return False if all(f is False for f in found) else None


def _made_weights(ff: FileFlow, node: ast.Call, seen: frozenset[int], buffers: bool,
                  given: Given | None) -> bool | None:
    """:func:`builds_weights` of ``node``, or where that is not known, what ``given`` tells."""
    found = builds_weights(ff, node, seen, buffers)
    return given(node) if found is None and given is not None else found


def _container_weights(ff: FileFlow, call: ast.Call, seen: frozenset[int], buffers: bool) -> bool | None:
    """Does one of the modules a ``torch.nn`` container is built with own weights (None:
    not all of them are known, or none is given: it may be filled later)?"""
    items: list[ast.expr] = []
    for a in call.args:
        if isinstance(a, ast.Starred) or not isinstance(a, ast.Call) or ff.qualname(a.func) in _ORDERED:
            more = _elements(a.value if isinstance(a, ast.Starred) else a)
            if more is None:
                return None
            items.extend(more)
        else:
            items.append(a)
    if not items or call.keywords:
        return None
    found = [builds_weights(ff, i, seen, buffers) if isinstance(i, ast.Call) else None for i in items]
    if any(f is True for f in found):
        return True
    return False if all(f is False for f in found) else None


_ORDERED = ("collections.OrderedDict", "OrderedDict", "dict")


def _elements(node: ast.expr) -> list[ast.expr] | None:
    """The modules a literal holds: a list's, tuple's or dict's (its values), a
    comprehension's element, the second item of each pair given to ``OrderedDict([...])``;
    None for anything else."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return list(node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return [node.elt]
    if isinstance(node, ast.Dict):
        return None if any(k is None for k in node.keys) else list(node.values)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        pairs = _elements(node.args[0])
        if pairs is None or not all(isinstance(p, ast.Tuple) and len(p.elts) == 2 for p in pairs):
            return None
        return [p.elts[1] for p in pairs if isinstance(p, ast.Tuple)]
    return None


_PARAMETERS = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")
_ADDS = frozenset({"add_module", "register_module", "__setattr__"})


class ClassCalls(NamedTuple):
    """What a class's text (its methods and anything nested in them) calls or reads."""

    register_parameter: bool  #: a call ``<x>.register_parameter(...)``
    register_buffer: bool  #: a call ``<x>.register_buffer(...)``
    adds_attributes: bool  #: ``setattr(...)``, ``<x>.add_module(...)``, ``<x>.__dict__``...


def class_calls(node: ast.ClassDef) -> ClassCalls:
    """The calls and reads of ``node`` that :func:`holds_parameters` and :func:`weightless`
    ask about, from one walk of the class.

    >>> tree = ast.parse("class A:\\n    def f(self):\\n        self.register_buffer('b', t)")
    >>> class_calls(tree.body[0])
    ClassCalls(register_parameter=False, register_buffer=True, adds_attributes=False)
    """
    param = buffer = adds = False
    call, attribute, name = ast.Call, ast.Attribute, ast.Name
    for n in _walk_nodes(node):
        t = type(n)
        if t is call:
            f = n.func
            if type(f) is attribute:
                param = param or f.attr == "register_parameter"
                buffer = buffer or f.attr == "register_buffer"
                adds = adds or f.attr in _ADDS
            elif type(f) is name and f.id == "setattr":
                adds = True
        elif t is attribute and n.attr == "__dict__":
            adds = True
    return ClassCalls(param, buffer, adds)


def _registers(cls: ClassInfo, buffers: bool) -> bool:
    """Does a method of the class call ``self.register_parameter`` (or, ``buffers``,
    ``self.register_buffer``)?"""
    seen = cls.calls_seen()
    return seen.register_parameter or buffers and seen.register_buffer


def _adds_attributes(cls: ClassInfo) -> bool:
    """Does a method of the class store attributes the analysis does not follow
    (``setattr``, ``self.add_module``, ``self.__dict__``)?"""
    return cls.calls_seen().adds_attributes


def _self_attribute_calls(fn: ast.AST) -> list[tuple[ast.Call, str, str]]:
    """The calls ``self.<attr>.<name>(...)`` in ``fn``, with ``attr`` and ``name``, in the
    order of :func:`ast.walk` (:func:`_walk_nodes`: the same nodes, no generators)."""
    out = []
    call, attribute, name = ast.Call, ast.Attribute, ast.Name
    for n in _walk_nodes(fn):
        if type(n) is call:
            f = n.func
            if type(f) is attribute:
                v = f.value
                if type(v) is attribute and type(v.value) is name and v.value.id == "self":
                    out.append((n, v.attr, f.attr))
    return out


#: nodes without fields: the contexts of names, the operators and the jumps
_LEAVES = frozenset((ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue,
                     *ast.operator.__subclasses__(), *ast.unaryop.__subclasses__(),
                     *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__()))


def _walk_nodes(tree: ast.AST) -> list[Any]:
    """The nodes of ``tree`` in :func:`ast.walk`'s order (breadth first, the fields in
    order) but for those of :data:`_LEAVES`, as a list that grows while it is read: the
    same nodes in about half the time.

    >>> tree = ast.parse("x = f(a + 1)")
    >>> [n for n in ast.walk(tree) if type(n) not in _LEAVES] == _walk_nodes(tree)
    True
    """
    out: list[Any] = [tree]
    add = out.append
    node_type, leaves = ast.AST, _LEAVES
    for node in out:
        for field_name in node._fields:
            v = getattr(node, field_name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, node_type) and type(x) not in leaves:
                        add(x)
            elif isinstance(v, node_type) and type(v) not in leaves:
                add(v)
    return out


def _param_refs(v: Value) -> set[int]:
    """The parameters whose places ``v`` may have."""
    return {int(p.ref) for p in v.places or () if p.where is Where.PARAM}


def _listed_refs(v: Value) -> list[set[int]]:
    """The parameters a torch function's argument holds, one set per tensor that meets the
    others: each element of a tuple, each parameter a list's elements may be
    (``torch.cat([h, mask])``), else the argument's own."""
    if v.elts is not None:
        return [_param_refs(e) for e in v.elts]
    if v.item is not None and not v.places:
        return [{i} for i in _param_refs(v.item)]
    return [_param_refs(v)]


def _parameter_itself(v: Value) -> int | None:
    """The index of the parameter ``v`` is, as it came in (not moved, not computed with)."""
    places = v.places or ()
    if len(places) != 1 or not v.origins or any(o.op is not Op.PARAM for o in v.origins):
        return None
    p = next(iter(places))
    return int(p.ref) if p.where is Where.PARAM else None


def _static(fn: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod"
               for d in getattr(fn, "decorator_list", ()))

def _the_parameter(v: Value, p: Place) -> bool:
    """Is ``v`` the parameter of place ``p`` as it came in (or a part of it that keeps
    its kind: ``x[0]``, ``x.T``), of unknown kind?"""
    return v.places == frozenset((p,)) and bool(v.origins) and v.origins[0].op is Op.PARAM \
        and v.origins[0].node is None


_NUMBER_OR_TENSOR = frozenset((Kind.SCALAR, Kind.TENSOR))


def _item_position(res: ScopeResult, v: Value, k: int) -> Position | None:
    """The position (or the literal key) at which ``v`` was taken from parameter ``k`` as
    it came in (``audio, f0 = batch``: ``f0`` is item 1 of ``batch``; ``r["d"]``), or None."""
    for o in v.origins:
        if o.op is Op.PARAM and o.node is not None:
            found = res.param_items.get(id(o.node))
            if found is not None and found[0] == k:
                return found[1]
    return None


def _passed_at(a: Value, position: Position) -> Value:
    """What a call passes at ``position`` of a tuple or list argument (``(audio, f0)``:
    its item there; a list's joined item when every item is a tensor away from the CPU),
    or at a key of a dict the analysis knows (``{"d": out, "n": 3}``: its value there; a
    dict comprehension's values when one operation placed every one of them,
    ``{k: v.to(dev) for k, v in sd.items()}``), or at any key of a dict (a loop over its
    keys: the join of its values), else the argument itself (unknown at that position:
    its own places, a container's none)."""
    if position is AnyKey.VALUE:
        values = [*(x for _, x in a.keys or ()), *((a.item,) if a.item is not None else ())]
        return join_all(values) if a.elts is None and values else a
    if isinstance(position, str):
        known = dict(a.keys).get(position) if a.keys is not None else None
        if known is None and a.keys is None and a.elts is None and a.item is not None and _placed_once(a.item):
            return a.item
        return known if known is not None else a
    if a.elts is not None and -len(a.elts) <= position < len(a.elts):
        return a.elts[position]
    item = a.item
    if a.elts is None and item is not None and item.kinds and item.kinds <= {Kind.TENSOR, Kind.BATCH} \
            and item.places and CPU not in item.places:
        return item
    return a


#: the operations that put a value where it is
_PLACING = frozenset((Op.MADE, Op.MOVED, Op.LOADED, Op.OUTPUT, Op.BATCH))


def _placed_once(v: Value) -> bool:
    """Is ``v`` (the joined value of a container) a tensor, or a value of unknown kind, at
    known places, that one operation placed (its first origin, the only one that places:
    every value of the container came from it), its origins all kept?"""
    placing = [o for o in v.origins if o.op in _PLACING]
    return bool(v.places) and (v.kinds is None or v.kinds <= {Kind.TENSOR, Kind.BATCH}) and \
        len(placing) == 1 and placing[0] is v.origins[0] and len(v.origins) < ORIGIN_CAP


#: bases outside the run whose ``__init__`` sets none but their own private attributes
#: (the batch and event shapes of a distribution) and that define no ``__getattr__`` or
#: ``__setattr__``: a subclass stores what it is given as a plain class does
PLAIN_LIBRARY_BASES = frozenset({"torch.distributions.Distribution",
                                 "torch.distributions.distribution.Distribution"})


def _plain_class(cls: ClassInfo) -> bool:
    """Is every base of the class (and of its bases) ``object``, a class of the run or one
    of :data:`PLAIN_LIBRARY_BASES`, and does none define ``__getattr__``,
    ``__getattribute__`` or ``__setattr__``?"""
    for c in mro(cls):
        if any(name in c.methods for name in ("__getattr__", "__getattribute__", "__setattr__")):
            return False
        resolved = len(c.bases)
        plain = sum(isinstance(b, ast.Name) and b.id == "object" or c.ff.qualname(b) in PLAIN_LIBRARY_BASES
                    for b in c.node.bases)
        if resolved + plain != len(c.node.bases) or c.node.keywords:
            return False
    return True


def _loader_attr(v: Value | None) -> bool:
    """Is ``v`` a loader the class built (``self.train = DataLoader(train_set, ...)``), of
    one construction, whose batches are unknown or at known, concrete places (a loader has
    no place of its own: where its batches are is what the rules read of it)?"""
    return v is not None and v.kinds == frozenset((Kind.LOADER,)) and len(v.origins) == 1 \
        and v.origins[0].op is Op.MADE and (v.item is None or _concrete(v.item))


def _concrete(v: Value) -> bool:
    """Is ``v`` of known kinds at known, concrete places: a tensor (or another value) at
    places none of which is a parameter's, or a container whose parts all are so?"""
    if v.kinds is None or v.places is None or any(p.symbolic for p in v.places):
        return False
    if v.places:
        return True
    parts = [*(v.elts or ()), *(x for _, x in v.keys or ()), *((v.item,) if v.item is not None else ())]
    return bool(parts) and all(_concrete(x) for x in parts)


def _top_statement(body: list[ast.stmt], node: ast.AST | None) -> int | None:
    """The index of the statement of ``body`` that holds ``node`` (None: none does)."""
    if node is None:
        return None
    for k, st in enumerate(body):
        if any(n is node for n in ast.walk(st)):
            return k
    return None


def mro(cls: ClassInfo) -> Iterator[ClassInfo]:
    """``cls`` and its bases in the run, each once (nearest first).  Kept on the class
    once every class on the way had its bases found (:attr:`ClassInfo.settled`: they no
    longer change); computed again otherwise.

    >>> tree = ast.parse("class A: pass\\nclass B(A): pass\\nclass C(B, A): pass\\n")
    >>> ff = FileFlow(tree, "<example>")
    >>> c = ff.class_info(tree.body[2])
    >>> [k.node.name for k in mro(c)], c.mro_memo is not None
    (['C', 'B', 'A'], True)
    """
    got = cls.mro_memo
    if got is None and cls.settled:
        order = list(_mro(cls))  # (no code runs between two steps: the bases as they are now)
        if all(c.settled for c in order):
            got = cls.mro_memo = tuple(order)
    return iter(got) if got is not None else _mro(cls)


def _mro(cls: ClassInfo) -> Iterator[ClassInfo]:
    """:func:`mro` found by going through the bases, step by step."""
    seen: set[int] = set()
    todo = [cls]
    while todo:
        c = todo.pop(0)
        if id(c) in seen:
            continue
        seen.add(id(c))
        yield c
        todo.extend(c.bases)


def _as_attribute(v: Value, module: bool) -> Value:
    """A stored value as the class table keeps it: in an ``nn.Module``, submodules and
    parameters follow the model (their place is ``self``'s); another method's parameters
    mean nothing in the table."""
    registered = v.is_(Kind.TENSOR) and (v.places == {param(0)} or bool(v.origins) and v.origins[0]
                                         .text.startswith(vocab.REGISTERED))
    if module and (v.is_(Kind.MODULE) or registered):
        return Value(v.kinds, frozenset((param(0),)), v.origins, v.basis)
    if v.places is None:
        return v
    if any(p.where is Where.PARAM and p != param(0) for p in v.places):
        return Value(v.kinds, None, v.origins, min(v.basis, Basis.INFERRED))
    return v


_DTYPE_NAMES = frozenset(
    "float float32 float64 double float16 half bfloat16 int int8 int16 int32 int64 long "
    "uint8 bool complex64 complex128 cfloat cdouble short".split()
)

__all__ = ["BOTTOM", "ClassInfo", "FileFlow", "Place"]

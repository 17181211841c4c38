"""Branches on the same fixed test: a move in one arm, a use in the other.

A class that picks its device once, in ``__init__``, and tests the same flag again where it
uses the model::

    if self.training == True:
        self.net = Net().cuda()
    else:
        self.net = Net()
    ...
    if self.training == True:
        out = self.net(x.cuda())
    else:
        out = self.net(x)        # the model is on the CPU here: the test chose so

The analysis joins the attribute over both arms of ``__init__`` ("may be on the device")
and does not relate the two tests.  :func:`other_arm_of_move` does, in this structural case
only: the test has the same text at both places (up to a leading ``not``, which swaps
the arms), and it reads nothing but attributes of
``self`` that no method but ``__init__`` assigns (not ``training`` of an ``nn.Module``,
which ``train()`` and ``eval()`` set) and module-level names that no function rebinds
(``global``).

:func:`global_in_arm` does the same for a script's globals: a model bound in each arm of a
module-level ``if T:`` (``model = Big().to(device)`` / ``model = Small()``) and called in
a function under ``if T:`` again is, there, the value of the matching arm.

:func:`entry_arm_move` finds the move of a script's global in place in the arm of a
module-level ``if __name__ == "__main__":`` (or ``if torch.cuda.is_available():``) that
precedes every run of a function reading it: the analysis joins the global over the arm
and its absence, but a function that nothing runs before the move (a route a framework
starts, a function the arm calls after it) sees the moved model.

:func:`off_device_arm` tells whether a place is in the arm of a fixed device test where
nothing of the file goes to a device (``else`` of ``if torch.cuda.is_available():`` when
every move of the file is in its body): a CPU tensor there meets none on the device.

:func:`flag_arm_move` finds the moves of a value that all run in the true arm of one fixed
device flag (``if args.cuda: x = x.cuda()``): the analysis joins the value over the flag's
two arms, but where the flag is true every such move happens, so a model the code never
moves meets the moved value there.  :func:`param_flag_move` does the same for a
function's parameter moved so (``def train(model): if torch.cuda.is_available(): model =
model.cuda()``): where the flag is true it is on the accelerator, whatever its caller gave.

:func:`plain_on_one_gpu` tells whether a data-parallel wrapper is made only in the body of
``if torch.cuda.device_count() > 1:``: on a machine with one GPU the module stays plain.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchferry.check.flow.converted import param_names
from torchferry.check.flow.holders import moved_under_flag
from torchferry.check.flow.lattice import ACCEL, CPU, Op, Origin, Value, Where, join, outside
from torchferry.check.flow.program import FileFlow
from torchferry.check.flow.vocab import ACCEL_MOVE_NAMES, WRAPPERS


def other_arm_of_move(ff: FileFlow, site: ast.AST, moved: Origin) -> bool:
    """Is ``site`` in the arm of ``if T:`` (in a method of the class) other than the arm of
    the same ``if T:`` in that class's ``__init__`` that made the move ``moved``, with the
    other arm of ``__init__`` moving nothing and ``T`` fixed after ``__init__``?"""
    if moved.path is not None or moved.node is None:
        return False
    found = _enclosing_if(ff.tree, moved.node)
    if found is None:
        return False
    init_if, in_body, cls, init = found
    if init.name != "__init__" or any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ACCEL_MOVE_NAMES
            for st in (init_if.orelse if in_body else init_if.body) for n in ast.walk(st)):
        return False
    if not _fixed_test(ff, cls, init_if.test):
        return False
    test, negated = _plain(init_if.test)
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(fn):
            if not isinstance(n, ast.If) or n is init_if:
                continue
            text, flipped = _plain(n.test)
            if text == test:
                here = n.orelse if in_body ^ negated ^ flipped else n.body
                if any(x is site for st in here for x in ast.walk(st)):
                    return True
    return False


def _plain(test: ast.expr) -> tuple[str, bool]:
    """The text of a test without its leading ``not`` s, and whether there was an odd
    number of them (``not self.gpu`` -> ``("self.gpu", True)``)."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    return ast.unparse(test), negated


_Found = tuple[ast.If, bool, ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]


def _enclosing_if(tree: ast.Module, node: ast.AST) -> _Found | None:
    """The innermost ``if`` statement around ``node`` in a method of a class of the file:
    (the ``if``, whether ``node`` is in its body, the class, the method), or None."""
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            best: _Found | None = None
            for n in ast.walk(fn):
                if not isinstance(n, ast.If):
                    continue
                for arm, in_body in ((n.body, True), (n.orelse, False)):
                    if any(x is node for st in arm for x in ast.walk(st)):
                        best = (n, in_body, cls, fn)  # (walk order: outer first, inner later)
            if best is not None:
                return best
    return None


def _fixed_test(ff: FileFlow, cls: ast.ClassDef, test: ast.expr) -> bool:
    """Does ``test`` read only constants, ``self`` attributes that only ``__init__`` assigns
    and module-level names no function rebinds, through comparisons and ``and``/``or``/``not``?"""
    rebound = {name for n in ast.walk(ff.tree) if isinstance(n, (ast.Global, ast.Nonlocal))
               for name in n.names}
    module_names = {t.id for st in ff.tree.body if isinstance(st, (ast.Assign, ast.AnnAssign))
                    for tgt in (st.targets if isinstance(st, ast.Assign) else [st.target])
                    for t in ast.walk(tgt) if isinstance(t, ast.Name)}
    is_module = ff.class_info(cls).is_module
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute):
            if not (isinstance(n.value, ast.Name) and n.value.id == "self") or \
                    is_module and n.attr == "training" or _assigned_after_init(cls, n.attr):
                return False
        elif isinstance(n, ast.Name):
            if n.id != "self" and (n.id not in module_names or n.id in rebound):
                return False
        elif not isinstance(n, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Constant, ast.cmpop,
                                ast.boolop, ast.Not, ast.expr_context)):
            return False
    return True


def _assigned_after_init(cls: ast.ClassDef, attr: str) -> bool:
    """Does a method of the class other than ``__init__`` assign ``self.<attr>`` (or call
    ``setattr``)?"""
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name == "__init__":
            continue
        for n in ast.walk(fn):
            targets = n.targets if isinstance(n, ast.Assign) else \
                [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
            if any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                   and t.value.id == "self" for tgt in targets for t in ast.walk(tgt)):
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
                return True
    return False


def global_in_arm(ff: FileFlow, site: ast.AST, name: str, seen: Value) -> Value | None:
    """The value of the module-level ``name`` at ``site`` (in a function of the file), where
    the analysis sees ``seen``, when ``seen`` is the join of what the two arms of a
    module-level ``if T:`` bind to ``name`` (once in each arm) and ``site`` is in an arm of
    an ``if T:`` of the same text (up to a leading ``not``) in that function: the value the
    matching arm bound.  ``T`` reads only module-level names bound once and no function
    rebinds, and attributes of them that nothing assigns (``args.model == "Transformer"``)."""
    res = ff.module_result()
    for mod_if, body_value, else_value in _module_ifs(ff.tree, name):
        a, b = res.value(body_value), res.value(else_value)
        if a is None or b is None or outside(join(a, b)) != outside(seen) or not _fixed_module_test(ff, mod_if.test):
            continue
        test, negated = _plain(mod_if.test)
        arm = _arm_of(ff.tree, site, test)
        return None if arm is None else a if arm ^ negated else b
    return None


def _module_ifs(tree: ast.Module, name: str) -> Iterator[tuple[ast.If, ast.expr, ast.expr]]:
    """The module-level ``if`` statements whose arms each bind ``name`` once (``name =
    ...``): (the ``if``, the value of each arm's binding)."""
    for st in tree.body:
        if not isinstance(st, ast.If) or not _binds(st, name):
            continue
        arms = []
        for body in (st.body, st.orelse):
            binding = [s for s in body if _binds(s, name)]
            if len(binding) != 1 or not isinstance(binding[0], ast.Assign) or len(binding[0].targets) != 1 \
                    or not isinstance(binding[0].targets[0], ast.Name):
                break
            arms.append(binding[0].value)
        if len(arms) == 2:
            yield st, arms[0], arms[1]


def _binds(st: ast.stmt, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
               or isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names
               or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
               for n in ast.walk(st))


def _arm_of(tree: ast.Module, site: ast.AST, test: str) -> bool | None:
    """Whether ``site`` is in the body (True) or the ``else`` (False) of an ``if`` of the
    test ``test`` (up to a leading ``not``) in a function of the file; None when in none."""
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for n in ast.walk(fn):
            if not isinstance(n, ast.If):
                continue
            text, flipped = _plain(n.test)
            if text != test or any(isinstance(x, ast.Name) and x.id in local for x in ast.walk(n.test)):
                continue  # (a local of the same name is another value)
            for body, in_body in ((n.body, True), (n.orelse, False)):
                if any(x is site for st in body for x in ast.walk(st)):
                    return in_body ^ flipped
    return None


def _fixed_module_test(ff: FileFlow, test: ast.expr) -> bool:
    """Does ``test`` read only constants, module-level names that no function rebinds
    (``global``), and attributes of them that the file never assigns, through comparisons
    and ``and``/``or``/``not``?"""
    rebound = {name for n in ast.walk(ff.tree) if isinstance(n, (ast.Global, ast.Nonlocal))
               for name in n.names}
    assigned = {n.attr for n in ast.walk(ff.tree) if isinstance(n, ast.Attribute)
                and isinstance(n.ctx, (ast.Store, ast.Del))}
    setattr_called = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
                         for n in ast.walk(ff.tree))
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute):
            if not isinstance(n.value, ast.Name) or n.attr in assigned or setattr_called:
                return False
        elif isinstance(n, ast.Name):
            if n.id in rebound or sum(_binds(st, n.id) for st in ff.tree.body) != 1:
                return False
        elif not isinstance(n, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Constant, ast.cmpop,
                                ast.boolop, ast.Not, ast.expr_context)):
            return False
    return True


#: a call that may put a value on an accelerator, or make one there (``.cuda()``,
#: ``.to(d)``, ``torch.set_default_tensor_type("torch.cuda.FloatTensor")``)
_PLACING_CALLS = ACCEL_MOVE_NAMES | {"type", "set_default_tensor_type", "set_default_device"}
_ACCEL_WORDS = ("cuda", "mps", "xla", "xpu", "npu", "hpu")
_Arm = tuple[str, bool, ast.expr]


def off_device_arm(ff: FileFlow, sites: list[ast.AST]) -> bool:
    """Is one of ``sites`` in an arm of ``if T:`` (or ``a if T else b``) where ``T`` has the
    value under which nothing of the file is on an accelerator: every place in the file that
    may put or make a value there (a move, a device, a default tensor type, a load) is in an
    arm of a test of the same text (up to a leading ``not``) with the other value, and ``T``
    is fixed for the run (``torch.cuda.is_available()``, a module-level ``args.cuda`` no
    code assigns, a ``self.use_gpu`` only ``__init__`` sets)?  Then on that path the
    CPU tensor made there meets no tensor on a device."""
    arms = _arms_of(ff.tree)
    places = [n for n in ast.walk(ff.tree) if _may_place(n)]
    if not places:
        return False
    for site in sites:
        for text, value, test in arms.get(id(site), ()):
            if all(any(t == text and v != value for t, v, _ in arms.get(id(p), ())) for p in places) \
                    and _fixed_device_test(ff, test, [site, *places]):
                return True
    return False


def _arms_of(tree: ast.Module) -> dict[int, tuple[_Arm, ...]]:
    """For every node, the arms of ``if`` statements and conditional expressions it is in:
    (the test's text without leading ``not`` s, the value the test has there, the test)."""
    out: dict[int, tuple[_Arm, ...]] = {}
    todo: list[tuple[ast.AST, tuple[_Arm, ...]]] = [(tree, ())]
    while todo:
        node, around = todo.pop()
        out[id(node)] = around
        if isinstance(node, (ast.If, ast.IfExp)):
            text, negated = _plain(node.test)
            body = node.body if isinstance(node.body, list) else [node.body]
            orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
            todo.append((node.test, around))
            todo.extend((st, (*around, (text, not negated, node.test))) for st in body)
            todo.extend((st, (*around, (text, negated, node.test))) for st in orelse)
        else:
            todo.extend((ch, around) for ch in ast.iter_child_nodes(node))
    return out


def _may_place(node: ast.AST) -> bool:
    """May ``node`` put or make a value on an accelerator: a move or retype, a call of
    ``torch.cuda`` (``torch.cuda.FloatTensor(n)``), ``torch.device(...)``, a load, a
    ``device=`` or ``map_location=`` other than ``x.device`` or ``"cpu"``, or a string
    naming an accelerator (``"cuda:0"``, ``"torch.cuda.FloatTensor"``)?"""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value.lower()
        return any(text == w or text.startswith((f"{w}:", f"torch.{w}.")) for w in _ACCEL_WORDS)
    if not isinstance(node, ast.Call):
        return False
    func = ast.unparse(node.func)
    last = func.rsplit(".", 1)[-1]
    keywords = {k.arg: k.value for k in node.keywords}
    if any(k in ("device", "map_location") and not _cpu_or_follows(v) for k, v in keywords.items()):
        return True
    if ".cuda." in f".{func}." and last not in _NOT_PLACING_CUDA:
        return True
    if last == "load":
        return func == "torch.load" and "map_location" not in keywords
    if last == "device":
        return not (len(node.args) == 1 and _cpu_or_follows(node.args[0]))
    return isinstance(node.func, ast.Attribute) and last in _PLACING_CALLS and \
        bool(node.args or node.keywords or last != "type")


#: calls of ``torch.cuda`` that place no value
_NOT_PLACING_CUDA = frozenset({"is_available", "device_count", "manual_seed", "manual_seed_all",
                               "empty_cache", "synchronize"})


def _cpu_or_follows(value: ast.expr) -> bool:
    """``"cpu"``, ``torch.device("cpu")`` or ``x.device``: no new accelerator."""
    if isinstance(value, ast.Attribute) and value.attr == "device":
        return True
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "torch.device" and len(value.args) == 1:
        value = value.args[0]
    return isinstance(value, ast.Constant) and value.value == "cpu"


def _fixed_device_test(ff: FileFlow, test: ast.expr, sites: list[ast.AST]) -> bool:
    """Is ``test`` the same value everywhere in the run: built of
    ``torch.cuda.is_available()``, constants, module-level names bound once that no function
    rebinds and attributes of them that nothing assigns (``args.cuda``), and attributes of
    ``self`` that only ``__init__`` assigns (all ``sites`` then in one class), through
    comparisons and ``and`` / ``or`` / ``not``?"""
    todo: list[ast.AST] = [test]
    reads_self = False
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} - {"self", "torch"}
    if names and _shadowed(ff.tree, names, sites):
        return False
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Call):
            if n.args or n.keywords or not ast.unparse(n.func).endswith("cuda.is_available"):
                return False
            continue
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            reads_self = True
            continue
        if isinstance(n, (ast.Attribute, ast.Name)):
            if not _fixed_module_test(ff, n):
                return False
            continue
        if not isinstance(n, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Constant, ast.cmpop,
                              ast.boolop, ast.Not, ast.expr_context)):
            return False
        todo.extend(ast.iter_child_nodes(n))
    if not reads_self:
        return True
    classes = {id(found[2]) if (found := _enclosing_if(ff.tree, s)) else None for s in sites}
    if len(classes) != 1 or None in classes:
        return False
    found = _enclosing_if(ff.tree, sites[0])
    return found is not None and _fixed_test(ff, found[2], test)


def _shadowed(tree: ast.Module, names: set[str], sites: list[ast.AST]) -> bool:
    """Is one of ``names`` a parameter or local of a function around one of ``sites``
    (another value than the module-level one, perhaps another at each call)?"""
    ids = {id(s) for s in sites}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if local & names and any(id(x) in ids for x in ast.walk(fn)):
            return True
    return False


def flag_arm_move(ff: FileFlow, v: Value, site: ast.AST) -> Origin | None:
    r"""The latest move of ``v`` (``x = x.cuda()``) when ``v`` may live on the CPU or an
    accelerator, every move of it is in this file in the true arm of ``if F:`` for one device
    flag ``F`` fixed for the run (:func:`_device_flag`: ``args.cuda``,
    ``use_cuda = torch.cuda.is_available()``), nothing else of it may be on a device, and
    ``site`` is in no arm where ``F`` is false.  Where the flag is true (on a GPU machine)
    the moves have all run: ``v`` is on the accelerator there.  None otherwise.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\nimport sys\ncuda = torch.cuda.is_available()\n"
    ...        "x = torch.ones(2)\nif cuda:\n    x = x.cuda()\ny = x + 1\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> site = tree.body[-1].value
    >>> flag_arm_move(ff, ff.module_result().value(site.left), site).line
    6
    """
    if not v.places or v.places != {CPU, ACCEL} or any(
            o.op not in (Op.MOVED, Op.MADE, Op.BATCH) for o in v.origins):
        return None
    return _moves_under_one_flag(ff, v, site)


def param_flag_move(ff: FileFlow, v: Value, site: ast.AST) -> Origin | None:
    r""":func:`flag_arm_move` for a parameter of the function as it came in, joined with
    its moves in the true arm of one fixed device flag (``if torch.cuda.is_available():
    model = model.cuda()`` in ``def train(model):``): ``v`` may live where one parameter
    does or on an accelerator, and came from nothing but that parameter and moves of it.
    Where the flag is true the moves have all run, wherever the caller's argument was:
    ``v`` is on the accelerator there, at ``site`` (a use, or the call that hands ``v``
    on) in no arm where the flag is false.  None otherwise.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\ndef train(model):\n    if torch.cuda.is_available():\n"
    ...        "        model = model.cuda()\n    run(model)\ndef run(m):\n    pass\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> call = tree.body[1].body[-1].value
    >>> res = ff.scope_of(call)
    >>> param_flag_move(ff, res.value(call.args[0]), call).line
    4
    """
    params = {p for p in v.places or () if p.where is Where.PARAM}
    if len(params) != 1 or (v.places or set()) - params != {ACCEL} or any(
            o.op not in (Op.MOVED, Op.PARAM) for o in v.origins):
        return None
    return _moves_under_one_flag(ff, v, site)


def _moves_under_one_flag(ff: FileFlow, v: Value, site: ast.AST) -> Origin | None:
    """The latest move of ``v`` when every move of it is in this file, to an accelerator,
    in the true arm of one fixed device flag (:func:`_device_flag`) and ``site`` is in no
    arm where that flag is false; None otherwise."""
    moves = [o for o in v.origins if o.op is Op.MOVED]
    if not moves or any(o.node is None or o.path is not None or o.to != frozenset({ACCEL}) for o in moves):
        return None
    arms = _arms_of(ff.tree)
    common: set[str] | None = None
    tests: dict[str, ast.expr] = {}
    for o in moves:
        true = {text: test for text, value, test in arms.get(id(o.node), ()) if value}
        tests.update(true)
        common = set(true) if common is None else common & set(true)
    nodes: list[ast.AST] = [site, *(o.node for o in moves if o.node is not None)]
    for text in sorted(common or ()):
        if not any(t == text and not value for t, value, _ in arms.get(id(site), ())) \
                and _device_flag(ff, tests[text], nodes):
            return max(moves, key=lambda o: (o.line, o.column))
    return None


def move_on_a_path(ff: FileFlow, v: Value, site: ast.AST,
                   avoid: frozenset[str] = frozenset()) -> Origin | None:
    r"""The latest move of ``v``, read at ``site``, when ``v`` may live on the CPU or an
    accelerator (made, taken from a batch or a parameter, at no place of a parameter) and
    every move of it goes to a device that may be an accelerator, in arms (of its own file:
    this one, or another file of the run, a generator there that moves what it yields) of
    tests of a setting of the run (:func:`_setting`: ``if cuda: data = data.cuda()``; not
    ``if x.sum() > 0:``), or in the arm where ``torch.cuda.is_available()`` holds (taken on
    every machine with a GPU), that the file does not fix against the arm
    (:func:`_fixed_against`; for a move of another file, neither does this file), that
    ``site`` is in no other arm of, and that read no name
    or attribute of ``avoid`` (``if next(model.parameters()).is_cuda:`` moves the input
    only where the model already is).  On the path that runs the moves, ``v`` is on the
    device the code chose: a module that no path moves fails there.  None otherwise.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\ndef f(cuda):\n    x = torch.ones(2)\n    if cuda:\n"
    ...        "        x = x.cuda()\n    if not cuda:\n        return x\n    return x + 1\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "f")
    >>> ret, early = tree.body[1].body[-1].value, tree.body[1].body[2].body[0].value
    >>> move_on_a_path(ff, res.value(ret.left), ret).line
    5
    >>> move_on_a_path(ff, res.value(early), early) is None
    True
    >>> move_on_a_path(ff, res.value(ret.left), ret, frozenset({"cuda"})) is None
    True
    """
    if v.places != {CPU, ACCEL} or any(o.op not in (Op.MOVED, Op.MADE, Op.BATCH, Op.PARAM) for o in v.origins):
        return None
    moves = [o for o in v.origins if o.op is Op.MOVED]
    if not moves or any(o.node is None or o.to is None or ACCEL not in o.to
                        or not o.to <= {CPU, ACCEL} for o in moves):
        return None
    trees = _move_trees(ff, moves)
    if trees is None:
        return None
    arms = {path: _arms_of(tree) for path, tree in trees.items()}
    apart = {(text, not value) for text, value, _ in arms[None].get(id(site), ())}
    for o in moves:
        if id(o.node) not in arms[o.path]:
            return None  # (a node of another reading of the file)
        for text, value, test in arms[o.path][id(o.node)]:
            if (text, value) in apart or not (_setting(test) or value and _availability(test)) or \
                    any(_fixed_against(tree, test, value) for tree in {id(t): t for t in (
                        trees[o.path], ff.tree)}.values()) or any(
                    isinstance(n, ast.Name) and n.id in avoid or isinstance(n, ast.Attribute) and n.attr in avoid
                    for n in ast.walk(test)):
                return None
    # (the latest move of this file; of another file's, the latest there)
    return max(moves, key=lambda o: (o.path is None, o.line, o.column))


def _move_trees(ff: FileFlow, moves: list[Origin]) -> dict[str | None, ast.Module] | None:
    """The syntax tree of the file of each move (None: this file), read through the run
    (a generator method of another file's class that moves the batches it yields, ``if
    params.cuda: x = x.cuda()``); None when a file is not in the run."""
    out: dict[str | None, ast.Module] = {None: ff.tree, ff.path: ff.tree}
    for o in moves:
        if o.path is None or o.path in out:
            continue
        other = ff.project.file_flow(o.path) if ff.project is not None else None
        if other is None:
            return None
        out[o.path] = other.tree
    return out


def _availability(test: ast.expr) -> bool:
    """Is ``test``, under any ``not`` s, the machine's own answer, ``torch.cuda.is_available()``
    (true on a machine with a GPU: there the arm where it holds runs)?"""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Call) and not test.args and not test.keywords and \
        ast.unparse(test.func).endswith("cuda.is_available")


def _setting(test: ast.expr) -> bool:
    """Is ``test`` a setting of the run, not a fact of the data: a name or an attribute of
    one (``cuda``, ``args.cuda``, ``self.use_gpu``), under any ``not`` s?"""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    while isinstance(test, ast.Attribute):
        test = test.value
    return isinstance(test, ast.Name)


def _fixed_against(tree: ast.Module, test: ast.expr, value: bool) -> bool:
    r"""Is the arm where ``test``, without its leading ``not`` s, has ``value`` never
    taken, as far as the file says: the
    test is a constant (``if False:``), or a name or attribute (``use_cuda``, ``args.cuda``,
    under any ``not`` s) whose every binding in the file is a constant, none of which gives
    the arm's value?  A binding by anything else (a call, a parameter, ``global``) may
    give either.

    >>> tree = ast.parse("use_cuda = False\nif use_cuda:\n    pass\n")
    >>> _fixed_against(tree, tree.body[1].test, True), _fixed_against(tree, tree.body[1].test, False)
    (True, False)
    """
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand  # (``value`` is that of the test without them, as ``_arms_of`` gives)
    if isinstance(test, ast.Constant):
        return bool(test.value) is not value
    stores: list[ast.AST]
    if isinstance(test, ast.Name):
        stores = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == test.id
                  and not isinstance(n.ctx, ast.Load)]
        stores += [n for n in ast.walk(tree) if isinstance(n, ast.arg) and n.arg == test.id]
    elif isinstance(test, ast.Attribute):
        stores = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == test.attr
                  and not isinstance(n.ctx, ast.Load)]
    else:
        return False
    given = [_constant_binding(tree, n) for n in stores]
    return bool(given) and all(g is not None and bool(g.value) is not value for g in given)


def _constant_binding(tree: ast.Module, target: ast.AST) -> ast.Constant | None:
    """The constant ``target`` is bound to by a plain assignment (``x = False``), else None."""
    for st in ast.walk(tree):
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(st.value, ast.Constant) and \
                any(t is target for t in (st.targets if isinstance(st, ast.Assign) else [st.target])):
            return st.value
    return None


def _device_flag(ff: FileFlow, test: ast.expr, sites: list[ast.AST]) -> bool:
    """Is ``test`` fixed for the run (:func:`_fixed_device_test`), or a name or an attribute
    (``args.cuda``) that one module-level statement binds, to such a test (``args.cuda =
    not args.no_cuda and torch.cuda.is_available()``), that nothing else binds and that no
    function declares ``global``, with every module-level ``site`` after that statement?"""
    if _fixed_device_test(ff, test, sites):
        return True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not (isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)):
        return False
    text = ast.unparse(test)
    stores = [n for n in ast.walk(ff.tree) if isinstance(n, ast.Attribute) and n.attr == test.attr
              and isinstance(n.ctx, (ast.Store, ast.Del))]
    binding = [st for st in ff.tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1
               and ast.unparse(st.targets[0]) == text]
    if len(stores) != 1 or len(binding) != 1 or stores[0] is not binding[0].targets[0] or any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
            for n in ast.walk(ff.tree)) or _shadowed(ff.tree, {test.value.id}, sites):
        return False
    value = binding[0].value
    if not any(isinstance(n, ast.Call) and ast.unparse(n.func).endswith("cuda.is_available")
               for n in ast.walk(value)) or not _fixed_device_test(ff, value, []):
        return False
    inside = {id(x) for fn in ast.walk(ff.tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
              for x in ast.walk(fn)}
    return all(id(s) in inside or getattr(s, "lineno", 0) > binding[0].lineno for s in sites)


def entry_arm_move(ff: FileFlow, fn: ast.AST, name: str, model: Value) -> Origin | None:
    """The move of the global ``name`` in place (``model.to(device)`` as a statement of the
    arm itself, to a device the code chose) by a module-level ``if __name__ ==
    "__main__":`` or ``if torch.cuda.is_available():`` that ``model``, the global as the
    function ``fn`` reads it, holds, when no code of this file runs ``fn`` before that move:
    every call of ``fn`` is in the arm after it, or in a function of the file so called
    (three calls deep), or there is none (a route the arm's ``app.run()`` serves).  Run
    from a file that imports this one, ``fn`` sees the model unmoved, on the CPU with its
    input.  None otherwise (complete once :meth:`FileFlow.results` has been consumed).

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\\nmodel = torch.nn.Linear(2, 2)\\ndef run(x):\\n    return model(x)\\n"
    ...        "if __name__ == '__main__':\\n    model.to('cuda')\\n    run(torch.ones(2))\\n")
    >>> ff = analyze(ast.parse(src), "<example>")
    >>> res = [r for r in ff.results() if isinstance(r.node, ast.FunctionDef)][0]
    >>> model = next(c.func for c in res.calls.values() if c.node.lineno == 4)
    >>> entry_arm_move(ff, res.node, "model", model).line
    6
    """
    for o in model.origins:
        if o.op is not Op.MOVED or o.path is not None or o.to is None or ACCEL not in o.to \
                or any(p.symbolic for p in o.to):
            continue
        found = _arm_statement(ff, o.node, name)
        if found is not None and _runs_after(ff, fn, found[0], found[1], 0):
            return o
    return None


def _arm_statement(ff: FileFlow, move: ast.AST | None, name: str) -> tuple[ast.If, int] | None:
    """The module-level entry arm (:func:`_entry_test`) whose body has the statement
    ``name.to(...)`` / ``name.cuda()`` that is ``move``, and that statement's index."""
    func = move.func if isinstance(move, ast.Call) else None
    if not isinstance(func, ast.Attribute) or func.attr not in ACCEL_MOVE_NAMES \
            or not isinstance(func.value, ast.Name) or func.value.id != name:
        return None
    for st in ff.tree.body:
        if isinstance(st, ast.If) and _entry_test(st.test):
            for i, inner in enumerate(st.body):
                if isinstance(inner, ast.Expr) and inner.value is move:
                    return st, i
    return None


def _entry_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` or ``torch.cuda.is_available()``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = {ast.unparse(test.left), ast.unparse(test.comparators[0])}
        return sides in ({"__name__", "'__main__'"}, {"__name__", '"__main__"'})
    return isinstance(test, ast.Call) and not test.args and ast.unparse(test.func) == "torch.cuda.is_available"


def _runs_after(ff: FileFlow, fn: ast.AST, arm: ast.If, i: int, depth: int) -> bool:
    """Does every call of ``fn`` in this file come after statement ``i`` of ``arm`` (in the
    arm, or in a function only so called)?"""
    after = arm.body[i].end_lineno or arm.body[i].lineno
    for call_id, (caller, _) in ff.call_sites.get(id(fn), {}).items():
        event = caller.calls.get(call_id)
        if event is None:
            return False
        if isinstance(caller.node, ast.Module):
            if not after < event.node.lineno <= (arm.end_lineno or 0):
                return False
        elif depth >= 3 or caller.node is fn or not _runs_after(ff, caller.node, arm, i, depth + 1):
            return False
    return True


def plain_on_one_gpu(ff: FileFlow, site: ast.AST, model: Value) -> bool:
    """Is every data-parallel wrapper ``model`` may be (``nn.DataParallel(m)``) bound back to
    the name it wraps in the body of an ``if`` that asks for more than one GPU (``if
    torch.cuda.device_count() > 1: model = nn.DataParallel(model)``), with no ``else``
    binding that name and ``site`` after the ``if``, not in it?  On a machine with one GPU
    the body is skipped, and ``site`` sees the plain module.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\\nm = torch.nn.Linear(2, 2)\\n"
    ...        "if torch.cuda.device_count() > 1:\\n    m = torch.nn.DataParallel(m)\\n"
    ...        "m.cuda()\\ny = m(torch.ones(2))\\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> call = tree.body[-1].value
    >>> plain_on_one_gpu(ff, call, ff.module_result().calls[id(call)].func)
    True
    """
    wrappers = [o for o in model.origins if o.op is Op.MADE and
                o.text.split("(", 1)[0].rsplit(".", 1)[-1] in WRAPPERS]
    return bool(wrappers) and all(
        o.path is None and isinstance(o.node, ast.Call) and _skipped_on_one_gpu(ff, o.node, site)
        for o in wrappers)


def _skipped_on_one_gpu(ff: FileFlow, wrap: ast.Call, site: ast.AST) -> bool:
    """Is ``name = Wrapper(name, ...)``, the statement of ``wrap``, directly in the body of
    an ``if`` asking for more than one GPU whose ``else`` binds no ``name``, and ``site``
    outside that ``if``?"""
    first = wrap.args[0] if wrap.args else None
    if not isinstance(first, ast.Name):
        return False
    for st in ast.walk(ff.tree):
        if not isinstance(st, ast.If) or not false_with_one_gpu(ff, st.test):
            continue
        if any(isinstance(s, ast.Assign) and s.value is wrap and len(s.targets) == 1 and
               isinstance(s.targets[0], ast.Name) and s.targets[0].id == first.id for s in st.body):
            return not any(_binds(s, first.id) for s in st.orelse) and \
                not any(x is site for x in ast.walk(st))
    return False


def false_with_one_gpu(ff: FileFlow, test: ast.expr) -> bool:
    """Is ``test`` false on a machine with one GPU: ``torch.cuda.device_count() > 1`` (or
    ``>= 2``, or written the other way round, ``1 < torch.cuda.device_count()``), or an
    ``and`` one of whose operands is?  A ``device_count`` given an argument or a keyword,
    and a bound written as a bool (``> True``), are not read.

    >>> from torchferry.check.flow.program import FileFlow
    >>> ff = FileFlow(ast.parse("import torch"), "<example>")
    >>> [false_with_one_gpu(ff, ast.parse(t, mode="eval").body) for t in (
    ...     "torch.cuda.device_count() > 1", "2 <= torch.cuda.device_count()",
    ...     "multi and torch.cuda.device_count() > 1", "multi or torch.cuda.device_count() > 1",
    ...     "torch.cuda.device_count() > True", "torch.cuda.device_count(x=1) > 1")]
    [True, True, True, False, False, False]
    """
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(false_with_one_gpu(ff, t) for t in test.values)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant):  # ``1 < torch.cuda.device_count()``
        left, right = right, left
        op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE()}.get(type(op), op)
    if not (isinstance(left, ast.Call) and not left.args and not left.keywords
            and ff.qualname(left.func) == "torch.cuda.device_count"):
        return False
    bound = right.value if isinstance(right, ast.Constant) else None
    return isinstance(bound, int) and not isinstance(bound, bool) and (
        isinstance(op, ast.Gt) and bound == 1 or isinstance(op, ast.GtE) and bound == 2)


def flag_arms_apart(ff: FileFlow, site: ast.AST, fn: ast.AST, model: Value) -> bool:
    r"""Is ``site``, in the scope ``fn``, in the false arm of ``if F:`` for a flag ``F`` the
    run does not change (:func:`_flag_parts`: ``args.gpu``, ``USE_CUDA``), while all that may
    put ``model`` on an accelerator is a move in this file in the true arm of the same flag
    (``if args.gpu: model = model.cuda()``)?  For ``model`` a parameter of ``fn``, the moves
    are sought in each caller of this file (up to three calls deep), where the flag reads
    what that caller hands for ``fn``'s parameter (``train(model, args)`` under ``if
    args.gpu:``).  Then, where the flag is false, ``model`` is on the CPU.

    >>> from torchferry.check.flow import analyze
    >>> src = ("import torch\ndef run(model, args, x):\n    if args.gpu:\n"
    ...        "        model(x.cuda())\n    else:\n        model(x)\n"
    ...        "def main(args):\n    model = torch.nn.Linear(2, 2)\n    if args.gpu:\n"
    ...        "        model = model.cuda()\n    run(model, args, torch.ones(2))\n")
    >>> tree = ast.parse(src)
    >>> ff = analyze(tree, "<example>")
    >>> run = tree.body[1]
    >>> site = run.body[0].orelse[0].value
    >>> call = next(c for r in list(ff.results()) for c in r.calls.values() if c.node is site)
    >>> flag_arms_apart(ff, site, run, call.func)
    True
    """
    arms = _arms_of(ff.tree)
    for _, value, test in arms.get(id(site), ()):
        parts = _flag_parts(ff, _plain_test(test))
        if not value and parts is not None and _only_under(ff, arms, fn, parts, model, 0):
            return True
    return False


def _plain_test(test: ast.expr) -> ast.expr:
    """``test`` without its leading ``not`` s."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return test


def _flag_parts(ff: FileFlow, test: ast.expr) -> tuple[str, str | None] | None:
    """``(name, attribute)`` of a flag ``name.attribute`` (or ``(name, None)`` of a bare
    ``name``) whose attribute nothing in the file assigns, deletes or sets with ``setattr``,
    or None."""
    if isinstance(test, ast.Name):
        return (test.id, None)
    if not (isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)):
        return None
    if any(isinstance(n, ast.Attribute) and n.attr == test.attr and isinstance(n.ctx, (ast.Store, ast.Del))
           or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
           for n in ast.walk(ff.tree)):
        return None
    return (test.value.id, test.attr)


def _bound_once(scope: ast.AST, name: str) -> bool:
    """Is ``name`` bound at most once in ``scope`` (its own statements, not nested
    functions'): a parameter, or one assignment, and declared ``global`` nowhere in it?"""
    params = set(param_names(scope)) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
    stores = 0
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stores += isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
            continue
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) \
                or isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                    (a.asname or a.name).split(".")[0] == name for a in n.names):
            stores += 1
        todo.extend(ast.iter_child_nodes(n))
    return stores + (name in params) <= 1


def _only_under(ff: FileFlow, arms: dict[int, tuple[_Arm, ...]], scope: ast.AST,
                parts: tuple[str, str | None], v: Value, depth: int) -> bool:
    """Is every way ``v`` (a value of ``scope``) may be on an accelerator a move in the
    true arm of the flag ``parts`` as ``scope`` reads it (see :func:`flag_arms_apart`)?"""
    name, attr = parts
    params = param_names(scope) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else ()
    if name in params and not _bound_once(scope, name) or name not in params and not (
            _bound_once(ff.tree, name) and not _shadowed(ff.tree, {name}, [scope])):
        return False
    if v.places is not None and len(v.places) == 1 and next(iter(v.places)).where is Where.PARAM:
        return _callers_under(ff, arms, scope, parts, int(next(iter(v.places)).ref), depth)
    if not v.places or any(p not in (CPU, ACCEL) for p in v.places) or not v.origins:
        return False
    text = name if attr is None else f"{name}.{attr}"
    inside = {id(n) for n in ast.walk(scope)}
    for o in v.origins:
        if o.op is Op.MADE and o.node is not None and not any(_may_place(n) for n in ast.walk(o.node)):
            continue
        if o.op is not Op.MOVED or o.path is not None or o.node is None or id(o.node) not in inside \
                or not any(t == text and value for t, value, _ in arms.get(id(o.node), ())):
            return False
    return True


def _callers_under(ff: FileFlow, arms: dict[int, tuple[_Arm, ...]], fn: ast.AST,
                   parts: tuple[str, str | None], k: int, depth: int) -> bool:
    """Does every call of ``fn`` (all in this file, at least one) hand for its parameter
    ``k`` a value :func:`_only_under` the flag ``parts`` as that caller reads it?"""
    if depth >= 3 or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or ff.is_method(fn) \
            or ff.project is not None and ff.project.foreign_calls(ff, fn):
        return False
    params = param_names(fn)
    sites = ff.call_sites.get(id(fn), {})
    for call_id, (caller, bound) in sites.items():
        event = caller.calls.get(call_id)
        given = bound.get(str(k))
        if event is None or given is None or not isinstance(event.node, ast.Call):
            return False
        mapped = parts
        if parts[0] in params:
            arg = _argument(event.node, params, params.index(parts[0]))
            if not isinstance(arg, ast.Name):
                return False
            mapped = (arg.id, parts[1])
        if not _only_under(ff, arms, caller.node, mapped, given, depth + 1):
            return False
    return bool(sites)


def _argument(call: ast.Call, params: tuple[str, ...], k: int) -> ast.expr | None:
    """The argument ``call`` binds to the parameter ``k`` of a function whose parameters are
    ``params`` (None past a ``*args`` or ``**kwargs``, or where none is given)."""
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if i == k:
            return a
    return next((kw.value for kw in call.keywords if kw.arg == params[k]), None)


def init_flag_move(ff: FileFlow, cls: ast.ClassDef, init: ast.AST, stmt: ast.stmt, attr: str) -> bool:
    r"""Is ``self.<attr>``, stored by the statement ``stmt`` of ``__init__``'s own body
    ``init``, moved by a later statement of that body, ``if p.x: self.<attr> =
    self.<attr>.cuda()`` (no ``else``; ``p`` a parameter of ``__init__`` bound once, ``x``
    an attribute nothing in the file assigns), while every instance of ``cls`` is moved only
    where the same flag, read through what its construction hands for ``p``, is true
    (:func:`~torchferry.check.flow.holders.moved_under_flag`)?  Then the tensor is on the
    CPU exactly where the module is: where the flag is false nothing moves either.

    >>> from torchferry.check.flow.project import Project
    >>> src = ("import torch\nimport torch.nn as nn\nclass M(nn.Module):\n"
    ...        "    def __init__(self, args):\n        super().__init__()\n"
    ...        "        self.t = torch.ones(2)\n        if args.gpu:\n"
    ...        "            self.t = self.t.cuda()\n"
    ...        "def main(args):\n    m = M(args)\n    if args.gpu:\n        m = m.cuda()\n"
    ...        "    return m.t\n")
    >>> ff = Project({"t.py": src.encode()}, packages=()).file_flow("t.py")
    >>> cls = ff.tree.body[2]
    >>> init = cls.body[0]
    >>> init_flag_move(ff, cls, init, init.body[1], "t")
    True
    """
    body = getattr(init, "body", [])
    if not any(st is stmt for st in body) or not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    after = body[next(i for i, st in enumerate(body) if st is stmt) + 1:]
    for st in after:
        if isinstance(st, ast.If) and not st.orelse and isinstance(st.test, ast.Attribute) \
                and isinstance(st.test.value, ast.Name) and any(_moves_attr(s, attr) for s in st.body):
            p = st.test.value.id
            if p in param_names(init)[1:] and _bound_once(init, p) and _flag_parts(ff, st.test) is not None:
                return moved_under_flag(ff, cls, p, st.test.attr, _arms_of)
            return False
        if any(isinstance(n, ast.Attribute) and n.attr == attr and not isinstance(n.ctx, ast.Load)
               for n in ast.walk(st)):
            return False
    return False


def _moves_attr(st: ast.stmt, attr: str) -> bool:
    """Is ``st`` ``self.<attr> = self.<attr>.cuda()`` (or another move of a tensor)?"""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.value, ast.Call)):
        return False
    target, func = st.targets[0], st.value.func
    return isinstance(target, ast.Attribute) and target.attr == attr and isinstance(func, ast.Attribute) \
        and func.attr in ACCEL_MOVE_NAMES and isinstance(func.value, ast.Attribute) \
        and func.value.attr == attr and ast.unparse(func.value) == ast.unparse(target)

"""The items of a loader's batch: which loop a value is an item of, whether it is still
on the CPU, and which items each loop moves to a device.

In::

    for inputs, labels in loader:
        inputs = inputs.to(device)          # a move of an item of the loop's batch
        loss = criterion(model(inputs), labels)

``labels`` is an item of the loop's batch left on the CPU (:func:`unmoved_item` gives the
loop), and :func:`batch_moves` keys ``inputs.to(device)`` by the same loop.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from torchferry.check.flow.events import Callee, CallEvent, ScopeResult
from torchferry.check.flow.lattice import CPU, Basis, Kind, Op, Origin, Value, Where
from torchferry.check.flow.vocab import ACCEL_MOVE_NAMES, TENSOR_METHODS


def batch_moves(res: ScopeResult) -> dict[int, list[CallEvent]]:
    """Moves to a device of items of each loop's batch (keyed by the loop): of an item
    itself, or of what a call the analysis cannot see into made of one (a tokenizer's
    output, ``tokenizer(batch["text"], return_tensors="pt").to(device)``)."""
    out: dict[int, list[CallEvent]] = {}
    for c in res.calls.values():
        recv = c.receiver
        if c.callee is not Callee.METHOD or c.qualname not in ACCEL_MOVE_NAMES or recv is None:
            continue
        loop = loop_of(recv) if recv.is_(Kind.BATCH) else made_of_an_item(res, recv)
        if loop is not None and c.result.may_live(Where.ACCEL):
            out.setdefault(id(loop), []).append(c)
    for moves in out.values():
        moves.sort(key=lambda c: (c.node.lineno, c.node.col_offset))
    return out


def made_of_an_item(res: ScopeResult, v: Value) -> ast.AST | None:
    """The loop whose batch gave an item, as the first argument, to the call that made
    ``v`` last: a call the analysis cannot see into or a module's."""
    if not v.origins or v.origins[0].op not in (Op.RETURNED, Op.OUTPUT):
        return None
    made = res.calls.get(id(v.origins[0].node))
    if made is None or made.callee not in (Callee.UNRESOLVED, Callee.MODULE) or not made.args:
        return None
    item = made.args[0]
    return loop_of(item) if item.is_(Kind.BATCH) else None


def loop_of(v: Value) -> ast.AST | None:
    """The loop whose batch ``v`` comes from (its first origin from a batch)."""
    o = next((o for o in v.origins if o.op is Op.BATCH), None)
    return o.node if o is not None else None


def unmoved_item(v: Value) -> ast.AST | None:
    """The loop whose batch ``v`` is an item of, if it is still on the CPU: never moved, or
    last retyped after an item of the batch that is (``labels.to(device).type_as(reals)``
    of a CPU ``reals`` brings ``labels`` back to the CPU)."""
    if not v.is_(Kind.BATCH) or v.places != {CPU}:
        return None
    if any(o.op is Op.MOVED for o in v.origins) and not _retyped_to_the_cpu(v):
        return None
    return loop_of(v)


def joined_item(res: ScopeResult, v: Value) -> ast.AST | None:
    """The loop whose batch gave an item, never moved, that ``v`` was computed from
    together with tensors the run made on the CPU and nothing else (``x + torch.randn(
    x.size())``, in the scope or in a function of the run that returns such a sum of its
    parameter): both sides are on the CPU, so the result is.  A value that also draws on a
    parameter of the scope, a move, a load or a module's output is not one.

    >>> src = ("import torch\\ndef noisy(img):\\n    return img + torch.randn(img.size())\\n"
    ...        "def run(model, loader, dev):\\n    for x, y in loader:\\n"
    ...        "        y = y.to(dev)\\n        n = noisy(x)\\n        out = model(n)\\n")
    >>> from torchferry.check.flow import FileFlow
    >>> res = next(r for r in FileFlow(ast.parse(src), "<example>").results()
    ...            if getattr(r.node, "name", "") == "run")
    >>> call = next(c for c in res.calls.values() if getattr(c.node.func, "id", "") == "model")
    >>> joined_item(res, call.args[0]) is loop_of(call.args[0])
    True
    """
    if v.kinds != {Kind.TENSOR} or v.places != {CPU} or v.basis is Basis.HINT:
        return None
    loops = {id(o.node): o.node for o in v.origins if o.op is Op.BATCH and o.node is not None}
    if len(loops) != 1 or not any(o.op is Op.MADE for o in v.origins):
        return None
    loop = next(iter(loops.values()))
    target = next((n.target for n in ast.walk(res.node)
                   if isinstance(n, (ast.For, ast.AsyncFor)) and loop in (n, n.iter)), None)
    for o in v.origins:
        if o.op is Op.PARAM and (target is None or o.node is None or
                                 not any(n is o.node for n in ast.walk(target))):
            return None
        if o.op not in (Op.BATCH, Op.MADE, Op.PARAM):
            return None
    return loop


def _retyped_to_the_cpu(v: Value) -> bool:
    """Was ``v`` last retyped after a value on the CPU (``x.type_as(y)``, ``y`` there)?"""
    o = v.origins[0] if v.origins else None
    return o is not None and o.op is Op.MOVED and o.text == "type_as(...)" and o.to == {CPU}


def whole_batch_of(a: ast.AST, loop: ast.AST) -> bool:
    """The whole batch of ``for batch in loader`` (not one of its items)."""
    target = getattr(loop, "target", None)
    return isinstance(target, ast.Name) and isinstance(a, ast.Name) and a.id == target.id


def made_item(v: Value) -> Origin | None:
    """Where the run made ``v``, an item of a loader's batch, on the CPU: the loader's
    dataset is of a class of the run whose ``__getitem__`` makes it there, or its
    ``collate_fn`` does (:func:`torchferry.check.flow.protocols.dataset_batch`), and
    nothing moved it since.  None for the item of a batch of unknown make."""
    if not v.origins or v.origins[0].op is not Op.BATCH:
        return None
    return _made_on_the_cpu(v)


def _made_on_the_cpu(v: Value) -> Origin | None:
    if v.kinds != {Kind.BATCH} or v.places != {CPU} or v.basis is Basis.HINT:
        return None
    if any(o.op in _NOT_MADE for o in v.origins):
        return None
    return next((o for o in v.origins if o.op is Op.MADE), None)


_NOT_MADE = frozenset({Op.MOVED, Op.LOADED, Op.PARAM, Op.OUTPUT, Op.RETURNED})


def param_batch_targets(iterated: ast.expr, target: ast.expr) -> tuple[str, list[tuple[ast.Name, int | None]]] | None:
    """For ``for x, y in loader`` (``enumerate(loader)``, ``tqdm(loader)``) over a name:
    the name, and each name the loop binds to an item of what it yields with the item's
    position (None: the whole of it, ``for batch in loader``).  The interpretation asks
    whether the name is a parameter as it came in (:attr:`ScopeResult.param_batches`)."""
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) \
            and iterated.func.id in ("enumerate", "tqdm") and len(iterated.args) == 1 \
            and not any(k.arg is None for k in iterated.keywords):
        if iterated.func.id == "enumerate":
            if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != 2:
                return None
            target = target.elts[1]
        iterated = iterated.args[0]
    if not isinstance(iterated, ast.Name):
        return None
    if isinstance(target, ast.Name):
        return iterated.id, [(target, None)]
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return iterated.id, [(e, i) for i, e in enumerate(target.elts) if isinstance(e, ast.Name)]
    return None


def loader_item_made(loader: Value, index: int | None) -> Origin | None:
    """Where the run made, on the CPU, the item ``index`` (None: the whole) of each batch
    of ``loader`` (:func:`made_item`), or None."""
    item = loader.item if loader.is_(Kind.LOADER) else None
    if item is not None and index is not None:
        item = item.elts[index] if item.elts is not None and 0 <= index < len(item.elts) else None
    if item is None or item.elts is not None or item.item is not None or item.keys is not None:
        return None
    return _made_on_the_cpu(item)


def of_unknown_kind(res: ScopeResult, a: ast.AST, loop: ast.AST) -> bool:
    """Is ``a``, an item of the batch of ``loop``, of no known kind: the scope tests the
    kind of an item of that batch (``isinstance(tar, torch.Tensor)``, ``isinstance(nodes,
    dict)``: the code itself says the batch holds more than tensors), and never uses ``a`` as
    only a tensor is used (:func:`used_as_a_tensor`)?  Such an item handed to a model (file
    names, a graph library's blocks) may be anything.

    >>> src = ("import torch\\ndef run(model, loader, dev):\\n"
    ...        "    for x, tar, info in loader:\\n"
    ...        "        if isinstance(tar, torch.Tensor):\\n            tar = tar.to(dev)\\n"
    ...        "        out = model(x.to(dev), info)\\n")
    >>> from torchferry.check.flow import FileFlow
    >>> res = next(r for r in FileFlow(ast.parse(src), "<example>").results()
    ...            if getattr(r.node, "name", "") == "run")
    >>> call = next(c for c in res.calls.values() if getattr(c.node.func, "id", "") == "model")
    >>> info = call.node.args[1]
    >>> of_unknown_kind(res, info, loop_of(res.value(info)))
    True
    """
    return _kind_tested(res, loop) and not used_as_a_tensor(res, a, loop)


def _kind_tested(res: ScopeResult, loop: ast.AST) -> bool:
    """Does the scope test the kind of an item of the batch of ``loop`` (``isinstance(item,
    ...)``)?"""
    for n in ast.walk(res.node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance" \
                and n.args and (v := res.value(n.args[0])) is not None and v.is_(Kind.BATCH) \
                and loop_of(v) is loop:
            return True
    return False


def used_as_a_tensor(res: ScopeResult, a: ast.AST, loop: ast.AST) -> bool:
    """Does the scope use ``a``, an item of the batch of ``loop``, as only a tensor is used:
    a method no container has (``labels.view(-1)``, ``labels.size(0)``), an operator
    (``preds == labels``), a torch function's argument?  The uses are those of the scope
    spelled as ``a`` whose value comes from the same batch.

    The other questions of a use as a tensor differ on purpose: this one is asked of a
    batch item (any expression, ``batch[1]``, checked by its value to come from ``loop``)
    and counts an attribute read, an operator and a torch function's argument, in the
    whole scope; :attr:`ScopeResult.param_uses` (FRY011's) and ``places._tensor_used`` are
    asked of a parameter, and :func:`weighed.forward_takes_a_tensor` of a module's input."""
    text = ast.dump(a)

    def item(x: ast.AST | None) -> bool:
        v = res.value(x) if isinstance(x, ast.expr) and ast.dump(x) == text else None
        return v is not None and loop_of(v) is loop

    for n in ast.walk(res.node):
        if isinstance(n, ast.Attribute) and n.attr in TENSOR_METHODS and item(n.value):
            return True
        if isinstance(n, ast.BinOp) and (item(n.left) or item(n.right)) or \
                isinstance(n, ast.Compare) and any(item(x) for x in (n.left, *n.comparators)):
            return True
        if isinstance(n, ast.Call) and any(item(x) for x in n.args):
            c = res.calls.get(id(n))
            if c is not None and c.callee is Callee.TORCH:
                return True
    return False


def left_on_an_arm(res: ScopeResult, a: ast.AST, v: Value, moves: dict[int, list[CallEvent]]
                   ) -> tuple[ast.AST, CallEvent] | None:
    r"""An item of a loader's batch moved on one arm of a test and left on the CPU on the
    other, where another item of the batch goes to the device:

        if args.gpu is not None:
            images = images.cuda(args.gpu)      # ``target`` stays on the CPU here
        else:
            images, target = images.to(device), target.to(device)
        loss = criterion(model(images), target)

    ``a`` (a name) reads ``v`` after the test, made only of the batch's item and of its
    moves in one arm of the test; the other arm moves another item of the batch and not
    this one.  Gives the loop and that other arm's move; None otherwise.  (The join of the
    arms makes ``target`` "moved on some path", which hides that it is left behind on one.)

    >>> src = ("def run(model, loader, gpu, dev):\n    for x, y in loader:\n"
    ...        "        if gpu:\n            x = x.cuda()\n        else:\n"
    ...        "            x, y = x.to(dev), y.to(dev)\n        out = model(x) + y\n")
    >>> from torchferry.check.flow import FileFlow
    >>> res = next(r for r in FileFlow(ast.parse(src), "<example>").results()
    ...            if getattr(r.node, "name", "") == "run")
    >>> use = next(n for n in ast.walk(res.node) if isinstance(n, ast.Name) and n.id == "y"
    ...            and n.lineno == 7)
    >>> loop, move = left_on_an_arm(res, use, res.value(use), batch_moves(res))
    >>> ast.unparse(move.node)
    'x.cuda()'
    """
    if not isinstance(a, ast.Name) or not v.is_(Kind.BATCH) or CPU not in (v.places or ()):
        return None
    loop = loop_of(v)
    if loop is None or id(loop) not in moves:
        return None
    moved = [o for o in v.origins if o.op is Op.MOVED]
    stmt = next((n for n in ast.walk(res.node)
                 if isinstance(n, (ast.For, ast.AsyncFor)) and loop in (n, n.iter)), None)
    if stmt is None:
        return None
    target = stmt.target
    if not moved or any(o.op not in (Op.BATCH, Op.MOVED, Op.PARAM) for o in v.origins) or any(
            o.op is Op.PARAM and not _within([target], o.node) for o in v.origins):
        return None
    for test in ast.walk(stmt):
        if not isinstance(test, ast.If) or not test.orelse or test.end_lineno >= a.lineno:  # type: ignore[operator]
            continue
        for arm, other in ((test.body, test.orelse), (test.orelse, test.body)):
            if all(_within(arm, o.node) for o in moved) and not _moves_in(other, moves[id(loop)], a.id):
                gone = [c for c in moves[id(loop)] if _within(other, c.node)]
                if gone:
                    return loop, gone[0]
    return None


def _within(block: Sequence[ast.AST], node: ast.AST | None) -> bool:
    """Is ``node`` one of the nodes of the statements ``block``?"""
    return node is not None and any(node is n for st in block for n in ast.walk(st))


def _moves_in(block: list[ast.stmt], moves: list[CallEvent], name: str) -> bool:
    """Does a move of ``moves`` in ``block`` move the value named ``name``?"""
    return any(isinstance(f := c.node.func, ast.Attribute) and isinstance(f.value, ast.Name)
               and f.value.id == name and _within(block, c.node) for c in moves)

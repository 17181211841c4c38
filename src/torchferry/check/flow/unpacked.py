"""Items a function unpacks from a tuple parameter, and the tuples the run's calls pass.

In::

    # buffer.py
    def sample(self):
        states = torch.from_numpy(s).float()              # made on the CPU
        rewards = torch.from_numpy(r).float().to(self.device)
        return (states, rewards)

    # agent.py
    def step(self):
        self.learn(self.memory.sample())                  # a tuple of two items

    def learn(self, experiences):
        states, rewards = experiences                     # item 0 of parameter 1
        return self.net(states)

``states`` in ``learn`` lives where its parameter does (:func:`unpacked_item` says which
item of which parameter it is); every call of the run passes a tuple of two items for
that parameter (:func:`passed_tuples`), so the callers say what ``states`` is.  An
unpacking without a starred name binds as many names as the tuple has items, or raises:
a tuple of another length never reaches the names, but then the analysis knows nothing of
the item, and a call that passes one (or anything but a tuple of known items) makes the
answer unknown.

>>> import ast
>>> from torchferry.check.flow import analyze
>>> src = '''import torch
... def learn(experiences):
...     states, rewards = experiences
...     return states
... learn((torch.zeros(2), torch.ones(2).cuda()))
... '''
>>> ff = analyze(ast.parse(src), "<example>")
>>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "learn")
>>> item = unpacked_item(res, res.returns)
>>> item.param, item.position, item.names
(0, 0, 2)
>>> [[e.places for e in t.value.elts] for t in passed_tuples(ff, res, item.param, item.names) or ()]
[[frozenset({Place(where=<Where.CPU: 1>, ref='')}), frozenset({Place(where=<Where.ACCEL: 2>, ref='')})]]
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from torchferry.check.flow.events import ScopeResult
from torchferry.check.flow.lattice import CPU, Kind, Op, Value, Where, param
from torchferry.check.flow.program import FileFlow, in_file

#: how many calls up a tuple handed on whole through the callers' parameters is followed
DEPTH = 3


class Unpacked(NamedTuple):
    """Item ``position`` of parameter ``param`` of a function, taken by an unpacking of
    ``names`` names (``node``: the name it binds)."""

    param: int
    position: int
    names: int
    node: ast.AST


class Passed(NamedTuple):
    """A tuple a call of the run passes: the calling file and scope, the call (the one
    that hands it to the function asked about, when it comes through a caller's own
    parameter), and the tuple as the calling file's analysis sees it, in the asking file's
    terms (its origins name the other file)."""

    ff: FileFlow
    scope: ScopeResult
    call: ast.Call
    value: Value


def unpacked_item(res: ScopeResult, v: Value) -> Unpacked | None:
    """Which item of which parameter ``v``, a value of ``res``, is, when it is that item as
    an unpacking without a starred name took it from the parameter as it came in (``states,
    actions = experiences``), not moved nor computed with anything but numbers (``1 -
    dones`` still is ``dones``' item); None otherwise (or an item of several parameters or
    positions)."""
    if v.kinds is not None and v.kinds != {Kind.TENSOR} or not v.origins or \
            any(o.op is not Op.PARAM for o in v.origins):
        return None
    nodes = {id(o.node): o.node for o in v.origins if o.node is not None}
    if len(nodes) != 1:
        return None
    node = next(iter(nodes.values()))
    count = res.param_unpacked.get(id(node))
    if count is None:
        return None
    k, index = res.param_items[id(node)]
    if not isinstance(index, int) or v.places != {param(k)}:
        return None
    return Unpacked(k, index, count, node)


def passed_tuples(ff: FileFlow, res: ScopeResult, k: int, count: int, depth: int = 0) -> list[Passed] | None:
    """The tuples of ``count`` items that the calls of the run pass for parameter ``k`` of
    ``res``: this file's calls, and those of the files that import it when the run knows
    them all (:meth:`~torchferry.check.flow.project.Project.foreign_calls`); a tuple a caller
    hands on whole from a parameter of its own (``def step(self, batch): self.learn(batch)``)
    by what its own callers pass (:data:`DEPTH` calls up).  None when a call leaves the
    parameter unbound, spreads ``*args``, passes anything else (a tuple of another length
    or of unknown items), or no call is known."""
    sites = _sites(ff, res)
    if not sites:
        return None
    out: list[Passed] = []
    for other, caller, call_id, bound in sites:
        given = bound.get(str(k))
        call = caller.calls.get(call_id)
        if given is None or call is None:
            return None
        if given.elts is not None:
            if len(given.elts) != count:
                return None
            out.append(Passed(other, caller, call.node, in_file(given, other, ff)))
            continue
        j = _whole_param(other, caller, given)
        above = passed_tuples(other, caller, j, count, depth + 1) if j is not None and depth + 1 < DEPTH else None
        if above is None:
            return None
        out.extend(Passed(other, caller, call.node, in_file(t.value, other, ff)) for t in above)
    return out


def _sites(ff: FileFlow, res: ScopeResult) -> list[tuple[FileFlow, ScopeResult, int, dict[str, Value]]] | None:
    """Every call of the function ``res`` interprets: (the calling file, its scope, the
    call's id, parameter index as a string -> argument); None when the run's other files
    cannot all be known."""
    sites = [(ff, caller, call_id, bound) for call_id, (caller, bound) in ff.call_sites.get(id(res.node), {}).items()]
    if ff.project is None:
        return sites
    foreign = ff.project.foreign_method_calls(ff, res.node) if ff.is_method(res.node) \
        else ff.project.foreign_calls(ff, res.node)
    if foreign is None:
        return None
    return sites + list(foreign)


def _whole_param(ff: FileFlow, res: ScopeResult, v: Value) -> int | None:
    """The index of the parameter of ``res`` that ``v`` is, whole and as it came in (not
    ``self`` of a method, not an item of it, not moved nor computed with), or None."""
    p = next(iter(v.places)) if v.places and len(v.places) == 1 else None
    if p is None or p.where is not Where.PARAM or v.kinds is not None or not v.origins or \
            any(o.op is not Op.PARAM or o.node is not None for o in v.origins):
        return None
    k = int(p.ref)
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(res.node, "decorator_list", ()))
    return None if k == 0 and ff.is_method(res.node) and not static else k


def returns_cpu_items(ff: FileFlow) -> bool:
    """Does a function of ``ff`` (interpreted so far) return a tuple holding a tensor made on
    the CPU, one that another file may unpack from a parameter?  (When none does, the files
    that import ``ff`` need not be read for :func:`unpacked_item` s made in ``ff``.)"""
    return any(e.kinds == {Kind.TENSOR} and e.places == {CPU} and any(o.op is Op.MADE for o in e.origins)
               for res in ff.interpreted() for e in res.returns.elts or ())

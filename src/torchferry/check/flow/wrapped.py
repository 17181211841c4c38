"""The module a data-parallel wrapper holds: ``model.module`` of ``model =
nn.DataParallel(net).to(device)`` is ``net``, where the wrapper is.

``DataParallel(module)`` and ``DistributedDataParallel(module)`` keep the module they are
given as their attribute ``module`` (read in torch 2.13.0: ``self.module = module`` in
``DataParallel.__init__``, ``torch/nn/parallel/data_parallel.py``, on both of its paths,
with and without an accelerator; and in ``DistributedDataParallel.__init__``,
``torch/nn/parallel/distributed.py``), a registered submodule: the wrapper's ``.to()`` and
``.cuda()`` move it along, so it is where the wrapper is.  A program that calls the
wrapped module directly, ``model.module(x)`` (as a sampling step that bypasses the
scatter does), hands it ``x`` as it is, unlike ``model(x)``.

>>> import ast
>>> from torchferry.check.flow.program import FileFlow
>>> src = ("import torch\\nfrom torch import nn\\n"
...        "def run(x):\\n    model = nn.DataParallel(nn.Linear(2, 2)).cuda()\\n"
...        "    return model.module\\n")
>>> ff = FileFlow(ast.parse(src), "<example>")
>>> res = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
>>> sorted(k.name for k in res.returns.kinds), sorted(p.where.name for p in res.returns.places)
(['MODULE'], ['ACCEL'])
"""

from __future__ import annotations

from torchferry.check.flow.lattice import Basis, Kind, Op, Origin, Value

#: the text of a keeping wrapper's construction (``torch.nn.DataParallel(...)``, as
#: :func:`torchferry.check.flow.resolve._wrapper` records it)
_WRAPPER_TEXTS = ("DataParallel(...)", "DistributedDataParallel(...)")
_MODULE = frozenset((Kind.MODULE,))


def wrapped_module(recv: Value, attr: str) -> Value | None:
    """``recv.module`` of a data-parallel wrapper ``recv`` whose place is known: the module
    it wraps, there (its origins without the wrapper's construction); None for anything
    else (another attribute, a value that is not surely one such wrapper, a wrapper of a
    wrapper)."""
    if attr != "module" or not recv.is_(Kind.MODULE) or not recv.known_places:
        return None
    built = [o for o in recv.origins if o.op is not Op.MOVED]
    if not built or not _wrapper(built[0]) or any(_wrapper(o) for o in built[1:]):
        return None
    inner = tuple(o for o in recv.origins if o is not built[0])
    return Value(_MODULE, recv.places, inner, Basis.INFERRED)


def _wrapper(o: Origin) -> bool:
    """Is ``o`` the construction of a data-parallel wrapper of torch?"""
    return o.op is Op.MADE and o.text.startswith("torch.") and o.text.endswith(_WRAPPER_TEXTS)

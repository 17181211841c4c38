"""A list held in a dict (``hist = {"train": [], "val": []}`` then
``hist[phase].append(t)``; ``d.setdefault(k, []).append(t)``; ``defaultdict(list)``), read
back by a subscript, ``.values()`` or iteration, carries the facts of what was added."""

from __future__ import annotations

from torchferry.check.flow import Kind

from .conftest import Snippet, wheres


def _tensor_on(v, where):
    return v.is_(Kind.TENSOR) and wheres(v) == where


def test_a_list_in_a_dict_literal_grown_at_an_unknown_key():
    s = Snippet("""
        import torch
        def run(phases):
            hist = {"train": [], "val": []}
            for phase in phases:
                hist[phase].append(torch.zeros(2).cuda())
            a = hist[phase][-1]
            b = hist["val"][0]
            for v in hist.values():
                c = v[0]
            return a, b, c
    """)
    a, b, c = s.function("run").returns.elts
    assert _tensor_on(a, {"ACCEL"}) and _tensor_on(b, {"ACCEL"}) and _tensor_on(c, {"ACCEL"})


def test_a_literal_key_grows_that_list_only():
    s = Snippet("""
        import torch
        def run():
            hist = {"loss": [], "names": []}
            hist["loss"].append(torch.ones(1).cuda())
            hist["names"].append("x")
            return hist["loss"][0], hist["names"][0]
    """)
    loss, name = s.function("run").returns.elts
    assert _tensor_on(loss, {"ACCEL"})
    assert not name.may_be(Kind.TENSOR)


def test_setdefault_and_defaultdict_keep_what_is_added():
    s = Snippet("""
        import torch
        from collections import defaultdict
        def run(keys):
            d = {}
            e = defaultdict(list)
            for k in keys:
                d.setdefault(k, []).append(torch.randn(3))
                e[k].append(torch.randn(3).cuda())
            return d[k][0], [t for t in e[k]][0]
    """)
    a, b = s.function("run").returns.elts
    assert _tensor_on(a, {"CPU"}) and _tensor_on(b, {"ACCEL"})


def test_a_dict_of_unknown_structure_stays_unknown():
    s = Snippet("""
        import torch
        def run(hist, phase):
            hist[phase].append(torch.ones(1).cuda())
            return hist[phase][0]
    """)
    assert s.function("run").returns.places is None or not s.function("run").returns.is_(Kind.TENSOR)

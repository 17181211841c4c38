"""Tensors held by plain (non-``nn.Module``) objects: the attributes a class's methods
store, item stores into a list attribute included, read back in its other methods and
at the instances the run builds, with the constructor's arguments bound."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.flow import Kind, Project

from .conftest import Snippet, wheres

CLASS = """
import torch
class Factors:
    def __init__(self, data, device, n):
        self.data = data.to(device)
        self.kept = data
        self.cores = []
        self.Us = [None] * n
        self.made = [torch.zeros(n)]
        self.count = 0
    def grow(self, n):
        self.cores.append(torch.randn(n, n))
        self.Us[0] = torch.eye(n)
        self.made.extend([torch.ones(n).cuda()])
    def read(self):
        a, b, c, d = self.cores[0], self.Us[0], self.made[0], self.kept
        return a, b, c, d
"""


@pytest.mark.parametrize(("name", "where"), [("a", {"CPU"}), ("b", {"CPU"}), ("c", {"CPU", "ACCEL"})])
def test_a_list_attribute_filled_by_another_method_holds_its_items(name, where):
    """``self.cores.append(t)`` (after ``self.cores = []``), ``self.Us[k] = t`` (after
    ``self.Us = [None] * n``) and ``self.made.extend([t])`` in one method: another method
    reads tensors made on the CPU."""
    s = Snippet(CLASS)
    v = s.value_at(16, name)
    assert v.is_(Kind.TENSOR) and wheres(v) == where


def test_a_parameter_kept_by_init_with_no_construction_stays_unknown():
    s = Snippet(CLASS)
    assert s.value_at(16, "d").places is None


def test_the_same_stores_made_in_init_itself():
    s = Snippet("""
        import torch
        class Cache:
            def __init__(self, n):
                self.slots = [None] * n
                self.seen = []
                for k in range(n):
                    self.slots[k] = torch.zeros(2)
                    self.seen.append(torch.ones(2).cuda())
            def read(self):
                x, y = self.slots[1], self.seen[0]
                return x, y
    """)
    assert wheres(s.value_at(11, "x")) == {"CPU"} and s.value_at(11, "x").is_(Kind.TENSOR)
    assert wheres(s.value_at(11, "y")) == {"ACCEL"}


def test_a_slot_list_of_none_holds_nothing_until_filled():
    """``[None] * n`` and ``[None, None]``: slots to fill, no item yet; a list of numbers
    repeated (``[0] * n``, which ``torch.tensor`` reads) is not followed."""
    s = Snippet("""
        import torch
        def f(n):
            slots, pair = [None] * n, [None, None]
            zeros = [0] * n
            print(slots, pair, zeros)
    """)
    assert s.value_at(5, "slots").item.kinds == frozenset()
    assert s.value_at(5, "pair").item.kinds == frozenset()
    assert s.value_at(5, "zeros").item is None


MAIN = """
import torch
from factors import Factors
def run(device):
    f = Factors(torch.ones(3).cuda(), "cpu", 3)
    g = Factors(torch.ones(3), device, 3)
    h = Factors(unknown(), device, 3)
    f.grow(3)
    print(f.kept, g.data, f.cores, h.kept, g.count)
"""


@pytest.mark.parametrize("same_file", [True, False])
def test_an_instance_reads_its_constructor_arguments(same_file):
    """``f.kept`` of ``f = Factors(x.cuda(), ...)``: the argument itself; ``g.data`` of
    ``data.to(device)``: where the caller's ``device`` may put it; ``f.cores``: the list the
    class's methods fill; an argument of unknown kind leaves the attribute unknown.  The
    class in the same file or imported from another file of the run."""
    if same_file:
        src = CLASS + MAIN.replace("from factors import Factors\n", "")
        s = Snippet(src)
    else:
        files = {"/r/factors.py": textwrap.dedent(CLASS).encode(),
                 "/r/main.py": textwrap.dedent(MAIN).encode()}
        s = Snippet(MAIN, path="/r/main.py", project=Project(files, packages=()))
    printed = next(c for c in s.function("run").calls.values() if c.qualname == "print")
    values = dict(zip(["f.kept", "g.data", "f.cores", "h.kept", "g.count"], printed.args, strict=True))
    kept = values["f.kept"]
    assert kept.is_(Kind.TENSOR) and wheres(kept) == {"ACCEL"}
    data = values["g.data"]
    assert data.is_(Kind.TENSOR) and wheres(data) == {"ACCEL"}  # (a device parameter may name one)
    cores = values["f.cores"]
    assert wheres(cores.item) == {"CPU"} and cores.item.is_(Kind.TENSOR)
    assert values["h.kept"].places is None
    assert values["g.count"].places is None or not values["g.count"].is_(Kind.TENSOR)


def test_a_moved_argument_gives_the_attribute_its_place():
    """``Holder(x, dev).data`` of ``self.data = data.to(device)``: a tensor where the code
    chose to put it (a device the code chose may be an accelerator); ``self.raw = data``:
    the argument itself, wherever the caller made or moved it."""
    s = Snippet("""
        import torch
        class Holder(object):
            def __init__(self, data, device=None):
                self.data = data.to(device)
                self.raw = data
        x = torch.ones(2)
        dev = torch.device("cuda")
        a = Holder(x, dev).data
        b = Holder(x.cuda()).raw
        c = Holder(x, dev).raw
        print(a, b, c)
    """)
    assert wheres(s.value_at(11, "a")) == {"ACCEL"} and s.value_at(11, "a").is_(Kind.TENSOR)
    assert wheres(s.value_at(11, "b")) == {"ACCEL"} and s.value_at(11, "b").is_(Kind.TENSOR)
    assert wheres(s.value_at(11, "c")) == {"CPU"} and s.value_at(11, "c").is_(Kind.TENSOR)


def test_the_state_dict_of_a_model_handed_in_holds_tensors_where_the_model_is():
    """``model.state_dict().items()`` / ``.values()`` of a parameter ``model`` of unknown
    kind: tensors at the model's place (the parameter's, which the callers decide)."""
    s = Snippet("""
        import torch
        def export(model):
            for name, value in model.state_dict().items():
                print(value)
            for w in model.state_dict().values():
                print(w)
    """)
    for line, name in ((4, "value"), (6, "w")):
        v = s.value_at(line, name)
        assert v.is_(Kind.TENSOR) and wheres(v) == {"PARAM0"}

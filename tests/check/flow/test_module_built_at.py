"""A module of the run whose ``__init__`` moves its weighted submodules (or itself) to a
place its constructor's arguments give: the instance the call builds is at that place
when every weighted submodule ends there, unknown when only some do or a branch decides."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.flow import Kind, Project

from .conftest import Snippet, wheres

CLASSES = """
import torch
import torch.nn as nn
class Agent(nn.Module):
    def __init__(self, n, m, device, lr):
        super().__init__()
        self.device = device
        self.critic = nn.Sequential(nn.Linear(n, 1), nn.ReLU()).to(self.device)
        self.actor = nn.Sequential(nn.Linear(n, m)).to(self.device)
        self.loss = nn.MSELoss()
        self.opt = torch.optim.Adam(self.actor.parameters(), lr=lr)
    def act(self, x):
        return self.actor(x)
class Encoder(nn.Module):
    def __init__(self, vocab, dim=8, device=None):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim).to(device)
        self.lstm = nn.LSTM(dim, dim).to(device)
class Whole(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.scale = nn.Parameter(torch.ones(n))
        self.to(device)
class OnGpu(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lstm = nn.LSTM(n, n).cuda()
        self.head = nn.Linear(n, 1).cuda()
class Flagged(nn.Module):
    def __init__(self, n, use_cuda):
        super().__init__()
        self.lstm = nn.LSTM(n, n)
        if use_cuda:
            self.lstm = self.lstm.cuda()
class Partly(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.embed = nn.Embedding(n, n).to(device)
        self.head = nn.Linear(n, n)
class Still(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.device = device
        self.fc = nn.Linear(n, n)
"""

USES = """
def run(x):
    device = torch.device("cuda")
    agent = Agent(4, 2, device, 0.1)
    enc = Encoder(10, device=device)
    whole = Whole(4, device)
    gpu = OnGpu(4)
    flagged = Flagged(4, True)
    partly = Partly(4, device)
    still = Still(4, device)
    cpu = Agent(4, 2, "cpu", 0.1)
    quiet = Encoder(10)
    print(agent, enc, whole, gpu, flagged, partly, still, cpu, quiet)
    return agent.act(x), agent(x), enc.embed(x)
"""


def _printed(s: Snippet) -> dict:
    printed = next(c for c in s.function("run").calls.values() if c.qualname == "print")
    names = ["agent", "enc", "whole", "gpu", "flagged", "partly", "still", "cpu", "quiet"]
    return dict(zip(names, printed.args, strict=True))


def _print_arguments(s: Snippet, names: list[str]) -> dict:
    """The arguments of the snippet's one ``print(...)`` call, by the names given."""
    printed = next(c for r in s.results for c in r.calls.values() if c.qualname == "print")
    return dict(zip(names, printed.args, strict=True))


@pytest.mark.parametrize("same_file", [True, False])
def test_an_instance_is_where_its_init_moves_every_weighted_submodule(same_file):
    """``Agent(.., device, ..)`` (``self.device = device``, then ``.to(self.device)`` on each
    submodule; a loss module has no weights), ``Encoder(10, device=device)`` (each layer
    ``.to(device)``), ``Whole(4, device)`` (``self.to(device)`` at the end) and ``OnGpu(4)``
    (``.cuda()`` on each): on the device the call gives; ``Agent(.., "cpu", ..)`` on the CPU.
    The class in the file that builds it or imported from another file of the run."""
    if same_file:
        s = Snippet(CLASSES + USES)
    else:
        main = "import torch\nfrom nets import Agent, Encoder, Whole, OnGpu, Flagged, Partly, Still\n" + USES
        files = {"/r/nets.py": textwrap.dedent(CLASSES).encode(), "/r/main.py": main.encode()}
        s = Snippet(main, path="/r/main.py", project=Project(files, packages=()))
    v = _printed(s)
    for name in ("agent", "enc", "whole", "gpu"):
        assert v[name].is_(Kind.MODULE) and wheres(v[name]) == {"ACCEL"}, name
    assert wheres(v["cpu"]) == {"CPU"}
    assert wheres(v["still"]) == {"CPU"}  # (nothing moved: built on the CPU)
    assert wheres(v["quiet"]) == {"CPU"}  # (``.to(None)`` leaves it where it was built)


def test_a_module_moved_on_a_branch_or_in_part_is_not_placed():
    """``if use_cuda: self.lstm = self.lstm.cuda()`` and a class that moves one of its two
    layers: the instance is not wholly anywhere, so its place stays unknown."""
    v = _printed(Snippet(CLASSES + USES))
    assert v["flagged"].places is None
    assert v["partly"].places is None


def test_what_the_placed_instance_computes_is_on_the_device():
    """``agent(x)`` of the instance placed by its constructor: the output is on the device."""
    s = Snippet(CLASSES + USES)
    ret = s.function("run").returns
    assert ret is not None
    out = ret.elts[1]
    assert wheres(out) == {"ACCEL"}


def test_a_module_built_inside_its_own_init_is_not_followed_forever():
    """``self.kid = Tree(d - 1, device)`` in ``Tree.__init__`` and two classes that build each
    other: the analysis ends, and the inner instance's place is not claimed."""
    s = Snippet("""
        import torch.nn as nn
        class Tree(nn.Module):
            def __init__(self, d, device):
                super().__init__()
                self.fc = nn.Linear(1, 1).to(device)
                self.kid = Tree(d - 1, device)
        class Pair(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.a = Other(device)
        class Other(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.b = nn.Linear(1, 1).to(device)
                self.back = Pair(device)
        t = Tree(3, "cuda")
        p = Pair("cuda")
        print(t, p)
    """)
    t, p = next(c for r in s.results for c in r.calls.values() if c.qualname == "print").args
    assert t.places is None and p.places is None


def test_a_to_that_names_no_device_leaves_the_place_untold():
    """``self.fc = nn.Linear(1, 1).to(dtype=torch.half)`` and ``self.to(dtype=...)``: a ``.to``
    that names no device tells nothing of where the instance is, whatever the call binds."""
    s = Snippet("""
        import torch
        import torch.nn as nn
        class Half(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.fc = nn.Linear(1, 1).to(dtype=torch.half)
        class Whole(nn.Module):
            def __init__(self, device):
                super().__init__()
                self.fc = nn.Linear(1, 1)
                self.to(dtype=torch.half)
        h = Half("cuda")
        w = Whole("cuda")
        print(h, w)
    """)
    h, w = next(c for r in s.results for c in r.calls.values() if c.qualname == "print").args
    assert h.places is None and w.places is None


BASED = """
import torch
import torch.nn as nn
class Core(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.conv = nn.Conv2d(1, n, 3)
    def forward(self, x):
        return self.conv(x)
class Placed(Core):
    def __init__(self, n, device="cuda"):
        super().__init__(n)
        self.to(device)
        self.head = nn.Linear(n, 1)
        self.to(device)
class TypedDefault(Core):
    def __init__(self, n, device=torch.device("cuda")):
        super(TypedDefault, self).__init__(n)
        self.to(device)
class Named(Core):
    def __init__(self, n, device):
        Core.__init__(self, n)
        self.head = nn.Linear(n, 1)
        self.to(device)
class Unmoved(Core):
    def __init__(self, n, device="cuda"):
        super().__init__(n)
        self.head = nn.Linear(n, 1)
class HeadOnly(Core):
    def __init__(self, n, device="cuda"):
        super().__init__(n)
        self.head = nn.Linear(n, 1).to(device)
class Tail(Core):
    def __init__(self, n, device="cuda"):
        super().__init__(n)
        self.to(device)
        self.head = nn.Linear(n, 1)
class Flag(Core):
    def __init__(self, n, device="cuda", move=True):
        super().__init__(n)
        if move:
            self.to(device)
placed = Placed(4)
typed = TypedDefault(4)
named = Named(4, torch.device("cuda"))
cpu = Placed(4, device="cpu")
unmoved = Unmoved(4)
head_only = HeadOnly(4)
tail = Tail(4)
flag = Flag(4)
print(placed, typed, named, cpu, unmoved, head_only, tail, flag)
"""


def _based() -> dict:
    return _print_arguments(Snippet(BASED), ["placed", "typed", "named", "cpu", "unmoved", "head_only", "tail", "flag"])


def test_a_whole_module_move_after_the_base_init_places_the_base_layers():
    """``super().__init__(n)`` (or ``super(C, self)``, ``Core.__init__(self, n)``), then
    ``self.to(device)``: every layer, the base's included, is where the device goes; the
    parameter's default (``"cuda"``, ``torch.device("cuda")``) decides when the call gives
    none, and ``device="cpu"`` keeps it on the CPU."""
    v = _based()
    for name in ("placed", "typed", "named"):
        assert wheres(v[name]) == {"ACCEL"}, name
    assert wheres(v["cpu"]) == {"CPU"}


def test_a_subclass_that_moves_nothing_or_part_is_not_placed_on_the_device():
    """No whole-module move after the base's ``__init__`` (none at all, only the subclass's
    own layer moved, a layer built after the last move, a move under a branch): the
    instance is not claimed to be on the device."""
    v = _based()
    assert wheres(v["unmoved"]) == {"CPU"}  # (built on the CPU, as before)
    assert wheres(v["head_only"]) == {"CPU"}
    assert v["tail"].places is None
    assert v["flag"].places is None


REBOUND = """
import torch
import torch.nn as nn
class Core(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.conv = nn.Conv2d(1, n, 3)
class Rebound(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self = self.to(device)
class OnGpu(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self = self.cuda()
class Cast(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self = self.to(device).float()
class Based(Core):
    def __init__(self, n, device="cuda"):
        super().__init__(n)
        self = self.to(device)
class Branch(nn.Module):
    def __init__(self, n, device, move):
        super().__init__()
        self.fc = nn.Linear(n, n)
        if move:
            self = self.to(device)
class Later(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self = self.to(device)
        self.head = nn.Linear(n, 1)
class Other(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self = nn.Linear(n, n).to(device)
device = torch.device("cuda")
rebound = Rebound(4, device)
gpu = OnGpu(4)
cast = Cast(4, device)
based = Based(4)
cpu = Rebound(4, "cpu")
branch = Branch(4, device, True)
later = Later(4, device)
other = Other(4, device)
print(rebound, gpu, cast, based, cpu, branch, later, other)
"""


def _rebound() -> dict:
    return _print_arguments(Snippet(REBOUND), ["rebound", "gpu", "cast", "based", "cpu", "branch", "later", "other"])


def test_init_that_rebinds_self_to_its_own_move_places_the_instance():
    """``self = self.to(device)`` (also ``self = self.cuda()``, ``self = self.to(device).float()``,
    and after a base class's ``__init__``): ``Module.to`` moves the module in place and
    returns it, so the instance is where the device goes; ``"cpu"`` keeps it on the CPU."""
    v = _rebound()
    for name in ("rebound", "gpu", "cast", "based"):
        assert v[name].is_(Kind.MODULE) and wheres(v[name]) == {"ACCEL"}, name
    assert wheres(v["cpu"]) == {"CPU"}


def test_a_rebinding_move_on_a_branch_or_before_a_layer_or_of_another_module_does_not_place():
    """``if move: self = self.to(device)`` (taken on some constructions only), a layer built
    after the move, and ``self = nn.Linear(..).to(device)`` (the name bound to another
    module; the instance's own layer stays on the CPU): the instance is not claimed to be on
    the device."""
    v = _rebound()
    assert v["branch"].places is None
    assert v["later"].places is None
    assert wheres(v["other"]) == {"CPU"}

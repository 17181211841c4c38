"""Which parameters reach a module's input as they came in (``flow.feeds``), and a list
grown with ``+=``."""

from torchferry.check.flow import Callee
from torchferry.check.flow.feeds import call_feeds, feeds

SRC = """
    import torch
    import torch.nn as nn
    class Block(nn.Linear):
        def forward(self, x):
            return torch.mm(x, self.weight.T)
        def fit(self, x):
            for _ in range(3):
                self.forward(x)
        def fit_moved(self, x):
            return self.forward(x.cuda())
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Block(4, 4).cuda()]
        def fit(self, x):
            h = x
            for block in self.blocks:
                block.fit(h)
                h = block(h)
        def fit_some(self, x):
            h = x
            for block in self.blocks:
                if h.shape[0]:
                    h = block(h)
        def fit_moved(self, x):
            for block in self.blocks:
                block.fit_moved(x)
    net = Stack()
    net.fit(torch.ones(2, 4))
"""


def test_a_module_forward_called_by_name_is_fed(snippet):
    s = snippet(SRC)
    fed = feeds(s.ff, s.function("fit_moved"))
    assert fed == {}  # (Stack.fit_moved: the block moves it first)
    block_fit = next(r for r in s.results if getattr(r.node, "name", "") == "fit"
                     and r.node.lineno == 6)
    (only,) = feeds(s.ff, block_fit)[1]
    assert s.wheres(only.module) == {"PARAM0"}  # ``self``, through ``self.forward(x)``


def test_feeds_follow_methods_and_a_loops_first_round(snippet):
    s = snippet(SRC)
    stack_fit = next(r for r in s.results if getattr(r.node, "name", "") == "fit"
                     and r.node.lineno == 15)
    found = feeds(s.ff, stack_fit)
    assert set(found) == {1}
    # the block's own ``fit`` (self.forward) and the block's call, the module an item of the list
    assert {s.wheres(f.module) == {"ACCEL"} for f in found[1]} == {True}
    assert sorted(f.call.node.lineno for f in found[1]) == [8, 19]
    assert feeds(s.ff, s.function("fit_some")) == {}  # a test on a name the loop binds


def test_call_feeds_give_the_module_in_the_callers_terms(snippet):
    s = snippet(SRC)
    module = next(r for r in s.results if getattr(r.node, "name", None) is None)
    call = next(c for c in module.calls.values() if c.callee is Callee.METHOD and c.qualname == "fit")
    out = call_feeds(s.ff, module, call)
    assert out and {a.position for a, _, _ in out} == {0}
    assert all(s.wheres(f.module) == {"ACCEL"} and f.via[0] is call for _, _, f in out)


def test_a_list_grown_with_plus_equals_keeps_its_items(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        layer = nn.Linear(2, 2).cuda()
        outs = []
        for _ in range(3):
            outs += [layer(torch.ones(2).cuda())]
        total = torch.cat(outs)
        print(total)
    """)
    assert s.wheres(s.value_at(8, "total")) == {"ACCEL"}

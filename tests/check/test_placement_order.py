"""Where a module's weights are at one point of the run: only a move of the module that can
have happened before that point places them.  A module run before its own move (in the same
method, in a method the program calls before it moves the instance, with the move in a helper
the method calls afterwards) is still where it was built, so a CPU input matches it; the
same code with the move first, the method also called after the move, or a loop around call
and move (moved on its second turn) puts the weights on the device."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

from torchferry.check.flow import analyze
from torchferry.check.flow.order import Point, after_in_scope, surely_after

BASE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 2)\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
    "\n"
)
HEAD = BASE + (
    "    def probe(self):\n        x = torch.rand(1, 4)\n        return self.forward(x)\n"
)
CALL = HEAD.count("\n")  # (the line of ``self.forward(x)``)
MOVE = 'net.to(torch.device("cuda"))\n'


def _run(tail: str) -> str:
    return HEAD + "\n\n" + textwrap.dedent(tail)


def test_a_method_the_program_calls_before_moving_the_instance_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = _run("net = Net()\nnet.probe()\n" + MOVE)
    assert finding_lines({"net.py": src}, "FRY014") == []


def test_a_method_called_after_the_move_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = _run("net = Net()\n" + MOVE + "net.probe()\n")
    assert finding_lines({"net.py": src}, "FRY014") == [CALL]


def test_a_method_called_both_before_and_after_the_move_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = _run("net = Net()\nnet.probe()\n" + MOVE + "net.probe()\n")
    assert finding_lines({"net.py": src}, "FRY014") == [CALL]


def test_a_function_the_file_runs_once_orders_its_calls(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = _run("""
        def main():
            net = Net()
            net.probe()
            net.to(torch.device("cuda"))


        main()
        """)
    assert finding_lines({"net.py": src}, "FRY014") == []


def test_a_function_the_file_runs_twice_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = _run("""
        def main():
            net = Net()
            net.probe()
            net.to(torch.device("cuda"))


        main()
        main()
        """)
    assert finding_lines({"net.py": src}, "FRY014") == [CALL]


def test_a_loop_around_the_call_and_the_move_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = _run("""
        def main():
            net = Net()
            for _ in range(3):
                net.probe()
                net.to(torch.device("cuda"))


        main()
        """)
    assert finding_lines({"net.py": src}, "FRY014") == [CALL]


HELPER = (
    "    def check(self):\n"
    "        x = torch.rand(1, 4)\n"
    "        out = self.forward(x)\n"
    "        self.place()\n"
    "        return out\n"
    "\n"
    "    def place(self):\n"
    '        self.to(torch.device("cuda"))\n'
)


def test_a_move_in_a_helper_the_method_calls_afterwards_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"net.py": BASE + HELPER}, "FRY014") == []


def test_a_move_by_the_helper_called_earlier_by_the_program_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    src = BASE + HELPER + "\n\nnet = Net()\nnet.place()\nnet.check()\n"
    assert finding_lines({"net.py": src}, "FRY014") == [BASE.count("\n") + 3]


def _placed_at_forward(src: str) -> bool:
    """Does the run place ``self`` of ``Net`` on the device at ``self.forward(...)`` of its
    method ``train``?"""
    ff = analyze(ast.parse(src), "/p/net.py")
    _ = list(ff.results())
    cls = ff.class_info(next(n for n in ff.tree.body if isinstance(n, ast.ClassDef)))
    for fn in cls.node.body:
        for n in ast.walk(fn):
            if (
                isinstance(n, ast.Call)
                and ast.unparse(n.func) == "self.forward"
                and fn.name == "train"
            ):
                return ff.instance_on_device(cls, Point(fn, n)) is not None
    raise AssertionError("no self.forward(...) call")


def test_a_move_later_in_a_loop_body_places_the_module_on_the_second_turn() -> None:
    loop = (
        "    def train(self):\n"
        "        for _ in range(2):\n"
        "            x = torch.rand(1, 4)\n"
        "            out = self.forward(x)\n"
        '            self.to(torch.device("cuda"))\n'
        "        return out\n"
    )
    assert _placed_at_forward(BASE + loop)
    straight = (
        "    def train(self):\n"
        "        x = torch.rand(1, 4)\n"
        "        out = self.forward(x)\n"
        '        self.to(torch.device("cuda"))\n'
        "        return out\n"
    )
    assert not _placed_at_forward(BASE + straight)


def test_a_move_in_another_file_keeps_its_unknown_order() -> None:
    src = HEAD + "\n\nnet = Net()\nnet.probe()\n" + MOVE
    ff = analyze(ast.parse(src), "/p/net.py")
    _ = list(ff.results())
    probe = ff.tree.body[2].body[2]
    assert isinstance(probe, ast.FunctionDef) and probe.name == "probe"
    assert ff.callers_of(probe) == [Point(ff.tree, ff.tree.body[4].value)]
    assert ff.callers_of(ff.tree.body[2].body[1]) is None  # (``forward``: run by ``net(x)``)


def test_the_order_of_two_points_in_one_scope() -> None:
    fn = ast.parse(
        "def f(m, xs):\n    m(1)\n    for x in xs:\n        m(x)\n        m.cuda()\n    m.cpu()\n"
    ).body[0]
    assert isinstance(fn, ast.FunctionDef)
    first, loop, last = fn.body
    assert isinstance(loop, ast.For)
    inner_call, inner_move = loop.body[0].value, loop.body[1].value  # type: ignore[attr-defined]
    assert after_in_scope(fn, inner_move, first)
    assert not after_in_scope(fn, inner_move, inner_call)  # (a loop holds both)
    assert not after_in_scope(fn, first, last)
    assert surely_after(Point(fn, last), Point(fn, inner_call), lambda scope: [])
    # (callers not known: the code's order inside the scope is all there is)
    assert surely_after(Point(fn, last), Point(fn, inner_call), lambda scope: None)
    other = ast.parse("def g(m):\n    m.cuda()\n").body[0]
    assert not surely_after(Point(other, other.body[0]), Point(fn, first), lambda scope: None)
    assert not surely_after(Point(other, other.body[0]), Point(fn, first), lambda scope: [])

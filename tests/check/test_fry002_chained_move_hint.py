"""FRY002's advice for a discarded move at the end of a chain of conversions names the
value the chain starts from (``w = w.float().cuda()``), never the call itself (which
cannot be assigned to), and has no one-line fix; a chain that starts from a call's result
is told to keep the result."""

from __future__ import annotations

import ast

from torchferry.check.engine import check_source

HEAD = "import torch\nw = torch.zeros(3)\nitems = {'x': torch.zeros(2)}\n"


def advice(line: str) -> tuple[str, bool]:
    (f,) = check_source(HEAD + line + "\n", "<case>", select=["FRY002"])
    return f.message.split("; ", 1)[1], f.fix is not None


def assignment_in(message: str) -> str:
    return message.split("`")[1]


def test_a_chain_from_a_name_assigns_back_to_the_name() -> None:
    message, fixed = advice("w.float().cuda()")
    assert message == "assign it: `w = w.float().cuda()`"
    assert not fixed
    ast.parse(assignment_in(message))


def test_a_chain_from_a_subscript_assigns_back_to_the_subscript() -> None:
    message, _ = advice("items['x'].double().to('cuda')")
    assert message == "assign it: `items['x'] = items['x'].double().to('cuda')`"
    ast.parse(assignment_in(message))


def test_a_plain_name_keeps_its_one_line_fix() -> None:
    message, fixed = advice("w.cuda()")
    assert message == "assign it: `w = w.cuda()`"
    assert fixed


def test_a_chain_from_a_call_is_told_to_keep_the_result() -> None:
    message, fixed = advice("def make():\n    return torch.zeros(2)\nmake().float().cuda()")
    assert message == "keep it: `result = make().float().cuda()`"
    assert not fixed
